"""Hard's hold'em reading, drawn once for a decision and valid for every holding it could have:
what makes its policy (``probe.policy``) cost one decision, not 1,326.

Nothing here depends on Hard's own cards. The candidates are every holding the board leaves;
the ranges are narrowed and rated (``ranges``) with only the board's cards dead; the samples are
a grid of ``runouts`` completions of the board (every river on the turn) times ``picks``
holdings drawn per runout for each opponent from its weights (redrawn when they share a card
with the runout or with an earlier opponent's holding). A holding's estimate then uses the
samples that share no card with it: rejection sampling, so the card removal of the range and
of the runouts is exact. Heads-up or multiway, a sample's best opponent value is computed once;
a holding's share on a sample needs only its own value on that runout (one evaluation per
runout, not per sample), and a bet's value is linear in those shares.

``read`` draws the samples (within a deadline: with little time left the grid is smaller);
``estimates`` answers for any number of holdings at once with the same arithmetic, so Hard's
decision with one holding and its policy over all of them agree exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from libs.poker.config import Variant
from libs.poker.fast import holdem_values

from .model import fold_chance
from .ranges import Candidates, Ranges, candidates, contesting, narrowed_weights, uniform_ranges
from .strength import Cards, Floats, card_masks, remaining_deck
from .view import PREFLOP, TURN, SeatView

#: Runouts x holdings per runout, by street (on the turn every river is one runout).
GRID = {PREFLOP: (128, 12), 1: (128, 12), TURN: (48, 32), 3: (1, 1_536)}
#: With little time left, the holdings per runout are cut by this factor.
SHORT_OF_TIME = 8
#: Tries at redrawing a holding that shares a card with the runout or another opponent.
REDRAWS = 4


@dataclass(frozen=True)
class Reading:
    """The ranges and samples of one decision, for any of Hard's possible holdings."""

    cands: Candidates
    ranges: Ranges
    strength: Floats | None  # the candidates' strength on this street, when there was time
    boards: Cards  # [R, 5] runouts
    picks: dict[int, npt.NDArray[np.intp]]  # opponent -> candidate per sample [R * K]
    masks: npt.NDArray[np.uint64]  # [R * K] cards of the runout and the opponents' holdings
    best: npt.NDArray[np.int32]  # [R * K] best opponent value (-1: the sample is void)
    tied: npt.NDArray[np.int64]  # [R * K] opponents holding that best value

    @property
    def per_runout(self) -> int:
        return len(self.masks) // max(1, len(self.boards))


@dataclass(frozen=True)
class Estimates:
    """Per holding: its equity, the samples it used and each bet's expected chips."""

    equity: Floats  # [H]
    samples: npt.NDArray[np.int64]  # [H]
    bets: Floats | None  # [H, sizes] expected chips; None without the model (no strength)


def _runouts(view: SeatView, rng: np.random.Generator, count: int) -> Cards:
    board = np.asarray([int(c) for c in view.board], dtype=np.uint8)
    deck = remaining_deck([int(c) for c in view.board])
    missing = 5 - len(board)
    out = np.empty((count, 5), dtype=np.uint8)
    out[:, : len(board)] = board
    if missing == 1:  # the turn: every river once
        out = np.empty((len(deck), 5), dtype=np.uint8)
        out[:, :4] = board
        out[:, 4] = deck
    elif missing:
        keys = rng.random((count, len(deck)))
        out[:, len(board) :] = deck[np.argpartition(keys, missing - 1, axis=1)[:, :missing]]
    return out


