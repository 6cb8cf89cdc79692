// Run it twice (or three times) and the rabbit hunt (docs/table-features.md). The seat's
// standing answer (SetRunItTimes), the question when every player still in is all in before the
// river (AnswerRunIt, with its short clock), every run's board and what each run paid; after a
// hand that ended before the river, the "Rabbit hunt" button and the cards that would have come.
// Cards reach this page only as the server makes them public: a further run once dealt
// (RunDealt, PlayerView.run_boards), the rabbit once hunted (RabbitHunted).
import { create } from "@bufbuild/protobuf";
import { type Card, CardSchema, type PlayerView } from "./gen/holdem/common/v1/common_pb";
import { gateway, key, reason } from "./api";
import { cardEl } from "./cards";
import { button, h } from "./dom";

const SETTINGS: [number, string][] = [
  [0, "Ask me"],
  [1, "Always once"],
  [2, "Up to twice"],
  [3, "Up to three times"],
];
const TIMES = ["", "Once", "Twice", "Three times"];

function toCard(n: number): Card {
  return create(CardSchema, { rank: (n >> 2) + 2, suit: (n & 3) + 1 });
}

/** The new-table options: how many runs are offered, and the rabbit hunt. */
export function runItOptions(): { fields: Node[]; config(): { runItMax: number; rabbitHunt: boolean } } {
  const most = h("select", { id: "new-run-it" });
  for (const [value, text] of [
    [1, "No"],
    [2, "Twice"],
    [3, "Three times"],
  ] as const)
    most.append(h("option", { value: String(value) }, text));
  const rabbit = h("input", { id: "new-rabbit", type: "checkbox" });
  return {
    fields: [h("label", { for: "new-run-it" }, "Run it"), most, h("label", { for: "new-rabbit" }, "Rabbit hunt"), rabbit],
    config: () => ({ runItMax: Number(most.value), rabbitHunt: rabbit.checked }),
  };
}

export interface RunItPanel {
  el: HTMLElement;
  update(v: PlayerView): void;
  /** One event of the table's public stream (table.ts reads each commit). */
  event(type: string, data: Record<string, unknown>, name: (position: number) => string): void;
  /** " (run 2)" for a pot award of a hand run more than once; "" otherwise. */
  runLabel(data: Record<string, unknown>): string;
}

