"""Raise, fold or call off, solved (``libs/ai/shortstack/raising.py``) and played
(``raiseplay.py``): with the raise at the stack the game is push-or-fold exactly; the raise is
worth something to the small blind and its solution is near an equilibrium; the kept charts are
strategies; Normal plays them heads-up from 15 to 25 big blinds and nowhere else (Hard's own
play measured stronger there)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from libs.ai import Level, decide
from libs.ai.shortstack.equities import heads_up_equities
from libs.ai.shortstack.hands import combo_counts, pair_weights
from libs.ai.shortstack.raiseplay import raise_fold_or_call_off
from libs.ai.shortstack.raising import (
    RAISE_FOLD,
    RAISE_STACKS,
    RaiseGame,
    raise_chart,
    raise_exploitability,
    solve_raise,
)
from libs.ai.shortstack.solver import ShoveGame, solve
from libs.poker import BettingStructure, Variant
from libs.poker.events import ActionKind
from tests.ai.spots import BB, Hand

NLHE = (Variant.HOLDEM, BettingStructure.NO_LIMIT)
SHARES = combo_counts() / 1326


def _game(stack: float) -> ShoveGame:
    return ShoveGame(pair_weights(), heads_up_equities(), stack)


def test_a_raise_to_the_stack_is_the_push_or_fold_game() -> None:
    raised = solve_raise(RaiseGame(_game(10.0), raise_to=10.0), iterations=1_500)
    pushed = solve(_game(10.0), iterations=1_500)
    assert raised.value == pytest.approx(pushed.value, abs=0.003)
    assert raised.exploitability < 0.003


def test_the_small_raise_is_worth_something_and_the_solution_is_near_an_equilibrium() -> None:
    raised = solve_raise(RaiseGame(_game(20.0)), iterations=1_500)
    pushed = solve(_game(20.0), iterations=1_500)
    assert raised.value > pushed.value + 0.1  # big blinds a hand: the raise gains
    assert raised.exploitability < 0.005
    assert np.allclose(raised.sb.sum(axis=1), 1.0)
    worse = raised.sb.copy()
    worse[:, RAISE_FOLD] += worse[:, 0]  # never fold: raise-fold instead
    worse[:, 0] = 0.0
    game = RaiseGame(_game(20.0))
    assert raise_exploitability(game, worse, raised.call, raised.reraise) > 0.01


def test_the_kept_charts_are_strategies_and_raise_more_as_stacks_deepen() -> None:
    raising = []
    for stack in (RAISE_STACKS[0], 20.0, RAISE_STACKS[-1]):
        chart = raise_chart(stack)
        assert np.allclose(chart[:4].sum(axis=0), 1.0, atol=0.02)  # kept as bytes
        raising.append(float(SHARES @ (chart[2] + chart[3])))
    assert raising == sorted(raising) and raising[0] > 0.5
    with pytest.raises(ValueError, match="positive"):
        raise_chart(0.0)


def _heads_up(holes: list[str], bb: float) -> Hand:
    """Holes by position: the big blind's first, the small blind's (the button's) second."""
    return Hand(*NLHE, holes, [int(bb * BB)] * 2)


def test_normal_plays_the_raise_chart_heads_up_from_15_to_25_big_blinds() -> None:
    first_in = _heads_up(["7c2d", "AsAh"], 20).view()  # the small blind acts first
    kinds = {decide(first_in, Level.NORMAL, seed).kind for seed in range(20)}
    assert kinds == {ActionKind.RAISE}
    assert "raise chart" in decide(first_in, Level.NORMAL, 1).rationale
    assert "raise chart" not in decide(first_in, Level.HARD, 1).rationale
    facing = _heads_up(["AsAh", "7c2d"], 20).raise_to(2 * BB).view()  # the big blind
    assert {decide(facing, Level.NORMAL, seed).to for seed in range(10)} == {20 * BB}
    trash = _heads_up(["8s3h", "7c2d"], 20).raise_to(2 * BB).view()
    assert decide(trash, Level.NORMAL, 1).kind is ActionKind.FOLD  # no flat call in the game
    re_raised = _heads_up(["7c2d", "AsAh"], 20).raise_to(2 * BB).raise_to(20 * BB).view()
    assert decide(re_raised, Level.NORMAL, 1).kind is ActionKind.CALL  # aces call off
    for deep in (15.0, 30.0):  # push-or-fold's depth, and Hard's own play
        view = _heads_up(["7c2d", "AsAh"], deep).view()
        assert raise_fold_or_call_off(view, random.Random(1)) is None
