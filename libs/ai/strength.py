"""Hand strength after the flop: values on partial boards, immediate strength against random
hands, Monte Carlo equity against random hands, and the board's texture.

Built on the fast evaluator's batch kernels (``libs.poker.fast``), so every function here is a
handful of vectorised calls; hi-lo shares (scoops and quarters) come from
``libs.poker.equity.showdown_shares``, the same arithmetic the equity module uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

from libs.poker.config import Variant
from libs.poker.equity import showdown_shares
from libs.poker.fast import NO_LOW, draw_distinct, high_batch, omaha_high_batch, tables

Cards = npt.NDArray[np.uint8]
Values = npt.NDArray[np.int32]
Floats = npt.NDArray[np.float64]

_PAIRS = tuple(combinations(range(4), 2))


def remaining_deck(known: Sequence[int]) -> npt.NDArray[np.uint8]:
    """The cards not in ``known``, ascending."""
    mask = np.ones(52, dtype=bool)
    mask[list(known)] = False
    return np.flatnonzero(mask).astype(np.uint8)


def card_masks(cards: npt.NDArray[np.integer[Any]]) -> npt.NDArray[np.uint64]:
    """One 52-bit mask per row of cards."""
    bits = np.left_shift(np.uint64(1), cards.astype(np.uint64))
    return np.asarray(np.bitwise_or.reduce(bits, axis=1), dtype=np.uint64)


def high_values(variant: Variant, holes: Cards, board: Sequence[int]) -> Values:
    """High value of each row of ``holes`` [N, 2 or 4] on one board of 3 to 5 cards (Omaha:
    exactly two hole cards and three board cards)."""
    n = len(holes)
    b = np.asarray(board, dtype=np.uint8)
    if variant is Variant.HOLDEM:
        rows = np.empty((n, 2 + len(b)), dtype=np.uint8)
        rows[:, :2] = holes
        rows[:, 2:] = b
        return high_batch(rows)
    if len(b) == 5:
        return omaha_high_batch(holes, np.broadcast_to(b, (n, 5)))
    best = np.full(n, -1, dtype=np.int32)
    rows = np.empty((n, 5), dtype=np.uint8)
    for triple in combinations(b.tolist(), 3):
        rows[:, 2:] = triple
        for x, y in _PAIRS:
            rows[:, 0] = holes[:, x]
            rows[:, 1] = holes[:, y]
            np.maximum(best, high_batch(rows), out=best)
    return best


def low_values(holes: Cards, board: Sequence[int]) -> Values:
    """Best 8-or-better low of each row of Omaha ``holes`` [N, 4] on a board of any size
    (``NO_LOW`` when none qualifies yet)."""
    t = tables()
    bits = t.low_bit[holes]
    hole_mask = bits[:, 0] | bits[:, 1] | bits[:, 2] | bits[:, 3]
    board_mask = 0
    for card in board:
        board_mask |= int(t.low_bit[card])
    return np.asarray(t.low_value[hole_mask << 8 | board_mask], dtype=np.int32)


def heads_up_shares(
    my_high: int, my_low: int, their_high: Values, their_low: Values | None
) -> Floats:
    """My share of a two-way pot against each opponent value (hi-lo: half high, half low, the
    whole pot to the high when neither has a low)."""
    high = np.where(their_high < my_high, 1.0, np.where(their_high == my_high, 0.5, 0.0))
    if their_low is None:
        return high
    either = (their_low != NO_LOW) | (my_low != NO_LOW)
    low = np.where(their_low > my_low, 1.0, np.where(their_low == my_low, 0.5, 0.0))
    return np.where(either, 0.5 * high + 0.5 * low, high)


def immediate_strength(
    variant: Variant,
    hole: Sequence[int],
    board: Sequence[int],
    rng: np.random.Generator,
    samples: int = 300,
) -> float:
    """My share of the pot if the hand ended now against one random hand (hold'em: every
    possible hand; Omaha: ``samples`` random ones). No draws counted: the strength of the
    cards as they are."""
    deck = remaining_deck([*hole, *board])
    if variant is Variant.HOLDEM:
        pairs = np.array(list(combinations(deck.tolist(), 2)), dtype=np.uint8)
        theirs = high_values(variant, pairs, board)
        mine = int(high_values(variant, np.array([hole], dtype=np.uint8), board)[0])
        return float(heads_up_shares(mine, 0, theirs, None).mean())
    opponents = draw_distinct(rng, deck, samples, 4)
    theirs = high_values(variant, opponents, board)
    me = np.array([hole], dtype=np.uint8)
    mine = int(high_values(variant, me, board)[0])
    if variant is not Variant.OMAHA_HI_LO:
        return float(heads_up_shares(mine, 0, theirs, None).mean())
    my_low = int(low_values(me, board)[0])
    return float(heads_up_shares(mine, my_low, theirs, low_values(opponents, board)).mean())


def complete_boards(
    rng: np.random.Generator,
    board: Sequence[int],
    deck: npt.NDArray[np.uint8],
    n: int,
    avoid: Cards | None = None,
) -> Cards:
    """``n`` boards [n, 5]: ``board`` completed with cards of ``deck``; row i also avoids the
    cards ``avoid[i]`` (sampled opponents' hands)."""
    missing = 5 - len(board)
    out = np.empty((n, 5), dtype=np.uint8)
    out[:, : len(board)] = np.asarray(board, dtype=np.uint8)
    if missing == 0:
        return out
    if avoid is None or avoid.shape[1] == 0:
        out[:, len(board) :] = draw_distinct(rng, deck, n, missing)
        return out
    extra = min(len(deck), missing + avoid.shape[1])
    drawn = draw_distinct(rng, deck, n, extra)
    clash = (drawn[:, :, None] == avoid[:, None, :]).any(axis=2)
    order = np.argsort(clash, axis=1, kind="stable")[:, :missing]
    out[:, len(board) :] = np.take_along_axis(drawn, order, axis=1)
    return out


def equity_vs_random(
    variant: Variant,
    hole: Sequence[int],
    board: Sequence[int],
    opponents: int,
    rng: np.random.Generator,
    samples: int,
) -> float:
    """My expected share of the pot against ``opponents`` random hands (Monte Carlo)."""
    k = variant.hole_card_count
    deck = remaining_deck([*hole, *board])
    missing = 5 - len(board)
    drawn = draw_distinct(rng, deck, samples, opponents * k + missing)
    holes = [np.array([hole], dtype=np.uint8)]
    holes += [np.ascontiguousarray(drawn[:, i * k : (i + 1) * k]) for i in range(opponents)]
    boards = np.empty((samples, 5), dtype=np.uint8)
    boards[:, : len(board)] = np.asarray(board, dtype=np.uint8)
    boards[:, len(board) :] = drawn[:, opponents * k :]
    return float(showdown_shares(variant, holes, boards)[0].mean())


@dataclass(frozen=True, slots=True)
class Texture:
    """What the board allows: draws and made hands that change how to bet."""

    flush_possible: bool  # three or more of a suit
    flush_draw: bool  # exactly two of a suit (and cards to come)
    paired: bool
    straight_possible: bool  # three ranks within a five-rank window
    low_possible: bool  # three distinct ranks 8 or lower (hi-lo)

    @property
    def wet(self) -> float:
        """0 (dry) .. 1 (very coordinated)."""
        return min(
            1.0,
            0.35 * self.flush_possible
            + 0.2 * self.flush_draw
            + 0.35 * self.straight_possible
            + 0.1 * self.paired,
        )


def texture(board: Sequence[int]) -> Texture:
    suits = [c & 3 for c in board]
    most = max((suits.count(s) for s in range(4)), default=0)
    ranks = sorted({c >> 2 for c in board})
    wheel_ranks = sorted({-1 if r == 12 else r for r in ranks} | set(ranks))
    straight = any(sum(1 for r in wheel_ranks if low <= r <= low + 4) >= 3 for low in range(-1, 9))
    lows = {0 if c >> 2 == 12 else (c >> 2) + 1 for c in board if c >> 2 == 12 or c >> 2 <= 6}
    return Texture(
        flush_possible=most >= 3,
        flush_draw=most == 2 and len(board) < 5,
        paired=len(ranks) < len(board),
        straight_possible=straight,
        low_possible=len(lows) >= 3,
    )
