// The straddle and bomb pots (docs/table-features.md): at the table, the bomb pot in play, the
// bomb-pot vote (who agreed, the clock, agree/refuse), the button to propose one, and the seat's
// straddle setting; in the lobby's new-table form, the options (straddle, bomb-pot ante, every N
// hands, by vote). table.ts and lobby.ts only place what this module builds.
import type { PlayerView } from "./gen/holdem/common/v1/common_pb";
import { gateway, key } from "./api";
import { button, h } from "./dom";
import { whole } from "./numbers";
import { mySeat } from "./view";

type Call = (what: () => Promise<object>) => void;

/** Fill `el` with the bomb-pot and straddle lines and buttons for this view. */
export function renderBomb(el: HTMLElement, v: PlayerView, tableId: string, call: Call): void {
  el.replaceChildren();
  const c = v.config;
  if (!c) return;
  const mine = mySeat(v);
  const vote = v.bombPotVote;
  if (v.bombPot && v.handId) {
    el.append(
      h("p", { id: "bomb-pot", class: "bomb-pot" }, `Bomb pot: every player anted ${c.bombPotAnte}, the hand starts on the flop`),
    );
  }
  if (vote?.deadline) {
    const left = Math.max(0, Math.ceil(Number(vote.deadline.seconds) - Date.now() / 1000));
    el.append(
      h(
        "p",
        { id: "bomb-vote", class: "bomb-vote" },
        `Bomb pot vote (seat ${vote.proposerSeat + 1}): ${vote.agreedSeats.length}/${vote.askedSeats.length} agreed · ${left}s`,
      ),
    );
    if (mine && vote.askedSeats.includes(mine.seat) && !vote.viewerAgreed) {
      el.append(
        button("Agree to the bomb pot", () => void call(() => vote_(tableId, true))),
        button("Refuse the bomb pot", () => void call(() => vote_(tableId, false))),
      );
    }
  } else if (vote?.agreed) {
    el.append(h("p", { id: "bomb-vote", class: "bomb-vote" }, "Next hand is a bomb pot: everyone agreed"));
  } else if (mine && c.bombPotVote) {
    el.append(button("Propose a bomb pot", () => void call(() => vote_(tableId, true))));
  }
  if (c.bombPotAnte && c.bombPotEvery) {
    el.append(h("p", { class: "bomb-every" }, `A bomb pot every ${c.bombPotEvery} hands (ante ${c.bombPotAnte})`));
  }
  if (mine && c.straddleAllowed) {
    const on = mine.straddle;
    el.append(
      button(`Straddle: ${on ? "on" : "off"}`, () =>
        void call(() => gateway.setStraddle({ tableId, straddle: !on, idempotencyKey: key() })),
      { "aria-pressed": on ? "true" : "false", id: "straddle" }),
    );
  }
}

function vote_(tableId: string, agree: boolean): Promise<object> {
  return gateway.voteBombPot({ tableId, agree, idempotencyKey: key() });
}

/** The new-table form's straddle and bomb-pot fields, and what they add to the config. */
export interface BombConfig {
  straddleAllowed: boolean;
  bombPotAnte: bigint;
  bombPotEvery: number;
  bombPotVote: boolean;
}

export function bombOptions(): { fields: Node[]; config(): BombConfig } {
  const straddle = h("input", { id: "new-straddle", type: "checkbox" });
  const ante = h("input", { id: "new-bomb-ante", type: "number", min: 0, value: 0 });
  const every = h("input", { id: "new-bomb-every", type: "number", min: 0, max: 1000, value: 0 });
  const byVote = h("input", { id: "new-bomb-vote", type: "checkbox" });
  return {
    fields: [
      h("label", { for: "new-straddle" }, "Straddle"),
      straddle,
      h("label", { for: "new-bomb-ante" }, "Bomb pot ante"),
      ante,
      h("label", { for: "new-bomb-every" }, "Bomb pot every N hands"),
      every,
      h("label", { for: "new-bomb-vote" }, "Bomb pots by vote"),
      byVote,
    ],
    config: () => ({
      straddleAllowed: straddle.checked,
      bombPotAnte: whole(ante, "Bomb pot ante", 0n, undefined, 0n),
      bombPotEvery: Number(whole(every, "Bomb pot every N hands", 0n, 1000n, 0n)),
      bombPotVote: byVote.checked,
    }),
  };
}
