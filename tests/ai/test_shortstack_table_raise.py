"""Six-handed raise, fold or call off, solved (``libs/ai/shortstack/tableraise.py``) and played
(``tableraiseplay.py``): with one player behind it is the heads-up raise game exactly, with the
raise at the whole stack the six-handed push-or-fold game; the raise gains the first player
something and the solution is near an equilibrium; the kept charts are the solver's for every
ante structure, and antes widen them; Hard and Normal play them at a short table of three to six,
with or without antes."""

from __future__ import annotations

import random

import numpy as np
import pytest

from libs.ai import Level, decide
from libs.ai.shortstack.charts import Antes, table_game
from libs.ai.shortstack.equities import heads_up_equities
from libs.ai.shortstack.hands import INDEX, combo_counts, pair_weights
from libs.ai.shortstack.multiway import MultiwayGame
from libs.ai.shortstack.raising import FOLD, RAISE_CALL, RAISE_FOLD, RaiseGame, solve_raise
from libs.ai.shortstack.solver import ShoveGame
from libs.ai.shortstack.tableraise import (
    TABLE_RAISE_GENERATED_WITH,
    TABLE_RAISE_STACKS,
    TableRaiseGame,
    table_raise_chart,
    table_raise_game,
)
from libs.ai.shortstack.tableraiseplay import table_raise_or_fold
from libs.poker import ActionKind, BettingStructure, Variant
from tests.ai.spots import BB, Hand

NLHE = (Variant.HOLDEM, BettingStructure.NO_LIMIT)
SHARES = combo_counts() / 1326


def test_with_one_player_behind_it_is_the_heads_up_raise_game() -> None:
    w, e = pair_weights(), heads_up_equities()
    table = TableRaiseGame(MultiwayGame(w, e, 18.0, behind=1, players=6)).solve(400)
    heads_up = solve_raise(RaiseGame(ShoveGame(w, e, 18.0)), 400)
    assert table.first == pytest.approx(heads_up.sb, abs=1e-9)
    assert table.reraises[0] == pytest.approx(heads_up.reraise, abs=1e-9)
    assert table.calls[0] == pytest.approx(heads_up.call, abs=1e-9)
    assert table.value == pytest.approx(heads_up.value, abs=1e-9)


def test_a_raise_to_the_whole_stack_is_the_push_or_fold_game() -> None:
    pushed = table_game(Antes.NONE, 10.0, 3)
    raised = TableRaiseGame(pushed, raise_to=10.0).solve(1_000)
    plain = pushed.solve(1_000)
    value = TableRaiseGame(pushed, raise_to=10.0).value
    pf = np.stack([1 - plain.push, plain.push, 0 * plain.push, 0 * plain.push], axis=1)
    assert raised.value == pytest.approx(value(pf, plain.calls, plain.calls), abs=0.005)
    assert raised.exploitability < 0.01


def test_the_raise_gains_the_first_player_and_the_solution_is_near_an_equilibrium() -> None:
    game = table_raise_game(15.0, 3)
    raised = game.solve(1_500)
    plain = game.push.solve(1_000)
    pf = np.stack([1 - plain.push, plain.push, 0 * plain.push, 0 * plain.push], axis=1)
    folded = np.zeros_like(plain.calls)  # nobody ever sees a raise in push-or-fold
    assert raised.value > game.value(pf, plain.calls, folded) + 0.03  # big blinds a hand
    assert raised.exploitability < 0.01
    assert np.allclose(raised.first.sum(axis=1), 1.0)
    worse = raised.first.copy()
    worse[:, RAISE_FOLD] += worse[:, FOLD]  # never fold: raise-fold instead
    worse[:, FOLD] = 0.0
    assert game.exploitability(worse, raised.calls, raised.reraises) > 0.05


