"""Raise, fold or call off, solved: the heads-up game where the small blind (the button) may
fold, move all in, or raise to ``raise_to`` big blinds and then, facing an all-in re-raise,
call it off or fold; the big blind calls or folds an all-in and re-raises all in or folds
against the small raise. Its equilibrium by fictitious play, as ``solver``'s push-or-fold.

The one approximation: the big blind never just calls the small raise (a flat call leads to
play after the flop, which this game does not model), as published raise-or-fold charts for
short stacks assume. Everything else is exact over the 169 classes, card removal included:
``weights`` and ``equity`` are ``solver.ShoveGame``'s, and without the raise (``raise_to`` at
the stack) the game is the push-or-fold one.

Small blind's actions per class: FOLD, PUSH, RAISE_FOLD, RAISE_CALL (chip changes, big blinds,
before antes): fold -sb; push: the big blind folds +1, calls 2 S e - S; raise: the big blind
folds +1, re-raises: RAISE_FOLD -r, RAISE_CALL 2 S e - S. The big blind's strategies: the
probability of calling a push and of re-raising a raise, per class.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np
import numpy.typing as npt

from .charts import Antes
from .hands import COUNT
from .solver import ShoveGame, Vector

FOLD, PUSH, RAISE_FOLD, RAISE_CALL = range(4)


@dataclass(frozen=True)
class RaiseGame:
    """One heads-up spot: the push-or-fold game plus a raise to ``raise_to`` big blinds."""

    shove: ShoveGame
    raise_to: float = 2.0

    def __post_init__(self) -> None:
        if not 1 < self.raise_to <= self.shove.stack:
            raise ValueError(f"a raise to more than 1 and at most the stack, not {self.raise_to}")

    def values(self, call: Vector, reraise: Vector) -> Vector:
        """``[n, 4]`` the small blind's value of each action with each class (per class
        dealt), against the big blind's calling and re-raising probabilities."""
        g = self.shove
        w, rows = g.weights, np.maximum(g.weights.sum(axis=1), 1e-300)
        called = g.weights * g.called_value()
        steal = g.steal_value
        out = np.empty((len(rows), 4))
        out[:, FOLD] = g.fold_value
        out[:, PUSH] = (called @ call + steal * (w @ (1 - call))) / rows
        kept = steal * (w @ (1 - reraise)) / rows
        lost = -(self.raise_to + g.ante) * (w @ reraise) / rows
        out[:, RAISE_FOLD] = kept + lost
        out[:, RAISE_CALL] = kept + (called @ reraise) / rows
        return out

    def big_blind_gains(self, sb: Vector) -> tuple[Vector, Vector]:
        """``([m], [m])`` what calling a push, and re-raising a raise, gain the big blind over
        folding with each class, against the small blind's strategy ``sb`` ``[n, 4]``."""
        g = self.shove
        cols = np.maximum(g.weights.sum(axis=0), 1e-300)
        called = g.weights * g.called_value()
        steal = g.steal_value
        calling = -(sb[:, PUSH] @ called) + steal * (sb[:, PUSH] @ g.weights)
        raised = sb[:, RAISE_FOLD] + sb[:, RAISE_CALL]
        # re-raising: the raise folds (the big blind wins the raise and the blinds), or it
        # calls off (the showdown); folding loses the big blind (and its ante) either way
        won = (self.raise_to + g.ante) * (sb[:, RAISE_FOLD] @ g.weights)
        shown = -(sb[:, RAISE_CALL] @ called)
        reraising = won + shown + steal * (raised @ g.weights)
        return calling / cols, reraising / cols

    def value(self, sb: Vector, call: Vector, reraise: Vector) -> float:
        """The small blind's expected chip change per hand."""
        g = self.shove
        rows = g.weights.sum(axis=1)
        return float((rows * (sb * self.values(call, reraise)).sum(axis=1)).sum() / rows.sum())


@dataclass(frozen=True)
class RaiseEquilibrium:
    sb: Vector  # [n, 4] the small blind's probabilities of FOLD, PUSH, RAISE_FOLD, RAISE_CALL
    call: Vector  # [m] the big blind's probability of calling a push
    reraise: Vector  # [m] ... of re-raising all in over the raise
    value: float  # the small blind's expected chip change per hand (big blinds)
    exploitability: float  # both best responses' gains over the strategies, summed
    iterations: int


