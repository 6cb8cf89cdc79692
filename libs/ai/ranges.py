"""Ranges narrowed from the public action (the Hard level; Normal's simplified preflop ranges).

A range is a set of candidate holdings with a weight each. Hold'em uses every combination the
seat's own cards and the board leave possible; Omaha a random subset of a fixed pool of random
hands (``preflop.omaha_pool``). Every opponent starts from the same candidates, uniformly
weighted; each of its voluntary actions in the history multiplies each candidate's weight by how
likely that action was with it under a simple model of a reasonable player (``model``; floors
so no holding is ever ruled out: bluffs and slow plays exist), mixed with a random player.
Strength is the starting-hand percentile before the flop and, on a later street, the holding's
average share of the pot against the other candidates over a few runouts from the board of that
street (hi-lo: half high, half low, so scoops count).

``range_equity.equity_vs_ranges`` then samples each opponent's holding from these weights.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations

import numpy as np
import numpy.typing as npt

from libs.poker.config import Variant
from libs.poker.fast import NO_LOW, high_batch, omaha_high_batch, omaha_low_batch

from .model import RANDOM_PRIOR, likelihood, spots
from .preflop import holdem_percentile, omaha_pool
from .strength import Cards, Floats, card_masks, complete_boards, remaining_deck
from .view import BOARD_SIZE_BY_STREET, PREFLOP, Move, SeatView

Masks = npt.NDArray[np.uint64]


@dataclass(frozen=True)
class Candidates:
    """Possible holdings of an opponent: ``holes`` [M, k], their card masks, and each one's
    starting-hand percentile."""

    holes: Cards
    masks: Masks
    preflop: Floats

    def __len__(self) -> int:
        return len(self.holes)


@cache
def _pool(variant: Variant) -> Candidates:
    if variant is Variant.HOLDEM:
        holes = np.array(list(combinations(range(52), 2)), dtype=np.uint8)
        preflop = np.array([holdem_percentile(h) for h in holes.tolist()])
    else:
        holes, _, preflop = omaha_pool(variant is Variant.OMAHA_HI_LO)
    return Candidates(holes, card_masks(holes), preflop)


def warm_up() -> None:
    for variant in Variant:
        _pool(variant)


def candidates(
    variant: Variant, known: Sequence[int], rng: np.random.Generator, limit: int
) -> Candidates:
    """Holdings without any of the ``known`` cards; at most ``limit`` of them (a random
    subset when there are more)."""
    pool = _pool(variant)
    known_mask = np.uint64(0)
    for card in known:
        known_mask |= np.uint64(1) << np.uint64(card)
    index = np.flatnonzero((pool.masks & known_mask) == 0)
    if len(index) > limit:
        index = np.sort(rng.choice(index, size=limit, replace=False))
    return Candidates(pool.holes[index], pool.masks[index], pool.preflop[index])


def _column_percentiles(values: npt.NDArray[np.float64], valid: npt.NDArray[np.bool_]) -> Floats:
    """Per column, each valid entry's share of the valid entries it beats (ties half)."""
    out = np.zeros(values.shape)
    for k in range(values.shape[1]):
        rows = np.flatnonzero(valid[:, k])
        if len(rows) == 0:
            continue
        v = values[rows, k]
        s = np.sort(v)
        below = np.searchsorted(s, v, side="left")
        upto = np.searchsorted(s, v, side="right")
        out[rows, k] = (below + upto) / 2 / len(s)
    return out


def street_strength(
    variant: Variant,
    cands: Candidates,
    board: Sequence[int],
    dead: Sequence[int],
    rng: np.random.Generator,
    runouts: int,
) -> Floats:
    """Each candidate's average share of the pot against the candidates, over ``runouts``
    completions of ``board`` (3 to 5 cards) that avoid ``dead``."""
    m = len(cands)
    deck = remaining_deck([*board, *dead])
    missing = 5 - len(board)
    k = 1 if missing == 0 else runouts
    boards = complete_boards(rng, board, deck, k)
    ok = (cands.masks[:, None] & card_masks(boards)[None, :]) == 0
    mi, ki = np.nonzero(ok)
    rows = boards[ki]
    holes = cands.holes[mi]
    if variant is Variant.HOLDEM:
        high = high_batch(np.hstack([holes, rows]))
    else:
        high = omaha_high_batch(holes, rows)
    values = np.full((m, k), -1.0)
    values[mi, ki] = high
    share = _column_percentiles(values, ok)
    if variant is Variant.OMAHA_HI_LO:
        low = omaha_low_batch(holes, rows)
        lows = np.zeros((m, k))
        lows[mi, ki] = NO_LOW - low  # 0 without a low, larger for a better low
        any_low = ((lows > 0) & ok).any(axis=0)
        low_share = _column_percentiles(lows, ok)
        share = np.where(any_low[None, :], 0.5 * share + 0.5 * low_share, share)
    counts = ok.sum(axis=1)
    return np.asarray(
        np.where(counts > 0, (share * ok).sum(axis=1) / np.maximum(counts, 1), 0.5),
        dtype=np.float64,
    )