@pytest.mark.parametrize("antes", list(Antes))
def test_the_kept_charts_are_the_solvers_and_strategies(antes: Antes) -> None:
    iterations = TABLE_RAISE_GENERATED_WITH["iterations"]
    solved = table_raise_game(10.0, 2, antes).solve(iterations)
    assert solved.exploitability < 0.01
    kept = table_raise_chart(10.0, 2, antes)
    tolerance = 0.5 / 255 + 1e-9
    assert np.abs(kept.first - solved.first.T).max() <= tolerance
    assert np.abs(kept.reraises - solved.reraises).max() <= tolerance
    assert np.abs(kept.calls - solved.calls).max() <= tolerance
    for stack in TABLE_RAISE_STACKS:
        for behind in range(1, 6):
            chart = table_raise_chart(stack, behind, antes)
            assert np.allclose(chart.first.sum(axis=0), 1.0, atol=4 / 255)
            assert chart.calls.shape == chart.reraises.shape == (behind, 169)


def test_more_players_behind_fold_more_first_in() -> None:
    folds = [float(SHARES @ table_raise_chart(12.0, b).first[FOLD]) for b in range(1, 6)]
    assert folds == sorted(folds) and folds[-1] > folds[0] + 0.3


def test_antes_widen_the_ranges_at_every_depth() -> None:
    """More dead money: the first player in folds less, and the big blind re-pushes over the
    raise more, at every kept depth and number behind."""
    for stack in TABLE_RAISE_STACKS:
        for behind in range(1, 6):
            plain = table_raise_chart(stack, behind)
            for antes in (Antes.TENTH, Antes.BIG_BLIND_ANTE):
                anted = table_raise_chart(stack, behind, antes)
                assert SHARES @ anted.first[FOLD] < SHARES @ plain.first[FOLD]
                assert SHARES @ anted.reraises[-1] > SHARES @ plain.reraises[-1]


@pytest.mark.parametrize("bad", [{"behind": 0}, {"behind": 6}, {"stack": 0.0}, {"stack": -1.0}])
def test_bad_spots_are_refused(bad: dict[str, float]) -> None:
    args: dict[str, float] = {"stack": 10.0, "behind": 3} | bad
    with pytest.raises(ValueError, match=r"behind|stack"):
        table_raise_chart(args["stack"], int(args["behind"]))
    with pytest.raises(ValueError, match="raise to"):
        TableRaiseGame(table_game(Antes.NONE, 10.0, 3), raise_to=11.0)


# ---- at the table: positions 0 and 1 are the blinds, 2 is under the gun, 5 the button


def _table(utg: str, bb: str, stack_bb: float, antes: tuple[int, ...] = ()) -> Hand:
    holes = ["3c2c", bb, utg, "5h4c", "6d3h", "8c2s"]
    return Hand(*NLHE, holes, [int(stack_bb * BB)] * 6, antes)


def test_first_in_it_folds_pushes_or_raises_to_two_big_blinds() -> None:
    aces = table_raise_or_fold(_table("AsAd", "KhQh", 15).view(), random.Random(1), 15.0)
    assert aces is not None and aces.kind is ActionKind.RAISE
    assert aces.to in (2 * BB, 15 * BB)
    junk = table_raise_or_fold(_table("7c2h", "KhQh", 15).view(), random.Random(1), 15.0)
    assert junk is not None and junk.kind is ActionKind.FOLD
    chart = table_raise_chart(15.0, 5).first[:, INDEX["AA"]]
    raised = 0
    for seed in range(400):
        view = _table("AsAd", "KhQh", 15).view()
        decision = table_raise_or_fold(view, random.Random(seed), 15.0)
        assert decision is not None and decision.kind is ActionKind.RAISE
        raised += decision.to == 2 * BB
    assert raised / 400 == pytest.approx(chart[RAISE_FOLD] + chart[RAISE_CALL], abs=0.06)