export function runItPanel(tableId: string, say: (text: string) => void): RunItPanel {
  const setting = h("select", { id: "run-it-setting", "aria-label": "Run it" });
  for (const [value, text] of SETTINGS) setting.append(h("option", { value: String(value) }, text));
  const settingRow = h("div", { class: "row run-it-setting", hidden: true }, h("label", { for: "run-it-setting" }, "Run it"), setting);
  const question = h("div", { class: "run-it-question", id: "run-it", role: "group", "aria-label": "Run it" });
  const said = h("p", {}); // the question's line (its countdown is rewritten each second)
  let shown = ""; // the question the buttons were made for ("" none)
  const runsEl = h("div", { class: "runs", id: "runs", "aria-live": "polite" });
  const rabbitRow = h("div", { class: "row rabbit" });
  const huntButton = button("Rabbit hunt", () => void hunt()); // kept: not made again each render
  const rabbitEl = h("p", { class: "rabbit-cards", id: "rabbit", "aria-live": "polite" });
  let view: PlayerView | null = null;
  let board: Card[] = []; // its first run, as dealt
  const runs = new Map<number, Card[]>(); // run number (from 1) -> board
  const awards = new Map<number, string[]>(); // run number -> lines
  let runCount = 1;
  let river = false; // the last hand reached the river: nothing left to hunt

  setting.addEventListener("change", () => {
    void (async () => {
      try {
        await gateway.setRunItTimes({ tableId, times: Number(setting.value), idempotencyKey: key() });
        say("");
      } catch (error) {
        say(reason(error));
      }
    })();
  });

  async function answer(times: number): Promise<void> {
    try {
      await gateway.answerRunIt({ tableId, handId: view?.handId ?? "", times, idempotencyKey: key() });
      say("");
    } catch (error) {
      say(reason(error));
    }
  }

  async function hunt(): Promise<void> {
    try {
      const reply = await gateway.rabbitHunt({ tableId, idempotencyKey: key() });
      if (reply.rabbit) showRabbit(reply.rabbit.cards);
      say("");
    } catch (error) {
      say(reason(error));
    }
  }

  function showRabbit(cards: Card[]): void {
    rabbitEl.replaceChildren("Rabbit: ", ...cards.map(cardEl));
  }

  function drawRuns(): void {
    if (runCount < 2) return;
    runs.set(1, board);
    runsEl.replaceChildren(
      ...Array.from({ length: runCount }, (_, i) => i + 1).map((n) =>
        h(
          "div",
          { class: "run", "data-run": n },
          h("span", { class: "run-name" }, `Run ${n}: `),
          ...(runs.get(n) ?? []).map(cardEl),
          ...(awards.get(n) ?? []).map((line) => h("p", { class: "run-winner" }, line)),
        ),
      ),
    );
  }

  return {
    el: h("div", { class: "run-it" }, settingRow, question, runsEl, rabbitRow, rabbitEl),
    update(v: PlayerView): void {
      view = v;
      const c = v.config;
      const seated = v.viewerSeat !== undefined;
      settingRow.hidden = !seated || (c?.runItMax ?? 0) < 2;
      const mine = v.seats.find((s) => s.seat === v.viewerSeat);
      if (mine && document.activeElement !== setting) setting.value = String(mine.runItTimes);
      const q = v.runIt;
      if (!q || !v.handId) {
        if (shown) question.replaceChildren();
        shown = "";
      } else {
        const asked = seated && q.askedSeats.includes(v.viewerSeat!);
        const left = q.deadline ? Math.max(0, Math.ceil(Number(q.deadline.seconds) - Date.now() / 1000)) : 0;
        const choosing = !q.runs && asked && !q.viewerAnswer;
        // the buttons are made again only when the question changes, not at each second's
        // render of its countdown: a button replaced under the pointer loses its click
        const shape = [v.handId, q.runs, asked, q.viewerAnswer, q.most].join("|");
        if (shape !== shown) {
          shown = shape;
          const answers = choosing ? [1, 2, 3].slice(0, Math.max(q.most, 1)).map((n) => button(TIMES[n]!, () => void answer(n))) : [];
          question.replaceChildren(said, ...answers);
        }
        said.textContent = q.runs
          ? `The board is run ${TIMES[q.runs]?.toLowerCase() ?? q.runs}`
          : choosing
            ? `Run it how many times? ${left}s`
            : asked
              ? `You answered ${TIMES[q.viewerAnswer]?.toLowerCase()}: waiting for the others (${left}s)`
              : `The players decide how many times to run the board (${left}s)`;
      }
      const offered = Boolean(c?.rabbitHunt && seated && !v.handId && !river);
      if (offered !== (rabbitRow.childElementCount > 0)) rabbitRow.replaceChildren(...(offered ? [huntButton] : []));
      if (v.rabbit?.cards.length) showRabbit(v.rabbit.cards);
    },
    event(type: string, data: Record<string, unknown>, name: (position: number) => string): void {
      if (type === "HandBegan") {
        board = [];
        runs.clear();
        awards.clear();
        runCount = 1;
        river = false;
      } else if (type === "StreetDealt") {
        board = [...board, ...(data.cards as number[]).map(toCard)]; // the first run, street by street
        river ||= Number(data.street) === 3;
        drawRuns();
      } else if (type === "RunItDecided") {
        runCount = Number(data.runs);
        runsEl.replaceChildren();
      } else if (type === "RunDealt") {
        // the run's own cards after the common ones: the common part is the first run's
        const own = (data.cards as number[]).map(toCard);
        const common = board.slice(0, 5 - own.length);
        runs.set(Number(data.run), [...common, ...own]);
        drawRuns();
      } else if (type === "PotAwarded" && runCount > 1) {
        const run = Number(data.run ?? 0) + 1;
        for (const [position, amount] of data.winners as [number, number][])
          awards.set(run, [...(awards.get(run) ?? []), `${name(position)} wins ${amount}`]);
        drawRuns();
      } else if (type === "RabbitHunted") {
        showRabbit((data.cards as number[]).map(toCard));
      }
    },
    runLabel(data: Record<string, unknown>): string {
      return runCount > 1 ? ` (run ${Number(data.run ?? 0) + 1})` : "";
    },
  };
}
