// Sitting down (docs/private-tables.md): JoinTable with a private table's password or invite
// code; at a full table the answer WAITLISTED puts the player in line, and this panel shows
// their place (GetWaitlist, asked again every second), Leave the list, and the seat offered to
// them with its clock ("Take the seat"); at a table whose creator approves each seat, it says
// so and asks again until the creator decides. Seated, it offers a seat change to a free seat.
import { ConnectError } from "@connectrpc/connect";
import { type PlayerView, SeatStatus } from "./gen/holdem/common/v1/common_pb";
import { gateway, key, reason } from "./api";
import { button, h } from "./dom";

/** What lets a player into a private table: its password or its invite code. */
export interface Entry {
  password?: string;
  inviteCode?: string;
}

export interface SeatPanel {
  el: HTMLElement;
  join(): Promise<void>;
  update(v: PlayerView): void;
  stop(): void;
}

function codeOf(error: unknown): string {
  return error instanceof ConnectError ? (error.metadata.get("x-error-code") ?? "") : "";
}

export function seatPanel(tableId: string, buyIn: bigint, entry: Entry, say: (text: string) => void): SeatPanel {
  const line = h("p", { class: "waitlist", id: "waitlist", "aria-live": "polite" });
  const controls = h("div", { class: "row" });
  const change = h("div", { class: "row seat-change" });
  const seatChoice = h("select", { id: "change-seat", "aria-label": "Free seat" });
  let timer: ReturnType<typeof setInterval> | undefined;
  let offeredUntil = 0; // ms
  let stopped = false;

  function poll(every: number, what: () => Promise<void>): void {
    clearInterval(timer);
    timer = setInterval(() => void what(), every);
    void what();
  }

  function idle(): void {
    clearInterval(timer);
    timer = undefined;
    line.textContent = "";
    controls.replaceChildren();
  }

  async function join(): Promise<void> {
    try {
      await gateway.joinTable({ tableId, buyIn, idempotencyKey: key(), password: entry.password ?? "", inviteCode: entry.inviteCode ?? "" });
      idle();
      say("");
    } catch (error) {
      const code = codeOf(error);
      if (code === "WAITLISTED") poll(1000, waiting);
      else if (code === "AWAITING_APPROVAL") {
        line.textContent = "The table's creator decides who sits: asked, waiting for their answer";
        controls.replaceChildren(button("Stop asking", idle));
        if (timer === undefined) poll(2000, () => (stopped ? Promise.resolve() : retry()));
      } else {
        idle();
        say(reason(error));
      }
    }
  }

  async function retry(): Promise<void> {
    try {
      await gateway.joinTable({ tableId, buyIn, idempotencyKey: key(), password: entry.password ?? "", inviteCode: entry.inviteCode ?? "" });
      idle();
    } catch (error) {
      const code = codeOf(error);
      if (code !== "AWAITING_APPROVAL") {
        idle();
        say(reason(error)); // refused by the creator: a new JoinTable asks again
      }
    }
  }

  async function waiting(): Promise<void> {
    if (stopped) return;
    try {
      const w = await gateway.getWaitlist({ tableId });
      if (timer === undefined) return; // seated or left meanwhile: an answer from before
      if (!w.position) {
        idle();
        return;
      }
      offeredUntil = w.offeredUntil ? Number(w.offeredUntil.seconds) * 1000 : 0;
      const left = Math.max(0, Math.ceil((offeredUntil - Date.now()) / 1000));
      line.textContent = offeredUntil
        ? `A seat is yours for ${left}s`
        : `The table is full: you are number ${w.position} of ${w.waiting} on its waiting list`;
      controls.replaceChildren(
        ...(offeredUntil ? [button("Take the seat", () => void join())] : []),
        button("Leave the waiting list", () => void leave()),
      );
    } catch (error) {
      say(reason(error));
    }
  }

  async function leave(): Promise<void> {
    try {
      await gateway.leaveWaitlist({ tableId });
      idle();
      say("You left the waiting list");
    } catch (error) {
      say(reason(error));
    }
  }

  async function changeSeat(): Promise<void> {
    try {
      await gateway.changeSeat({ tableId, seat: Number(seatChoice.value), idempotencyKey: key() });
      say("");
    } catch (error) {
      say(reason(error));
    }
  }

  return {
    el: h("div", { class: "seating" }, line, controls, change),
    join,
    update(v: PlayerView): void {
      const taken = new Set(v.seats.filter((s) => s.status !== SeatStatus.EMPTY).map((s) => s.seat));
      const free = Array.from({ length: v.config?.maxSeats || 6 }, (_, i) => i).filter((i) => !taken.has(i));
      if (v.viewerSeat === undefined || !free.length) {
        change.replaceChildren();
        return;
      }
      const now = free.map(String).join(",");
      if (seatChoice.dataset.free !== now) {
        seatChoice.dataset.free = now;
        seatChoice.replaceChildren(...free.map((i) => h("option", { value: String(i) }, `Seat ${i + 1}`)));
      }
      if (!change.childElementCount) change.append(seatChoice, button("Change seat", () => void changeSeat()));
    },
    stop(): void {
      stopped = true;
      clearInterval(timer);
    },
  };
}
