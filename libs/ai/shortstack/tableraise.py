"""Raise, fold or call off at a full table, solved: the first player in folds, moves all in, or
raises to ``raise_to`` big blinds; each player behind, in turn, calls a push or folds, and
re-raises all in over the raise or folds; once one player goes all in over the raise the rest
fold and the raiser calls it off or folds. Its equilibrium by fictitious play, per number of
players behind, as ``raising`` solves the heads-up game.

The model is ``multiway``'s (the one-caller approximation of published multi-way charts: once
someone is all in against the first player, everyone behind folds; card removal between the
first player and each player behind; the folded players' antes stay in) plus ``raising``'s one
approximation: nobody just calls the raise (a flat call leads to play after the flop, which the
game does not model), as published raise-or-fold charts for short stacks assume. With one player
behind and no antes it is the heads-up game of ``raising`` exactly, and with the raise at the
whole stack the push-or-fold game of ``multiway`` (the tests check both).

The first player's actions per class: FOLD, PUSH, RAISE_FOLD, RAISE_CALL (``raising``'s);
each player behind has a probability of calling a push and one of re-raising the raise.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources

import numpy as np
import numpy.typing as npt

from .charts import Antes
from .equities import heads_up_equities
from .hands import COUNT, pair_weights
from .multiway import MAX_BEHIND, MultiwayGame, Vector
from .raising import FOLD, PUSH, RAISE_CALL, RAISE_FOLD


@dataclass(frozen=True)
class TableRaiseGame:
    """The first-in decision of ``push`` (a ``MultiwayGame``) with a raise to ``raise_to``."""

    push: MultiwayGame
    raise_to: float = 2.0

    def __post_init__(self) -> None:
        if not 1 < self.raise_to <= self.push.stack - self.push.dead(self.push.behind):
            raise ValueError(f"a raise to more than 1 and at most the stack, not {self.raise_to}")

    @cached_property
    def _raise_lost(self) -> float:
        """The raiser's chip change when it raises and folds to the re-raise."""
        return -(self.raise_to + self.push.dead(self.push.behind))

    @cached_property
    def _raise_won(self) -> float:
        """A re-raiser's gain over folding when the raiser folds: the raise and the dead money
        (everything but the re-raiser's own posts, which folding loses too)."""
        g = self.push
        return g.dead_total - g.pusher_post + self.raise_to + g.dead(g.behind)

    def values(self, calls: Vector, reraises: Vector) -> Vector:
        """``[n, 4]`` the first player's chip change for each action with each class, against
        the players behind's calling ``[behind, n]`` and re-raising ``[behind, n]`` rows."""
        g = self.push
        out = np.empty((len(g.rows), 4))
        out[:, FOLD] = -g.pusher_post
        out[:, PUSH] = g.push_values(calls)
        reach = g.reach(reraises)
        kept = reach[-1] * (g.dead_total - g.pusher_post)
        lost = np.zeros(len(g.rows))
        shown = np.zeros(len(g.rows))
        for i, (pusher, _) in enumerate(g.showdowns):
            lost += reach[i] * (g.weights @ reraises[i]) / g.rows * self._raise_lost
            shown += reach[i] * (pusher @ reraises[i]) / g.rows
        out[:, RAISE_FOLD] = kept + lost
        out[:, RAISE_CALL] = kept + shown
        return out

    def gains(self, first: Vector, calls: Vector, reraises: Vector) -> tuple[Vector, Vector]:
        """``([behind, n], [behind, n])`` what calling a push, and re-raising the raise, gain
        each player behind over folding per class, given that it came to them (weights
        unnormalised: only the sign matters), against the first player's ``first`` ``[n, 4]``."""
        g = self.push
        calling = g.call_gains(first[:, PUSH], calls)
        reach = g.reach(reraises)
        won = g.weights * self._raise_won
        reraising = np.stack(
            [
                (first[:, RAISE_FOLD] * reach[i]) @ won + (first[:, RAISE_CALL] * reach[i]) @ gain
                for i, (_, gain) in enumerate(g.showdowns)
            ]
        )
        return calling, reraising

    def value(self, first: Vector, calls: Vector, reraises: Vector) -> float:
        """The first player's expected chip change per hand where it is first in."""
        dealt = self.push.rows / self.push.rows.sum()
        return float(dealt @ (first * self.values(calls, reraises)).sum(axis=1))

    def exploitability(self, first: Vector, calls: Vector, reraises: Vector) -> float:
        """The first player's gain from a best response plus each player behind's (its own gain
        against the others held fixed), in big blinds per hand where the first is in."""
        values = self.values(calls, reraises)
        dealt = self.push.rows / self.push.rows.sum()
        gain = float(dealt @ (values.max(axis=1) - (first * values).sum(axis=1)))
        calling, reraising = self.gains(first, calls, reraises)
        norm = float(self.push.weights.sum())
        for gains, played in ((calling, calls), (reraising, reraises)):
            gain += float((np.maximum(gains, 0) - played * gains).sum()) / norm
        return gain

    def solve(self, iterations: int = 2000) -> TableRaiseEquilibrium:
        """Fictitious play: every strategy is the running average of best responses."""
        if iterations < 1:
            raise ValueError("at least one iteration")
        n, behind = len(self.push.rows), self.push.behind
        first = np.zeros((n, 4))
        first[:, PUSH] = 1.0
        calls, reraises = np.ones((behind, n)), np.ones((behind, n))
        for t in range(1, iterations + 1):
            values = self.values(calls, reraises)
            best = np.zeros_like(values)
            best[np.arange(n), values.argmax(axis=1)] = 1.0
            first += (best - first) / (t + 1)
            calling, reraising = self.gains(first, calls, reraises)
            calls += ((calling > 0) - calls) / (t + 1)
            reraises += ((reraising > 0) - reraises) / (t + 1)
        return TableRaiseEquilibrium(
            first,
            calls,
            reraises,
            self.value(first, calls, reraises),
            self.exploitability(first, calls, reraises),
            iterations,
        )


