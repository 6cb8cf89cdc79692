"""Hand values: a hand's strength as a plain int, computed the plain, obviously correct way.

A *high value* is larger for a better hand: the category sits in bits 20..23 and up to five rank
indices (most significant first) in the four-bit groups below it, so equal values mean equal hands
and suits never break ties. A *low value* is SMALLER for a better low: the five ace-low ranks
(A=1 .. 8) packed from the highest down, so ``min`` finds the best low.

``ReferenceEvaluator`` wraps these functions as a ``libs.poker.evaluation.HandEvaluator``; the
lookup tables of ``libs.poker.fast`` are generated from ``high_value`` and must return exactly
these values. This module imports nothing else from the package, so both can build on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

HIGH_CARD, ONE_PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT = 0, 1, 2, 3, 4
FLUSH, FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH = 5, 6, 7, 8

CATEGORY_NAMES = (
    "high card",
    "one pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)
_RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")


def _straight_top(mask: int) -> int:
    """Rank index of the top card of the best straight in a 13-bit rank mask, else -1."""
    for top in range(12, 3, -1):
        run = 0b11111 << (top - 4)
        if mask & run == run:
            return top
    wheel = (1 << 12) | 0b1111  # A-2-3-4-5 plays the five high
    return 3 if mask & wheel == wheel else -1


_STRAIGHT_TOP = tuple(_straight_top(m) for m in range(1 << 13))


def _pack(ranks: Sequence[int]) -> int:
    value = 0
    for i, rank in enumerate(ranks):
        value |= rank << (16 - 4 * i)
    return value


def _top_ranks(mask: int, count: int) -> list[int]:
    out: list[int] = []
    rank = 12
    while len(out) < count and rank >= 0:
        if mask >> rank & 1:
            out.append(rank)
        rank -= 1
    return out


def high_value(cards: Sequence[int]) -> int:
    """High value of the best five cards among ``cards`` (5 to 7 cards)."""
    counts = [0] * 13
    suit_masks = [0, 0, 0, 0]
    for card in cards:
        rank = card >> 2
        counts[rank] += 1
        suit_masks[card & 3] |= 1 << rank
    for mask in suit_masks:
        if mask.bit_count() >= 5:
            # With at most seven cards a flush excludes quads and full houses.
            top = _STRAIGHT_TOP[mask]
            if top >= 0:
                return STRAIGHT_FLUSH << 20 | top << 16
            return FLUSH << 20 | _pack(_top_ranks(mask, 5))
    quads: list[int] = []
    trips: list[int] = []
    pairs: list[int] = []
    rank_mask = 0
    for rank in range(12, -1, -1):
        n = counts[rank]
        if n:
            rank_mask |= 1 << rank
            if n == 4:
                quads.append(rank)
            elif n == 3:
                trips.append(rank)
            elif n == 2:
                pairs.append(rank)
    if quads:
        quad = quads[0]
        kicker = _top_ranks(rank_mask & ~(1 << quad), 1)
        return FOUR_OF_A_KIND << 20 | _pack([quad, *kicker])
    if trips and (len(trips) > 1 or pairs):
        pair = max(trips[1] if len(trips) > 1 else -1, pairs[0] if pairs else -1)
        return FULL_HOUSE << 20 | _pack([trips[0], pair])
    top = _STRAIGHT_TOP[rank_mask]
    if top >= 0:
        return STRAIGHT << 20 | top << 16
    if trips:
        kickers = _top_ranks(rank_mask & ~(1 << trips[0]), 2)
        return THREE_OF_A_KIND << 20 | _pack([trips[0], *kickers])
    if len(pairs) >= 2:
        high, low = pairs[0], pairs[1]
        kicker = _top_ranks(rank_mask & ~(1 << high) & ~(1 << low), 1)
        return TWO_PAIR << 20 | _pack([high, low, *kicker])
    if pairs:
        kickers = _top_ranks(rank_mask & ~(1 << pairs[0]), 3)
        return ONE_PAIR << 20 | _pack([pairs[0], *kickers])
    return HIGH_CARD << 20 | _pack(_top_ranks(rank_mask, 5))


def omaha_high_value(hole: Sequence[int], board: Sequence[int]) -> int:
    """Best high value using exactly two of ``hole`` and exactly three of ``board``."""
    best = -1
    triples = list(combinations(board, 3))
    for pair in combinations(hole, 2):
        for triple in triples:
            value = high_value(pair + triple)
            if value > best:
                best = value
    return best


def _low_rank(card: int) -> int:
    """Ace-low rank 1..13 (A=1, 2=2, .., K=13)."""
    rank = card >> 2
    return 1 if rank == 12 else rank + 2


def omaha_low_value(hole: Sequence[int], board: Sequence[int]) -> int | None:
    """Best 8-or-better low with exactly two hole and three board cards, or None."""
    board_lows = sorted({r for r in map(_low_rank, board) if r <= 8})
    if len(board_lows) < 3:
        return None
    hole_lows = sorted({r for r in map(_low_rank, hole) if r <= 8})
    best: int | None = None
    for a, b in combinations(hole_lows, 2):
        rest = [r for r in board_lows if r != a and r != b][:3]
        if len(rest) < 3:
            continue
        value = _pack(sorted((a, b, *rest), reverse=True))
        if best is None or value < best:
            best = value
    return best


_PLURALS = (
    "2s",
    "3s",
    "4s",
    "5s",
    "6s",
    "7s",
    "8s",
    "9s",
    "10s",
    "jacks",
    "queens",
    "kings",
    "aces",
)


def describe_high(value: int) -> str:
    """Human description, e.g. ``"full house, kings full of 7s"``."""
    category = value >> 20
    ranks = [value >> (16 - 4 * i) & 0xF for i in range(5)]
    names = [_RANK_NAMES[r] for r in ranks]

    def kickers(rs: list[str]) -> str:
        return "-".join(rs)

    if category == STRAIGHT_FLUSH:
        return "royal flush" if ranks[0] == 12 else f"straight flush, {names[0]} high"
    if category == FOUR_OF_A_KIND:
        return f"four {_PLURALS[ranks[0]]}, {names[1]} kicker"
    if category == FULL_HOUSE:
        return f"full house, {_PLURALS[ranks[0]]} full of {_PLURALS[ranks[1]]}"
    if category == FLUSH:
        return f"flush, {kickers(names)}"
    if category == STRAIGHT:
        return f"straight, {names[0]} high"
    if category == THREE_OF_A_KIND:
        return f"three {_PLURALS[ranks[0]]}, {kickers(names[1:3])}"
    if category == TWO_PAIR:
        return f"two pair, {_PLURALS[ranks[0]]} and {_PLURALS[ranks[1]]}, {names[2]} kicker"
    if category == ONE_PAIR:
        return f"pair of {_PLURALS[ranks[0]]}, {kickers(names[1:4])}"
    return f"high card, {kickers(names)}"


def describe_low(value: int) -> str:
    """Human description of a low value, e.g. ``"8-5-4-2-A low"``."""
    names = {1: "A", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8"}
    return "-".join(names[value >> (16 - 4 * i) & 0xF] for i in range(5)) + " low"


class ReferenceEvaluator:
    """The plain implementation of ``HandEvaluator``."""

    def high(self, cards: Sequence[int]) -> int:
        return high_value(cards)

    def omaha_high(self, hole: Sequence[int], board: Sequence[int]) -> int:
        return omaha_high_value(hole, board)

    def omaha_low(self, hole: Sequence[int], board: Sequence[int]) -> int | None:
        return omaha_low_value(hole, board)
