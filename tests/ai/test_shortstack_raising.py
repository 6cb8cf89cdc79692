"""Raise, fold or call off, solved (``libs/ai/shortstack/raising.py``) and played
(``raiseplay.py``): with the raise at the stack the game is push-or-fold exactly; the raise is
worth something to the small blind and its solution is near an equilibrium; the kept charts are
strategies, the solver's, for every ante structure, and antes widen them; Normal plays them
heads-up from 15 to 25 big blinds, with or without antes, and nowhere else (Hard's own play
measured stronger there)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from libs.ai import Level, decide
from libs.ai.shortstack.charts import Antes, heads_up_chart
from libs.ai.shortstack.equities import heads_up_equities
from libs.ai.shortstack.hands import INDEX, combo_counts, pair_weights
from libs.ai.shortstack.raiseplay import raise_fold_or_call_off
from libs.ai.shortstack.raising import (
    FOLD,
    RAISE_CALL,
    RAISE_FOLD,
    RAISE_GENERATED_WITH,
    RAISE_STACKS,
    RaiseGame,
    raise_chart,
    raise_exploitability,
    raise_game,
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


@pytest.mark.parametrize("antes", list(Antes))
def test_the_kept_charts_are_the_solvers_for_every_ante_structure(antes: Antes) -> None:
    solved = solve_raise(raise_game(20.0, antes), RAISE_GENERATED_WITH["iterations"])
    assert solved.exploitability < 0.005
    kept = raise_chart(20.0, antes)
    tolerance = 0.5 / 255 + 1e-9  # kept as bytes
    assert np.abs(kept[:4] - solved.sb.T).max() <= tolerance
    assert np.abs(kept[4] - solved.call).max() <= tolerance
    assert np.abs(kept[5] - solved.reraise).max() <= tolerance
    for stack in RAISE_STACKS:
        assert np.allclose(raise_chart(stack, antes)[:4].sum(axis=0), 1.0, atol=0.02)


def test_antes_widen_the_ranges_at_every_depth() -> None:
    """More dead money: the big blind calls a push and re-pushes over the raise more, and the
    small blind calls off more; a tenth from each also makes it fold less first in (a big blind
    ante does not: the big blind's wider re-push costs the raise-folds, docs/ai.md)."""
    for stack in RAISE_STACKS:
        plain = raise_chart(stack)
        for antes in (Antes.TENTH, Antes.BIG_BLIND_ANTE):
            anted = raise_chart(stack, antes)
            assert SHARES @ anted[4] > SHARES @ plain[4]
            assert SHARES @ anted[5] > SHARES @ plain[5]
            assert SHARES @ anted[RAISE_CALL] > SHARES @ plain[RAISE_CALL]
        assert SHARES @ raise_chart(stack, Antes.TENTH)[FOLD] < SHARES @ plain[FOLD]


def _heads_up(holes: list[str], bb: float, antes: tuple[int, int] | None = None) -> Hand:
    """Holes by position: the big blind's first, the small blind's (the button's) second."""
    return Hand(*NLHE, holes, [int(bb * BB)] * 2, antes or ())


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


@pytest.mark.parametrize(
    ("antes", "posts"), [(Antes.TENTH, (BB // 10, BB // 10)), (Antes.BIG_BLIND_ANTE, (BB, 0))]
)
def test_with_antes_the_ante_chart_is_played(antes: Antes, posts: tuple[int, int]) -> None:
    king = INDEX["K2o"]
    assert raise_chart(20.0)[5, king] < 0.05 < 0.95 < raise_chart(20.0, antes)[5, king]
    plain = _heads_up(["Kc2d", "7h6h"], 20).raise_to(2 * BB).view()  # the big blind
    anted = _heads_up(["Kc2d", "7h6h"], 20, posts).raise_to(2 * BB).view()
    for seed in range(5):
        folded = raise_fold_or_call_off(plain, random.Random(seed))
        assert folded is not None and folded.kind is ActionKind.FOLD
        pushed = raise_fold_or_call_off(anted, random.Random(seed))
        assert pushed is not None and pushed.kind is ActionKind.RAISE
        assert pushed.to == anted.options.all_in_to
        assert "raise chart" in pushed.rationale and "ante" in pushed.rationale
    first_in = _heads_up(["7c2d", "AsAh"], 20, posts).view()
    assert "ante" in decide(first_in, Level.NORMAL, 1).rationale  # Normal reads the same


def _cards(name: str) -> str:
    """Two cards of a class name (``AKs``, ``K2o``, ``88``)."""
    if len(name) == 2:
        return f"{name[0]}c{name[1]}d"
    return f"{name[0]}h{name[1]}h" if name[2] == "s" else f"{name[0]}c{name[1]}d"


def test_a_push_into_the_raise_chart_is_called_with_the_push_or_fold_charts_row() -> None:
    """The raise game's own calling row answers its equilibrium's rare pushes (under 1 % of
    hands): against a push/fold player it called far too wide. Facing a push the big blind now
    calls with the push-or-fold charts' row: a class that row folds is folded, whatever the
    raise game's row says."""
    bba = Antes.BIG_BLIND_ANTE
    _, calls = heads_up_chart(20.0, bba)
    loose = [
        name for name, k in INDEX.items() if raise_chart(20.0, bba)[4, k] > 0.95 > 0.05 > calls[k]
    ]
    assert loose, "the two calling rows agree everywhere: nothing to check"
    for name in loose[:5]:
        hole = _cards(name)
        villain = "Ks9s" if hole[0] not in "K9" and hole[2] not in "K9" else "QsTs"
        pushed = _heads_up([hole, villain], 20, (BB, 0)).raise_to(20 * BB).view()
        for seed in range(3):
            answer = raise_fold_or_call_off(pushed, random.Random(seed))
            assert answer is not None and answer.kind is ActionKind.FOLD, name
            assert "push/fold chart" in answer.rationale
