// Sitting out and blinds (docs/table-features.md): the viewer's blind settings as checkboxes
// (sit out next big blind, auto-post blinds, wait for the big blind), the question when the next
// hand waits for the viewer's blind (post it, or sit out) and, for everyone else, who it waits
// for; "disconnected" beside a seat whose player lost their connection (public). The table
// screen calls `render` with each view; the calls go through its `call` (one at a time, the
// refusal's reason on the status line).
import type { PlayerView, SeatView } from "./gen/holdem/common/v1/common_pb";
import { gateway, key } from "./api";
import { button, h } from "./dom";
import { mySeat } from "./view";

type Call = (what: () => Promise<object>) => void;
type Option = "sitOutNextBigBlind" | "autoPostBlinds" | "waitForBigBlind";

const OPTIONS: [Option, string, string][] = [
  ["sitOutNextBigBlind", "opt-sit-out-next-bb", "Sit out next big blind"],
  ["autoPostBlinds", "opt-auto-post", "Auto-post blinds"],
  ["waitForBigBlind", "opt-wait-bb", "Wait for the big blind"],
];

export interface SeatOptions {
  el: HTMLElement;
  render(v: PlayerView, seatsEl: HTMLElement, name: (seat: number) => string): void;
}

export function seatOptions(tableId: string, call: Call): SeatOptions {
  const boxes = new Map<Option, HTMLInputElement>();
  const settings = h("fieldset", { class: "seat-options", id: "seat-options" }, h("legend", {}, "Blinds"));
  for (const [option, id, label] of OPTIONS) {
    const box = h("input", { type: "checkbox", id });
    box.addEventListener("change", () => {
      const value = box.checked;
      call(() => gateway.setSeatOptions({ tableId, [option]: value, idempotencyKey: key() }));
    });
    boxes.set(option, box);
    settings.append(h("label", { for: id }, box, ` ${label}`));
  }
  const question = h("div", { class: "blind-question", id: "blind-question", "aria-live": "polite" });
  const el = h("div", { class: "seat-options-panel" }, question, settings);

  function answer(post: boolean): void {
    call(() => gateway.answerBlind({ tableId, post, idempotencyKey: key() }));
  }

  function render(v: PlayerView, seatsEl: HTMLElement, name: (seat: number) => string): void {
    for (const s of v.seats) if (s.disconnected) markDisconnected(seatsEl, s);
    const mine = mySeat(v);
    settings.hidden = !mine;
    if (mine) {
      for (const [option] of OPTIONS) {
        const box = boxes.get(option)!;
        if (document.activeElement !== box) box.checked = mine[option];
      }
    }
    const q = v.blindQuestion;
    question.replaceChildren();
    if (!q || v.handId) return;
    const left = Math.max(0, Math.ceil(Number(q.deadline?.seconds ?? 0n) - Date.now() / 1000));
    if (mine && q.seat === v.viewerSeat) {
      const dead = q.deadAmount > 0n ? ` + ${q.deadAmount} dead` : "";
      question.append(
        h("span", {}, `Post your blind of ${q.amount}${dead}? (${left}s) `),
        button("Post blind", () => answer(true)),
        button("Sit out instead", () => answer(false)),
      );
    } else {
      question.append(h("span", {}, `Waiting for ${name(q.seat)} to post a blind (${left}s)`));
    }
  }

  return { el, render };
}

function markDisconnected(seatsEl: HTMLElement, s: SeatView): void {
  const li = seatsEl.querySelector(`li[data-seat="${s.seat}"]`);
  if (li && !li.querySelector(".disconnected")) {
    li.append(h("span", { class: "state disconnected" }, "disconnected"));
  }
}