def _best_sb(game: RaiseGame, call: Vector, reraise: Vector) -> Vector:
    values = game.values(call, reraise)
    out = np.zeros_like(values)
    out[np.arange(len(values)), values.argmax(axis=1)] = 1.0
    return out


def _best_bb(game: RaiseGame, sb: Vector) -> tuple[Vector, Vector]:
    calling, reraising = game.big_blind_gains(sb)
    return (calling > 0).astype(np.float64), (reraising > 0).astype(np.float64)


def raise_exploitability(game: RaiseGame, sb: Vector, call: Vector, reraise: Vector) -> float:
    value = game.value(sb, call, reraise)
    best_call, best_reraise = _best_bb(game, sb)
    return (game.value(_best_sb(game, call, reraise), call, reraise) - value) + (
        value - game.value(sb, best_call, best_reraise)
    )


def solve_raise(game: RaiseGame, iterations: int = 4000) -> RaiseEquilibrium:
    """The equilibrium by fictitious play (``iterations`` rounds of both best responses)."""
    if iterations < 1:
        raise ValueError("at least one iteration")
    n, m = game.shove.weights.shape
    sb = np.zeros((n, 4))
    sb[:, PUSH] = 1.0
    call, reraise = np.ones(m), np.ones(m)
    for t in range(1, iterations + 1):
        sb += (_best_sb(game, call, reraise) - sb) / (t + 1)
        best_call, best_reraise = _best_bb(game, sb)
        call += (best_call - call) / (t + 1)
        reraise += (best_reraise - reraise) / (t + 1)
    return RaiseEquilibrium(
        sb,
        call,
        reraise,
        game.value(sb, call, reraise),
        raise_exploitability(game, sb, call, reraise),
        iterations,
    )


# ---- the kept charts (per ante structure), read by ``raiseplay``

RAISE_DATA = "hu_raise_charts.npy"
#: Depths kept: above the push-or-fold charts' reach in Hard's play (15 big blinds) to 25.
RAISE_STACKS: tuple[float, ...] = tuple(15.5 + 0.5 * k for k in range(20))  # 15.5 .. 25
RAISE_TO = 2.0
RAISE_GENERATED_WITH = {"iterations": 2_000}


def raise_game(stack: float, antes: Antes = Antes.NONE) -> RaiseGame:
    """The kept charts' game at ``stack`` big blinds with ``antes`` (``charts.Antes``)."""
    return RaiseGame(antes.game(stack), RAISE_TO)


def solve_raise_charts(iterations: int) -> npt.NDArray[np.float64]:
    """``[3, len(RAISE_STACKS), 6, 169]``: per ante structure and depth the small blind's four
    action probabilities, then the big blind's calling (a push) and re-raising (the raise)
    probabilities."""
    out = np.zeros((len(Antes), len(RAISE_STACKS), 6, COUNT))
    for antes in Antes:
        for k, stack in enumerate(RAISE_STACKS):
            eq = solve_raise(raise_game(stack, antes), iterations)
            out[antes, k, :4], out[antes, k, 4], out[antes, k, 5] = eq.sb.T, eq.call, eq.reraise
    return out


@cache
def _raise_charts() -> npt.NDArray[np.float64]:
    with resources.files(__package__).joinpath(RAISE_DATA).open("rb") as stream:
        raw = np.load(stream)
    shape = (len(Antes), len(RAISE_STACKS), 6, COUNT)
    if raw.shape != shape or raw.dtype != np.uint8:
        raise ValueError(f"{RAISE_DATA} is not a {list(shape)} uint8 table")
    charts: npt.NDArray[np.float64] = raw.astype(np.float64) / 255
    return charts


def raise_chart(stack: float, antes: Antes = Antes.NONE) -> npt.NDArray[np.float64]:
    """``[6, 169]`` at the kept depth nearest at or below ``stack`` big blinds (the first kept
    one below it) with ``antes``: FOLD, PUSH, RAISE_FOLD, RAISE_CALL, then the big blind's
    call and re-raise."""
    if not np.isfinite(stack) or stack <= 0:
        raise ValueError(f"a stack is a positive number of big blinds, not {stack}")
    k = max(int(np.searchsorted(RAISE_STACKS, stack, side="right")) - 1, 0)
    chart: npt.NDArray[np.float64] = _raise_charts()[antes, k]
    return chart


__all__ = [
    "RAISE_STACKS",
    "RaiseEquilibrium",
    "RaiseGame",
    "raise_chart",
    "raise_exploitability",
    "raise_game",
    "solve_raise",
    "solve_raise_charts",
]
