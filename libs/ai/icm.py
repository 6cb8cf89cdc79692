"""The independent chip model (Malmuth-Harville): what a tournament stack is worth in prize money,
and the prize-equity price of an all-in call, for a field of any size.

Each player's chance of finishing first is their share of the chips, and, given who finished
above, the chance of finishing next is their share of the chips left (Harville 1973, applied to
poker by Malmuth). ``PrizeModel(payouts, others)`` prices stacks for one decision:

- Exact, by a dynamic programme over the sets of players already placed, down to the last paid
  place (trailing prizes of 0 pay nothing and are dropped): its states number the sum over k up to
  the places paid of C(n, k): a final table of nine with nine paid is 512, a 20-player bubble
  with 3 paid 1,351, 13 left with 12 paid 8,191. It stays exact while that is at most
  ``EXACT_STATES``.
- Beyond that, sampled: a Harville finishing order is an exponential race (Plackett-Luce): player
  i finishes at E_i / stack_i with E_i ~ Exp(1), the earliest first. Given everyone else's time,
  my chance of finishing below the r-th of them is exp(-my stack * their r-th time), so my
  expected prize is averaged over ``SAMPLES`` draws of the others' times with my own integrated
  out exactly (far less noise than counting my place). The draws come from a fixed seed and are
  the same for every price the model gives (common random numbers): a player's draw belongs to
  their seat, so the fold, win and lose prices of one decision differ only where their stacks
  do, and their differences are far less noisy than each value. The other tables' stacks do not
  change within a decision, so their earliest times are sorted once per model.

Players with no chips (busted) won the prizes below everyone alive, in the order they were busted
in; a model gives them nothing, as PokerKit's ``calculate_icm`` (the tests' reference) does, and
``all_in_prices`` pays a player who busts the place below everyone left.

``all_in_prices(model, stacks, me, villain, committed)``: my prize equity if I fold, win or lose
an all-in against one player at this table: the tournament counterpart of pot odds;
``needed_equity`` is the equity the call needs in prize terms (a bubble factor above 1 raises it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from math import comb, isfinite

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]

#: The most states the exact programme may visit; past it, sampled. 5,000 states cost about a
#: millisecond of processor time a price (13 left with 12 paid, 8,191 states, about 4), as much
#: as a sampled price of a 100-player field (benchmarks/icm.py).
EXACT_STATES = 5_000
#: Finishing orders drawn per sampled model (see docs/ai.md for the error this gives).
SAMPLES = 2_000
#: Every sampled model draws from this seed: the same stacks always get the same prices.
SEED = 30
#: Bit masks of placed players are 64-bit integers: the exact programme takes at most this many
#: players when more than one place is paid.
_MASK_BITS = 62
#: Up to this many players the programme finds a layer's sets by a table of every bit mask.
_TABLE_BITS = 16


def _check_payouts(payouts: Sequence[float]) -> None:
    if any(not isfinite(p) or p < 0 for p in payouts):
        raise ValueError(f"payouts are prizes, not negative: {list(payouts)}")
    if any(a < b for a, b in pairwise(payouts)):
        raise ValueError(f"payouts are listed first place first, never rising: {list(payouts)}")


def _check_stacks(stacks: Sequence[float]) -> None:
    if not stacks:
        raise ValueError("ICM takes at least one stack, not none")
    if any(not isfinite(s) or s < 0 for s in stacks) or sum(stacks) <= 0:
        raise ValueError(f"stacks are chips, not negative, some above zero: {list(stacks)}")


def exact_states(players: int, places: int) -> int:
    """The states of the exact programme: the sets of at most ``places`` players placed."""
    return sum(comb(players, k) for k in range(min(places, players) + 1))


class PrizeModel:
    """The prizes still to win (first place first) and the stacks at the other tables, fixed
    for one decision; ``prize`` prices a stack at this table. Exact or sampled by the size of
    the field (this table's seats, busted ones included, and the others) against
    ``exact_states``, so one decision's prices come from one method and, sampled, from the
    same draws."""

    def __init__(
        self,
        payouts: Sequence[float],
        others: Sequence[float] = (),
        *,
        samples: int = SAMPLES,
        seed: int = SEED,
        exact_states: int = EXACT_STATES,
    ) -> None:
        _check_payouts(payouts)
        if any(not isfinite(s) or s <= 0 for s in others):
            raise ValueError(f"other tables' stacks are players alive, above 0: {list(others)}")
        if samples < 1:
            raise ValueError(f"a sampled model needs at least one draw, not {samples}")
        paid = [float(p) for p in payouts]
        while paid and paid[-1] == 0:
            paid.pop()  # places paying nothing change nobody's prize
        self.paid: Floats = np.array(paid, dtype=np.float64)
        self.others: Floats = np.array(others, dtype=np.float64)
        self.samples, self.seed, self.exact_states = samples, seed, exact_states
        self._draws: dict[int, Floats] = {}
        self._others_first: Floats | None = None

    def exact(self, seats: int) -> bool:
        """Whether a table of ``seats`` (with the others) is priced exactly."""
        players, places = seats + len(self.others), len(self.paid)
        if places <= 1:
            return True  # winner takes all: the prize is the chip share
        return players <= _MASK_BITS and exact_states(players, places) <= self.exact_states

    def prize(self, stacks: Sequence[float], me: int) -> float:
        """My expected prize (``stacks``: this table's chips; 0 if mine are none)."""
        _check_stacks([*stacks, *self.others])
        if not 0 <= me < len(stacks):
            raise ValueError(f"no seat {me} among {len(stacks)}")
        if stacks[me] <= 0 or not len(self.paid):
            return 0.0
        if self.exact(len(stacks)):
            return float(self._exact([*stacks, *self.others])[me])
        return self._sampled(np.array(stacks, dtype=np.float64), me)

    def values(self, stacks: Sequence[float]) -> tuple[float, ...]:
        """Every seat's expected prize at this table (busted seats: 0)."""
        _check_stacks([*stacks, *self.others])
        if self.exact(len(stacks)):
            return tuple(float(v) for v in self._exact([*stacks, *self.others])[: len(stacks)])
        return tuple(self.prize(stacks, i) for i in range(len(stacks)))

    def _exact(self, field: Sequence[float]) -> Floats:
        """Every player's prize by the programme over placed sets (layer k: the sets that took
        the top k places, each with its chance and its chips)."""
        stacks = np.array(field, dtype=np.float64)
        out = np.zeros(len(stacks))
        alive = np.flatnonzero(stacks > 0)
        chips, paid = stacks[alive], self.paid
        places, total = min(len(paid), len(alive)), float(chips.sum())
        if places == 0:
            return out
        if places == 1:
            out[alive] = paid[0] * chips / total
            return out
        bits = np.left_shift(np.int64(1), np.arange(len(alive), dtype=np.int64))
        masks, chance, placed = np.zeros(1, np.int64), np.ones(1), np.zeros(1)
        won = np.zeros(len(alive))
        for place in range(places):
            free = (masks[:, None] & bits[None, :]) == 0
            step = np.where(free, chance[:, None] * chips[None, :], 0.0)
            step /= (total - placed)[:, None]
            won += paid[place] * step.sum(axis=0)
            if place + 1 == places:
                break
            rows, cols = np.nonzero(free)
            masks, where = _distinct(masks[rows] | bits[cols], len(alive))
            chance = np.bincount(where, step[rows, cols], len(masks)).astype(np.float64)
            before, placed = placed, np.zeros(len(masks))
            placed[where] = before[rows] + chips[cols]  # one set, one sum of chips
        out[alive] = won
        return out

    def _sampled(self, stacks: Floats, me: int) -> float:
        """My prize averaged over the others' finishing times, mine integrated out."""
        places = len(self.paid)
        table = self._table_draws(len(stacks)) / np.where(stacks > 0, stacks, np.nan)[None, :]
        rivals = np.nan_to_num(np.delete(table, me, axis=1), nan=np.inf)
        times = np.sort(np.concatenate([self._first_others(), rivals], axis=1), axis=1)
        times = times[:, :places]
        # my prize: first place's, less each step down to the next place times my chance of
        # finishing below the rival who takes the place above it
        drops = (self.paid - np.append(self.paid[1:], 0.0))[: times.shape[1]]
        below = np.exp(-stacks[me] * times)
        return float(self.paid[0] - (below @ drops).mean())

    def _table_draws(self, seats: int) -> Floats:
        if seats not in self._draws:
            rng = np.random.default_rng([self.seed, 1, seats])
            self._draws[seats] = rng.standard_exponential((self.samples, seats))
        return self._draws[seats]

    def _first_others(self) -> Floats:
        """The other tables' earliest finishing times in each draw, sorted (as many as paid)."""
        if self._others_first is None:
            rng = np.random.default_rng([self.seed, 0])
            # single precision: half the time of drawing and sorting a big field's times, and
            # far finer than the sampling's own error
            draws = rng.standard_exponential((self.samples, len(self.others)), dtype=np.float32)
            times = draws / self.others.astype(np.float32)
            keep = len(self.paid)
            if times.shape[1] > keep:
                times = np.partition(times, keep - 1, axis=1)[:, :keep]
            self._others_first = np.sort(times, axis=1).astype(np.float64)
        return self._others_first


def _distinct(
    masks: npt.NDArray[np.int64], players: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.intp]]:
    """The distinct masks, ascending, and where each of ``masks`` is among them: by a table of
    every mask while that is small (no sort), else by sorting."""
    if players > _TABLE_BITS:
        return np.unique(masks, return_inverse=True)
    seen = np.zeros(1 << players, dtype=np.intp)
    seen[masks] = 1
    distinct = np.flatnonzero(seen)
    seen[distinct] = np.arange(len(distinct))
    return distinct.astype(np.int64), seen[masks]


def icm(stacks: Sequence[float], payouts: Sequence[float]) -> tuple[float, ...]:
    """Each player's expected prize (same order as ``stacks``); players with 0 chips get 0."""
    return PrizeModel(payouts).values(stacks)


@dataclass(frozen=True)
class AllInPrices:
    """My prize equity after each outcome of an all-in against one player."""

    fold: float  # I give up what I have put in already
    win: float  # I take the pot
    lose: float  # I lose my share (busting, if I covered no more than the villain)

    def needed_equity(self) -> float:
        """The share of showdowns I must win for the all-in to be worth as much as folding."""
        spread = self.win - self.lose
        if spread <= 0:
            return 1.0
        return min(1.0, max(0.0, (self.fold - self.lose) / spread))

    @property
    def bubble_factor(self) -> float:
        """Prize lost by losing over prize gained by winning (1 in a cash game)."""
        gain = self.win - self.fold
        return (self.fold - self.lose) / gain if gain > 0 else float("inf")


def all_in_prices(
    model: PrizeModel,
    stacks: Sequence[float],
    me: int,
    villain: int,
    committed: Sequence[float],
) -> AllInPrices:
    """``stacks``: this table's chips behind now; ``committed``: what each has put in this hand
    (blinds, antes, bets; a folded player's chips stay in the pot). Me against the villain all
    in: the pot is every committed chip plus what the two of us still match; folding gives the
    pot to the villain."""
    n = len(stacks)
    if not (0 <= me < n and 0 <= villain < n) or me == villain or len(committed) != n:
        raise ValueError("two different players among the stacks, and one commitment each")
    mine, theirs = stacks[me] + committed[me], stacks[villain] + committed[villain]
    at_risk = min(mine, theirs)
    pot = sum(committed) - committed[me] - committed[villain] + 2 * at_risk
    fold = list(stacks)
    fold[villain] += sum(committed)
    win, lose = list(stacks), list(stacks)
    win[me] = mine - at_risk + pot
    win[villain] = theirs - at_risk
    lose[me] = mine - at_risk
    lose[villain] = theirs - at_risk + pot
    return AllInPrices(model.prize(fold, me), model.prize(win, me), _after(model, lose, me))


def _after(model: PrizeModel, stacks: Sequence[float], me: int) -> float:
    """My prize with these stacks; busted, the place below everyone still alive."""
    if stacks[me] > 0:
        return model.prize(stacks, me)
    place = sum(1 for s in stacks if s > 0) + len(model.others)  # 0-based: all alive above me
    return float(model.paid[place]) if place < len(model.paid) else 0.0
