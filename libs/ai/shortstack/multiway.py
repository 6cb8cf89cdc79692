"""Push-or-fold at a full table, solved: the first player in moves all in or folds, and each
player behind, in turn, calls or folds; the equilibrium by fictitious play, per number of
players behind the pusher.

The model is the one-caller approximation that published multi-way push/fold charts use (for
example the SAGE and "pushbot" charts): once a player calls, everyone behind folds (overcalls
are not modelled), so every showdown is heads-up and the heads-up class-vs-class equity table
prices it. Card removal is counted between the pusher and each caller (``pair_weights``), not
among the callers. The players who folded before the pusher are gone but their antes stay in.

Chips are in big blinds; every player posts ``ante``, the small blind ``small_blind`` and the
big blind one plus ``big_blind_ante``; stacks are equal (``stack``, posts included). The last
two players behind are the small and the big blind (one behind: the pusher is the small blind
and the big blind is all that is left). Payoffs are chip changes from the start of the hand.

``MultiwayGame.solve`` returns the pushing probability per class and, for each player behind in
order, the calling probability per class. With one player behind and no antes it is exactly
the heads-up game of ``solver.py`` (the tests check it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float64]
MAX_BEHIND = 5  # six-handed: under the gun has five players behind


@dataclass(frozen=True)
class MultiwayEquilibrium:
    push: Vector  # [n] the pusher's probability of moving all in with each class
    calls: Vector  # [behind, n] each player behind's probability of calling, in acting order
    exploitability: float  # the best responses' gains over the profile, summed (big blinds)
    iterations: int


@dataclass(frozen=True)
class MultiwayGame:
    """The first-in push from a seat with ``behind`` players left to act."""

    weights: Vector  # [n, n] how often (pusher's class, a caller's class) are dealt together
    equity: Vector  # [n, n] the pusher's share of a heads-up all-in pot
    stack: float
    behind: int
    players: int = 6  # dealt in (the ones who folded first still posted their antes)
    small_blind: float = 0.5
    ante: float = 0.0
    big_blind_ante: float = 0.0
    _posts: tuple[float, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.weights.shape != self.equity.shape or self.weights.ndim != 2:
            raise ValueError("weights and equity are tables of the same [n, n] shape")
        if not 1 <= self.behind <= MAX_BEHIND or not self.behind < self.players:
            raise ValueError(
                f"1 to {MAX_BEHIND} players behind, fewer than the {self.players} dealt in, "
                f"not {self.behind}"
            )
        if not np.isfinite(self.stack) or self.stack < 1 + self.ante + self.big_blind_ante:
            raise ValueError(f"a stack covers the big blind and the ante, not {self.stack}")
        blinds = [0.0] * self.behind + [0.0]  # callers in order, then the pusher
        blinds[self.behind - 1] = 1.0 + self.big_blind_ante
        if self.behind >= 2:
            blinds[self.behind - 2] = self.small_blind
        else:
            blinds[-1] = self.small_blind  # the pusher is the small blind
        object.__setattr__(self, "_posts", tuple(b + self.ante for b in blinds))

    @property
    def pusher_post(self) -> float:
        return self._posts[-1]

    @property
    def dead_total(self) -> float:
        """Every chip posted before the push (the folded players' antes included)."""
        return sum(self._posts) + self.ante * (self.players - self.behind - 1)

    def dead(self, who: int) -> float:
        """What a player posted that an all-in does not match: the antes (and a big blind ante)."""
        extra = self.big_blind_ante if who == self.behind - 1 else 0.0
        return self.ante + extra

    @cached_property
    def showdowns(self) -> list[tuple[Vector, Vector]]:
        """Per caller: ([n, n] weighted pusher's chip change, [n, n] weighted caller's gain
        over folding) when that caller calls and the rest fold."""
        out = []
        dead_p = self.dead(self.behind)
        for i in range(self.behind):
            dead_i = self.dead(i)
            matched = self.stack - max(dead_p, dead_i)
            pot = (
                2 * matched
                + self.dead_total
                - (self.pusher_post - dead_p)
                - (self._posts[i] - dead_i)
            )
            pusher = self.equity * pot - matched - dead_p
            caller_gain = (1 - self.equity) * pot - matched - dead_i + self._posts[i]
            out.append((self.weights * pusher, self.weights * caller_gain))
        return out

    @cached_property
    def rows(self) -> Vector:
        return np.asarray(np.maximum(self.weights.sum(axis=1), 1e-300))

    def reach(self, calls: Vector) -> Vector:
        """[behind + 1, n]: the chance, per pusher class, that every caller before i folded."""
        reach = np.ones((self.behind + 1, len(self.rows)))
        for i in range(self.behind):
            q = (self.weights @ calls[i]) / self.rows
            reach[i + 1] = reach[i] * (1 - q)
        return reach

    def push_values(self, calls: Vector) -> Vector:
        """[n] the pusher's chip change for pushing each class against ``calls``."""
        reach = self.reach(calls)
        value = reach[-1] * (self.dead_total - self.pusher_post)
        for i, (pusher, _) in enumerate(self.showdowns):
            value = value + reach[i] * (pusher @ calls[i]) / self.rows
        return np.asarray(value)

    def call_gains(self, push: Vector, calls: Vector) -> Vector:
        """[behind, n] what calling gains each caller over folding, per class, given that the
        push came and everyone before folded (weights unnormalised: only the sign matters)."""
        reach = self.reach(calls)
        return np.stack([(push * reach[i]) @ gain for i, (_, gain) in enumerate(self.showdowns)])

    def _best(self, push: Vector, calls: Vector) -> tuple[Vector, Vector]:
        best_push = (self.push_values(calls) > -self.pusher_post).astype(np.float64)
        return best_push, (self.call_gains(push, calls) > 0).astype(np.float64)

    def exploitability(self, push: Vector, calls: Vector) -> float:
        """Pusher's gain from a best response plus each caller's (a caller's own gain against
        the others held fixed), in big blinds per hand where the pusher is first in."""
        dealt = self.rows / self.rows.sum()
        values = self.push_values(calls)
        fold = -self.pusher_post
        gain = float(dealt @ (np.maximum(values, fold) - (push * values + (1 - push) * fold)))
        gains = self.call_gains(push, calls)
        norm = float(self.weights.sum())
        for i in range(self.behind):
            gain += float((np.maximum(gains[i], 0) - calls[i] * gains[i]).sum()) / norm
        return gain

    def solve(self, iterations: int = 1000) -> MultiwayEquilibrium:
        """Fictitious play: both sides' strategies are running averages of best responses."""
        if iterations < 1:
            raise ValueError("at least one iteration")
        n = len(self.rows)
        push, calls = np.ones(n), np.ones((self.behind, n))
        for t in range(1, iterations + 1):
            best_push, _ = self._best(push, calls)
            push += (best_push - push) / (t + 1)
            _, best_calls = self._best(push, calls)
            calls += (best_calls - calls) / (t + 1)
        return MultiwayEquilibrium(push, calls, self.exploitability(push, calls), iterations)