def test_behind_a_small_raise_it_re_pushes_or_folds() -> None:
    raised = _table("9s8s", "AhKh", 12).raise_to(2 * BB).fold().fold().fold().fold()
    decision = table_raise_or_fold(raised.view(), random.Random(2), 15.0)
    assert raised.view().me == 1
    assert decision is not None and decision.kind is ActionKind.RAISE and decision.to == 12 * BB
    weak = _table("9s8s", "7h2h", 12).raise_to(2 * BB).fold().fold().fold().fold()
    decision = table_raise_or_fold(weak.view(), random.Random(2), 15.0)
    assert decision is not None and decision.kind is ActionKind.FOLD
    pushed = _table("9s8s", "AhKh", 12).raise_to(12 * BB).fold().fold().fold().fold()
    decision = table_raise_or_fold(pushed.view(), random.Random(2), 15.0)
    assert decision is not None and decision.kind is ActionKind.CALL


def test_the_raiser_calls_off_or_folds_by_its_row() -> None:
    chart = table_raise_chart(12.0, 5).first
    aces, wheel = INDEX["AA"], INDEX["A5s"]
    assert chart[RAISE_CALL][aces] > 0.9 and chart[RAISE_FOLD][aces] == 0.0
    assert chart[RAISE_FOLD][wheel] > 0.4 and chart[RAISE_CALL][wheel] < 0.01
    for hole, kind in (("AsAd", ActionKind.CALL), ("As5s", ActionKind.FOLD)):
        hand = _table(hole, "QhQc", 12).raise_to(2 * BB).fold().fold().fold().fold()
        hand.raise_to(12 * BB)
        assert hand.view().me == 2
        decision = table_raise_or_fold(hand.view(), random.Random(3), 15.0)
        assert decision is not None and decision.kind is kind


def test_what_the_charts_do_not_know_is_left_to_the_level() -> None:
    assert table_raise_or_fold(_table("AsAd", "KhQh", 40).view(), random.Random(4), 15.0) is None
    assert table_raise_or_fold(_table("AsAd", "KhQh", 5).view(), random.Random(4), 15.0) is None
    limped = _table("AsAd", "KhQh", 10).call()
    assert table_raise_or_fold(limped.view(), random.Random(4), 15.0) is None
    big = _table("9s8s", "AhKh", 12).raise_to(4 * BB).fold().fold().fold().fold()
    assert table_raise_or_fold(big.view(), random.Random(4), 15.0) is None
    heads_up = Hand(*NLHE, ["AsAd", "KhQh"], [10 * BB, 10 * BB])
    assert table_raise_or_fold(heads_up.view(), random.Random(4), 15.0) is None


def test_hard_and_normal_play_them() -> None:
    junk, aces = _table("7c2h", "KhQh", 12).view(), _table("AsAd", "KhQh", 12).view()
    for level in (Level.HARD, Level.NORMAL):
        assert decide(junk, level, seed=5).kind is ActionKind.FOLD
        assert decide(aces, level, seed=5).kind is ActionKind.RAISE
    hard = decide(aces, Level.HARD, seed=5)
    assert "table raise chart" in hard.rationale


@pytest.mark.parametrize(
    ("antes", "posts"),
    [(Antes.TENTH, (BB // 10,) * 6), (Antes.BIG_BLIND_ANTE, (0, BB, 0, 0, 0, 0))],
)
def test_with_antes_the_ante_chart_is_played(antes: Antes, posts: tuple[int, ...]) -> None:
    kj = INDEX["KJo"]  # under the gun at 10 bb: folded without antes, played with them
    assert table_raise_chart(10.0, 5).first[FOLD, kj] > 0.95
    assert table_raise_chart(10.0, 5, antes).first[FOLD, kj] < 0.05
    for seed in range(5):
        plain = table_raise_or_fold(_table("KsJd", "KhQh", 10).view(), random.Random(seed), 15.0)
        assert plain is not None and plain.kind is ActionKind.FOLD
        anted = _table("KsJd", "KhQh", 10, posts).view()
        decision = table_raise_or_fold(anted, random.Random(seed), 15.0)
        assert decision is not None and decision.kind is ActionKind.RAISE
        assert "table raise chart" in decision.rationale and "ante" in decision.rationale
        assert "ante" in decide(anted, Level.HARD, seed).rationale  # Hard reads the same chart