def contesting(view: SeatView) -> tuple[int, ...]:
    """The opponents to reckon with: every live one after the flop; before it, those who put
    chips in voluntarily (the players still to act mostly fold), else every live one."""
    if view.street != PREFLOP:
        return view.opponents
    entered = {a.position for a in view.street_actions(PREFLOP) if a.move is not Move.FOLD}
    entered &= {a.position for a in view.street_actions(PREFLOP) if a.amount > 0}
    chosen = tuple(p for p in view.opponents if p in entered)
    return chosen or view.opponents


@dataclass(frozen=True)
class Ranges:
    """Each opponent's weights over the candidates, and how likely its actions so far made it
    a random player rather than a reasonable one (the model's two types)."""

    weights: dict[int, Floats]
    random_share: dict[int, float]
    strengths: dict[int, Floats]  # candidates' strength by street, as rated so far

    def strength(
        self,
        view: SeatView,
        cands: Candidates,
        rng: np.random.Generator,
        runouts: int,
        dead: Sequence[int] | None = None,
    ) -> Floats:
        """The candidates' strength on the current street (rated now if not yet), over runouts
        that avoid ``dead`` (default: the seat's own cards)."""
        if view.street not in self.strengths:
            board = view.board[: BOARD_SIZE_BY_STREET[view.street]]
            self.strengths[view.street] = street_strength(
                view.variant, cands, board, view.hole if dead is None else dead, rng, runouts
            )
        return self.strengths[view.street]


def narrowed_weights(
    view: SeatView,
    cands: Candidates,
    rng: np.random.Generator,
    runouts: int,
    opponents: Sequence[int] | None = None,
    in_time: Callable[[], bool] = lambda: True,
    dead: Sequence[int] | None = None,
) -> Ranges:
    """Weights of the candidates for each opponent (default: every live one) after its
    actions in the history: P(actions | holding) under a mixture of the reasonable model
    (prior 1 - RANDOM_PRIOR) and a uniformly random player (prior RANDOM_PRIOR). Rating the
    candidates on a new street costs a few milliseconds: when ``in_time()`` says no more,
    the later actions are left out. Rating runouts avoid ``dead`` (default: the seat's own
    cards; none when the ranges must not depend on them, ``holdings``)."""
    avoid = view.hole if dead is None else dead
    chosen = view.opponents if opponents is None else opponents
    reasonable = {p: np.zeros(len(cands)) for p in chosen}  # log-likelihoods
    random_ = dict.fromkeys(chosen, 0.0)
    strengths: dict[int, Floats] = {PREFLOP: cands.preflop}
    for spot in spots(view):
        p = spot.action.position
        if p not in reasonable:
            continue
        street = spot.action.street
        if street not in strengths:
            if not in_time():
                break
            board = view.board[: BOARD_SIZE_BY_STREET[street]]
            strengths[street] = street_strength(view.variant, cands, board, avoid, rng, runouts)
        reasonable[p] += np.log(likelihood(spot, strengths[street]))
        random_[p] -= math.log(3 if spot.to_call > 0 else 2)  # fold / call / raise, or two
    weights: dict[int, Floats] = {}
    random_share: dict[int, float] = {}
    log_m, log_r = math.log(RANDOM_PRIOR), math.log(1 - RANDOM_PRIOR)
    for p, log_l in reasonable.items():
        top = max(float(log_l.max()) + log_r, random_[p] + log_m)
        part_reasonable = np.exp(log_l + log_r - top)
        part_random = math.exp(random_[p] + log_m - top)
        w = part_reasonable + part_random
        total = float(w.sum())
        weights[p] = w / total
        random_share[p] = part_random * len(w) / total
    return Ranges(weights, random_share, strengths)


def uniform_ranges(cands: Candidates, opponents: Sequence[int]) -> Ranges:
    flat = np.full(len(cands), 1.0 / len(cands))
    return Ranges(dict.fromkeys(opponents, flat), dict.fromkeys(opponents, 0.0), {})


def preflop_ranges(view: SeatView, cands: Candidates) -> dict[int, Floats]:
    """Simplified starting-hand ranges (the Normal level): each live opponent holds the top
    share of hands its strongest voluntary preflop action suggests (``preflop_tops``);
    holdings outside keep a small weight."""
    return {p: top_range(cands.preflop, top) for p, top in preflop_tops(view).items()}


def preflop_tops(view: SeatView) -> dict[int, float]:
    """Each live opponent's top share of hands by its strongest voluntary preflop action:
    re-raise 8%, raise 20%, call a raise 40%, limp 60%, blinds and checks anything."""
    share = {p: 1.0 for p in view.opponents}
    for spot in spots(view):
        p = spot.action.position
        if spot.action.street != PREFLOP or p not in share:
            continue
        move = spot.action.move
        if move.aggressive:
            top = 0.08 if spot.raises >= 1 else 0.2
        elif move is Move.CALL:
            top = 0.4 if spot.raises >= 1 else 0.6
        else:
            continue
        share[p] = min(share[p], top)
    return share


def top_range(preflop: Floats, top: float) -> Floats:
    """Weights over candidates of starting-hand percentiles ``preflop`` (``[..., M]``: one range
    per row): the top ``top`` share of starting hands 1, the rest 0.03, normalised."""
    w = np.where(preflop >= 1.0 - top, 1.0, 0.03)
    return np.asarray(w / w.sum(axis=-1, keepdims=True), dtype=np.float64)
