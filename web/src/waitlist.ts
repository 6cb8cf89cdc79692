// Sitting down (docs/private-tables.md): JoinTable with a private table's password or invite
// code; at a full table the answer WAITLISTED puts the player in line, and this panel shows
// their place as the gateway pushes it (WatchWaitlist), Leave the list, and the seat offered to
// them with its clock ("Take the seat"); at a table whose creator approves each seat, it says
// so and asks again until the creator decides. Seated, it offers a seat change to a free seat.
import { ConnectError } from "@connectrpc/connect";
import type { WaitlistUpdate } from "./gen/holdem/gateway/v1/gateway_pb";
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
  let place: WaitlistUpdate | null = null; // as last pushed
  let watching: AbortController | null = null; // the WatchWaitlist stream

  function poll(every: number, what: () => Promise<void>): void {
    clearInterval(timer);
    timer = setInterval(() => void what(), every);
    void what();
  }

  function idle(): void {
    clearInterval(timer);
    timer = undefined;
    watching?.abort();
    watching = null;
    place = null;
    line.textContent = "";
    controls.replaceChildren();
    delete controls.dataset.state;
  }

  async function join(): Promise<void> {
    try {
      await gateway.joinTable({ tableId, buyIn, idempotencyKey: key(), password: entry.password ?? "", inviteCode: entry.inviteCode ?? "" });
      idle();
      say("");
    } catch (error) {
      const code = codeOf(error);
      if (code === "WAITLISTED") void follow();
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

  /** The place in line as the gateway pushes it, until the player is not waiting. */
  async function follow(): Promise<void> {
    if (watching) return;
    const controller = (watching = new AbortController());
    clearInterval(timer);
    timer = setInterval(draw, 1000); // the offer's clock, counted down here
    while (!stopped && !controller.signal.aborted) {
      try {
        for await (const u of gateway.watchWaitlist({ tableId }, { signal: controller.signal })) {
          if (controller.signal.aborted) return; // seated or left meanwhile: from before
          place = u;
          draw();
        }
        if (watching === controller) idle(); // the stream ended: not waiting any more
        return;
      } catch (error) {
        if (stopped || controller.signal.aborted) return;
        say(reason(error));
        await new Promise((r) => setTimeout(r, 2000));
      }
    }
  }

  function draw(): void {
    const w = place;
    if (!w) return;
    if (!w.position) {
      idle();
      return;
    }
    offeredUntil = w.offeredUntil ? Number(w.offeredUntil.seconds) * 1000 : 0;
    const left = Math.max(0, Math.ceil((offeredUntil - Date.now()) / 1000));
    line.textContent = offeredUntil
      ? `A seat is yours for ${left}s`
      : `The table is full: you are number ${w.position} of ${w.waiting} on its waiting list`;
    const offered = offeredUntil ? "offered" : "waiting";
    if (controls.dataset.state !== offered) {
      controls.dataset.state = offered; // the buttons stay put while the clock counts down
      controls.replaceChildren(
        ...(offeredUntil ? [button("Take the seat", () => void join())] : []),
        button("Leave the waiting list", () => void leave()),
      );
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
      if (v.viewerSeat !== undefined && (watching || timer !== undefined)) idle(); // seated now
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
      watching?.abort();
      clearInterval(timer);
    },
  };
}