def read(
    view: SeatView,
    seed: int,
    runouts: int,
    deadline: float = float("inf"),
    clock: Callable[[], float] = lambda: 0.0,
    narrowing_needs: float = 0.0,
    max_samples: int | None = None,
) -> Reading:
    """Narrow the ranges and draw the samples (hold'em; the same for every holding), at most
    ``max_samples`` of them when given (fewer runouts, fewer holdings per runout)."""
    if view.variant is not Variant.HOLDEM:
        raise ValueError(f"shared readings are for hold'em, not {view.variant}")
    rng = np.random.default_rng(seed)
    board = [int(c) for c in view.board]
    cands = candidates(view.variant, board, rng, 1_326)
    opponents = contesting(view)

    def in_time() -> bool:
        return deadline - clock() > narrowing_needs

    narrowed = in_time()
    if narrowed:
        ranges = narrowed_weights(view, cands, rng, runouts, opponents, in_time, dead=())
    else:
        ranges = uniform_ranges(cands, opponents)
    count, per = GRID[view.street]
    if deadline - clock() < 2 * narrowing_needs:
        per = max(1, per // SHORT_OF_TIME)
    boards = _runouts(view, rng, count)
    if max_samples is not None:
        if max_samples < len(boards):
            boards = boards[np.sort(rng.choice(len(boards), max_samples, replace=False))]
        per = max(1, min(per, max_samples // len(boards)))
    n = len(boards) * per
    board_masks = np.repeat(card_masks(boards), per)
    used = board_masks.copy()
    void = np.zeros(n, dtype=bool)
    picks: dict[int, npt.NDArray[np.intp]] = {}
    for p in opponents:
        cdf = np.cumsum(ranges.weights[p])
        top = len(cands) - 1

        def draw(size: int, cdf: Floats = cdf, top: int = top) -> npt.NDArray[np.intp]:
            at = np.searchsorted(cdf, rng.random(size) * cdf[-1], side="right")
            return np.asarray(np.minimum(at, top), dtype=np.intp)

        pick = draw(n)
        for _ in range(REDRAWS):
            clash = np.flatnonzero((cands.masks[pick] & used) != 0)
            if len(clash) == 0:
                break
            pick[clash] = draw(len(clash))
        void |= (cands.masks[pick] & used) != 0
        used |= cands.masks[pick]
        picks[p] = pick
    ok = np.flatnonzero(~void)
    rows = np.repeat(boards, per, axis=0)[ok]
    stacked = np.full((max(1, len(opponents)), n), -1, dtype=np.int32)
    for j, p in enumerate(opponents):
        if len(ok):
            stacked[j, ok] = holdem_values([cands.holes[picks[p][ok]]], rows)[0]
    best = stacked.max(axis=0)
    tied = (stacked == best).sum(axis=0)
    strength = None
    if narrowed and view.street != PREFLOP and in_time():
        strength = ranges.strength(view, cands, rng, runouts, dead=())
    return Reading(cands, ranges, strength, boards, picks, used, best, tied)


def _shares(reading: Reading, holes: Cards) -> tuple[Floats, npt.NDArray[np.bool_]]:
    """``[H, S]`` each holding's share of the pot on each sample (0 where void) and whether
    the sample counts for it (no card shared, not void)."""
    per = reading.per_runout
    hole_masks = card_masks(holes)
    valid = ((hole_masks[:, None] & reading.masks[None, :]) == 0) & (reading.best >= 0)
    live = (hole_masks[:, None] & card_masks(reading.boards)[None, :]) == 0  # [H, R]
    hi, ri = np.nonzero(live)
    mine = np.full(live.shape, -1, dtype=np.int32)
    if len(hi):
        mine[hi, ri] = holdem_values([holes[hi]], reading.boards[ri])[0]
    mine_s = np.repeat(mine, per, axis=1)
    share = np.where(
        mine_s > reading.best, 1.0, np.where(mine_s == reading.best, 1.0 / (1 + reading.tied), 0.0)
    )
    return np.where(valid, share, 0.0), valid


def estimates(
    view: SeatView, reading: Reading, holes: Cards, sizes: Sequence[int], realise: float
) -> Estimates:
    """Equity and the expected chips of betting or raising to each of ``sizes`` for each of
    ``holes`` ``[H, 2]`` (as ``hard.bet_value``: everyone folds, or the callers put in their
    share and the realised equity decides)."""
    shares, valid = _shares(reading, holes)
    counts = valid.sum(axis=1)
    safe = np.maximum(counts, 1)
    equity = np.where(counts > 0, shares.sum(axis=1) / safe, 0.5)
    if reading.strength is None:
        return Estimates(equity, counts, None)
    me, pot = view.me, view.pot
    out = np.zeros((len(holes), len(sizes)))
    for j, to in enumerate(sizes):
        added = to - view.bets[me]
        all_fold = np.ones(len(reading.masks))
        called = np.zeros(len(reading.masks))
        for p, picks in reading.picks.items():
            owed = max(0, min(to, view.stacks[p] + view.bets[p]) - view.bets[p])
            price = owed / (pot + added + owed) if owed else 0.0
            folds = fold_chance(
                reading.strength[picks], price, reading.ranges.random_share[p], view.street
            )
            all_fold *= folds
            called += (1 - folds) * owed
        fixed = all_fold * pot - (1 - all_fold) * added
        per_share = realise * ((1 - all_fold) * (pot + added) + called)
        total = np.where(valid, fixed[None, :], 0.0).sum(axis=1) + (shares * per_share).sum(axis=1)
        out[:, j] = total / safe
    return Estimates(equity, counts, out)


__all__ = ["GRID", "Estimates", "Reading", "estimates", "read"]
