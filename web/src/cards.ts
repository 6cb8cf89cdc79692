// Cards as text and as elements: "As", "Td" (the suit in colour, and named for screen readers).
import type { Card } from "./gen/holdem/common/v1/common_pb";
import { h } from "./dom";

const RANKS = "23456789TJQKA";
const SUITS: Record<number, [string, string, string]> = {
  1: ["c", "♣", "clubs"],
  2: ["d", "♦", "diamonds"],
  3: ["h", "♥", "hearts"],
  4: ["s", "♠", "spades"],
};

export function cardText(card: Card): string {
  return (RANKS[card.rank - 2] ?? "?") + (SUITS[card.suit]?.[0] ?? "?");
}

export function cardEl(card: Card): HTMLElement {
  const [letter, symbol, name] = SUITS[card.suit] ?? ["?", "?", "unknown"];
  const rank = RANKS[card.rank - 2] ?? "?";
  return h(
    "span",
    { class: `card suit-${letter}`, "aria-label": `${rank} of ${name}`, "data-card": rank + letter },
    rank,
    symbol,
  );
}

export function cardBack(): HTMLElement {
  return h("span", { class: "card back", "aria-label": "hidden card" }, "🂠");
}