@dataclass(frozen=True)
class TableRaiseEquilibrium:
    first: Vector  # [n, 4] FOLD, PUSH, RAISE_FOLD, RAISE_CALL
    calls: Vector  # [behind, n] each player behind's probability of calling a push
    reraises: Vector  # [behind, n] ... of re-raising all in over the raise
    value: float  # the first player's expected chip change per hand (big blinds)
    exploitability: float
    iterations: int


# ---- the kept charts (per ante structure, six dealt in), read by ``tableraiseplay``

TABLE_RAISE_DATA = "table_raise_charts.npz"
#: Depths kept (big blinds): from where a raise first pays to the six-handed push charts' end.
TABLE_RAISE_STACKS: tuple[float, ...] = tuple(6.0 + 0.5 * k for k in range(29))  # 6 .. 20
TABLE_RAISE_TO = 2.0
TABLE_RAISE_GENERATED_WITH = {"iterations": 2_000, "players": 6}


def table_raise_game(stack: float, behind: int, antes: Antes = Antes.NONE) -> TableRaiseGame:
    players = TABLE_RAISE_GENERATED_WITH["players"]
    ante, bba = antes.posts
    game = MultiwayGame(
        pair_weights(), heads_up_equities(), stack, behind, players, ante=ante, big_blind_ante=bba
    )
    return TableRaiseGame(game, TABLE_RAISE_TO)


def solve_table_raise_charts(iterations: int) -> npt.NDArray[np.float64]:
    """``[3, len(TABLE_RAISE_STACKS), MAX_BEHIND, 4 + 2 * MAX_BEHIND, 169]``: per ante
    structure, depth and number of players behind the first one in, its four action
    probabilities, then each player behind's calling row and re-raising row, in acting order
    (rows past them stay 0)."""
    out = np.zeros((len(Antes), len(TABLE_RAISE_STACKS), MAX_BEHIND, 4 + 2 * MAX_BEHIND, COUNT))
    for antes in Antes:
        for k, stack in enumerate(TABLE_RAISE_STACKS):
            for behind in range(1, MAX_BEHIND + 1):
                eq = table_raise_game(stack, behind, antes).solve(iterations)
                rows = out[antes, k, behind - 1]
                rows[:4] = eq.first.T
                rows[4 : 4 + behind] = eq.calls
                rows[4 + MAX_BEHIND : 4 + MAX_BEHIND + behind] = eq.reraises
    return out


@cache
def _charts() -> npt.NDArray[np.float64]:
    with resources.files(__package__).joinpath(TABLE_RAISE_DATA).open("rb") as stream:
        raw = np.load(stream)["charts"]
    shape = (len(Antes), len(TABLE_RAISE_STACKS), MAX_BEHIND, 4 + 2 * MAX_BEHIND, COUNT)
    if raw.shape != shape or raw.dtype != np.uint8:
        raise ValueError(f"{TABLE_RAISE_DATA} is not a {list(shape)} uint8 table")
    charts: npt.NDArray[np.float64] = raw.astype(np.float64) / 255
    return charts


@dataclass(frozen=True)
class TableRaiseChart:
    first: Vector  # [4, 169] FOLD, PUSH, RAISE_FOLD, RAISE_CALL
    calls: Vector  # [behind, 169]
    reraises: Vector  # [behind, 169]


def table_raise_chart(stack: float, behind: int, antes: Antes = Antes.NONE) -> TableRaiseChart:
    """The chart with ``behind`` players left to act and ``antes``, at the kept depth nearest
    at or below ``stack`` big blinds (the shallowest below it)."""
    if not np.isfinite(stack) or stack <= 0:
        raise ValueError(f"a stack is a positive number of big blinds, not {stack}")
    if not 1 <= behind <= MAX_BEHIND:
        raise ValueError(f"the charts know 1 to {MAX_BEHIND} players behind, not {behind}")
    k = max(int(np.searchsorted(TABLE_RAISE_STACKS, stack, side="right")) - 1, 0)
    rows = _charts()[antes, k, behind - 1]
    return TableRaiseChart(
        rows[:4], rows[4 : 4 + behind], rows[4 + MAX_BEHIND : 4 + MAX_BEHIND + behind]
    )
