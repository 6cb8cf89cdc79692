// The caller's hand histories at a table, with a replayer that steps through a hand line by line.
import { gateway, reason } from "./api";
import { button, h } from "./dom";
import type { HandRecord } from "./gen/holdem/gateway/v1/gateway_pb";

export function historyPanel(tableId: string): HTMLElement {
  const hands = h("select", { id: "history-hand", "aria-label": "Hand" });
  const text = h("pre", { class: "replay", id: "replay" });
  const where = h("span", { id: "replay-step" });
  let records: HandRecord[] = [];
  let lines: string[] = [];
  let step = 0;

  function draw(): void {
    text.textContent = lines.slice(0, step).join("\n");
    where.textContent = lines.length ? `${step} / ${lines.length}` : "";
  }

  function pick(): void {
    const record = records[Number(hands.value)];
    lines = (record?.pokerstars || record?.phh || "").split("\n").filter((l) => l.trim());
    step = Math.min(lines.length, 1);
    draw();
  }

  async function load(): Promise<void> {
    try {
      records = (await gateway.getHandHistory({ tableId, limit: 20 })).hands;
      hands.replaceChildren(
        ...records.map((r, i) => h("option", { value: String(i) }, `Hand ${r.handNumber}`)),
      );
      pick();
    } catch (error) {
      text.textContent = reason(error);
    }
  }

  hands.addEventListener("change", pick);
  return h(
    "details",
    { class: "history" },
    h("summary", {}, "Hand history"),
    h(
      "div",
      { class: "row" },
      button("Load hands", () => void load()),
      hands,
      button("Previous", () => {
        step = Math.max(0, step - 1);
        draw();
      }),
      button("Next", () => {
        step = Math.min(lines.length, step + 1);
        draw();
      }),
      button("Whole hand", () => {
        step = lines.length;
        draw();
      }),
      where,
    ),
    text,
  );
}
