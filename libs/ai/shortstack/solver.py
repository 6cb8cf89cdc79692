"""Push-or-fold, solved: the heads-up game where the small blind may only move all in or fold
and the big blind may only call or fold, and its equilibrium by fictitious play.

The game is given by hand classes and two tables: ``weights[i, j]``, how often the small blind
holds class i while the big blind holds class j (card removal included), and
``equity[i, j]``, the small blind's share of the pot when they go to showdown. Chips are in big
blinds; each player posts ``ante``, the small blind ``small_blind`` and the big blind one plus
``big_blind_ante`` (a tournament's big blind ante); the effective ``stack`` counts what they post.
Payoffs are the small blind's chip changes: fold -(small blind + ante); push and the big blind
folds +(1 + ante + big blind ante); push and a call: 2 * stack * equity - stack.

Fictitious play (Brown 1951; it converges in two-player zero-sum games, Robinson 1951): each
player's strategy is the running average of best responses to the other's average. The result
carries each player's probability of pushing / calling with each class, and the exploitability
of the pair (how much a best response to each gains over the pair's value, summed, per hand):
it falls toward zero as iterations grow.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float64]


@dataclass(frozen=True)
class ShoveGame:
    """One heads-up push-or-fold spot."""

    weights: Vector  # [n, m] how often (small blind's class, big blind's class) are dealt
    equity: Vector  # [n, m] the small blind's pot share at showdown
    stack: float  # effective stack in big blinds, blinds and ante included
    small_blind: float = 0.5
    ante: float = 0.0
    big_blind_ante: float = 0.0

    def __post_init__(self) -> None:
        if self.weights.shape != self.equity.shape or self.weights.ndim != 2:
            raise ValueError("weights and equity are tables of the same [n, m] shape")
        if not np.all(self.weights >= 0) or self.weights.sum() <= 0:
            raise ValueError("weights are counts: not negative, not all zero")
        if not np.all((self.equity >= 0) & (self.equity <= 1)):
            raise ValueError("equity is a share of the pot, 0..1")
        if not 0 < self.small_blind <= 1 or self.ante < 0 or self.big_blind_ante < 0:
            raise ValueError("a small blind of (0, 1] big blinds and antes of 0 or more")
        if not self.stack >= 1 + self.ante + self.big_blind_ante or not np.isfinite(self.stack):
            raise ValueError(f"a stack covers the big blind and the ante, not {self.stack}")

    @property
    def fold_value(self) -> float:
        return -(self.small_blind + self.ante)

    @property
    def steal_value(self) -> float:
        return 1.0 + self.ante + self.big_blind_ante

    def called_value(self) -> Vector:
        """[n, m] the small blind's chip change when the push is called."""
        result: Vector = 2 * self.stack * self.equity - self.stack
        return result

    @cached_property
    def _weighted_called(self) -> Vector:
        return np.asarray(self.weights * self.called_value())

    @cached_property
    def _rows(self) -> Vector:
        return np.asarray(np.maximum(self.weights.sum(axis=1), 1e-300))

    @cached_property
    def _columns(self) -> Vector:
        return np.asarray(np.maximum(self.weights.sum(axis=0), 1e-300))

    def push_values(self, call: Vector) -> Vector:
        """[n] the small blind's value of pushing each class against ``call`` (per class dealt)."""
        called = self._weighted_called @ call
        stolen = self.steal_value * (self.weights @ (1 - call))
        return np.asarray((called + stolen) / self._rows)

    def call_gains(self, push: Vector) -> Vector:
        """[m] what calling gains the big blind over folding, with each class, facing ``push``
        (per class dealt; positive: calling is better)."""
        calling = -(push @ self._weighted_called)  # the big blind's chips are the negative
        folding = -self.steal_value * (push @ self.weights)
        return np.asarray((calling - folding) / self._columns)

    def value(self, push: Vector, call: Vector) -> float:
        """The small blind's expected chip change per hand."""
        w = self.weights / self.weights.sum()
        pushed = call[None, :] * self.called_value() + (1 - call[None, :]) * self.steal_value
        per_pair = push[:, None] * pushed + (1 - push[:, None]) * self.fold_value
        return float((w * per_pair).sum())


@dataclass(frozen=True)
class Equilibrium:
    push: Vector  # [n] the small blind's probability of pushing each class
    call: Vector  # [m] the big blind's probability of calling each class
    value: float  # the small blind's expected chip change per hand (big blinds)
    exploitability: float  # both best responses' gains over the pair, summed (big blinds)
    iterations: int


def best_push(game: ShoveGame, call: Vector) -> Vector:
    return (game.push_values(call) > game.fold_value).astype(np.float64)


def best_call(game: ShoveGame, push: Vector) -> Vector:
    return (game.call_gains(push) > 0).astype(np.float64)


def exploitability(game: ShoveGame, push: Vector, call: Vector) -> float:
    """What best responses gain against the pair (0 at an equilibrium), in big blinds/hand."""
    value = game.value(push, call)
    return (game.value(best_push(game, call), call) - value) + (
        value - game.value(push, best_call(game, push))
    )


def solve(game: ShoveGame, iterations: int = 4000) -> Equilibrium:
    """The equilibrium by fictitious play (``iterations`` rounds of both best responses)."""
    if iterations < 1:
        raise ValueError("at least one iteration")
    n, m = game.weights.shape
    push, call = np.ones(n), np.ones(m)
    for t in range(1, iterations + 1):
        push += (best_push(game, call) - push) / (t + 1)
        call += (best_call(game, push) - call) / (t + 1)
    return Equilibrium(
        push, call, game.value(push, call), exploitability(game, push, call), iterations
    )
