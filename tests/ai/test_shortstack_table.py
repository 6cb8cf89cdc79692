"""Six-handed push-or-fold: the one-caller multiway game reduces to the heads-up game with one
player behind, its kept charts are near equilibrium and tighten with every player behind, the
small blind's row matches the published heads-up share, and bots play them at a short table."""

from __future__ import annotations

import random
from itertools import pairwise

import numpy as np
import pytest

from libs.ai import Level, decide
from libs.ai.shortstack.charts import Antes, heads_up_chart, table_chart, table_game
from libs.ai.shortstack.equities import heads_up_equities
from libs.ai.shortstack.hands import INDEX, combo_counts, pair_weights
from libs.ai.shortstack.multiway import MultiwayGame
from libs.ai.shortstack.play import push_or_fold
from libs.ai.shortstack.solver import ShoveGame, solve
from libs.poker import ActionKind, BettingStructure, Variant
from tests.ai.spots import BB, Hand

NLHE = (Variant.HOLDEM, BettingStructure.NO_LIMIT)


def _share(probabilities: np.ndarray) -> float:
    return float(combo_counts() @ probabilities / 1326)


def test_with_one_player_behind_it_is_the_heads_up_game() -> None:
    w, e = pair_weights(), heads_up_equities()
    table = MultiwayGame(w, e, 10.0, behind=1, players=6).solve(600)
    heads_up = solve(ShoveGame(w, e, 10.0), 600)
    assert table.push == pytest.approx(heads_up.push, abs=1e-9)
    assert table.calls[0] == pytest.approx(heads_up.call, abs=1e-9)


def test_the_small_blinds_row_is_the_published_heads_up_share() -> None:
    """HoldemResources' heads-up Nash chart: at 10 big blinds the small blind pushes 58.4 % of
    hands and the big blind calls 37.3 %; with no antes the small blind first in at a six-handed
    table plays the same game."""
    push, calls = table_chart(10.0, behind=1)
    assert _share(push) == pytest.approx(0.584, abs=0.005)
    assert _share(calls[0]) == pytest.approx(0.373, abs=0.005)
    hu_push, _ = heads_up_chart(10.0)
    assert _share(push) == pytest.approx(_share(hu_push), abs=0.003)


@pytest.mark.parametrize("stack", [5.0, 10.0, 15.0, 20.0])
def test_every_player_behind_tightens_the_push(stack: float) -> None:
    shares = [_share(table_chart(stack, behind)[0]) for behind in range(1, 6)]
    assert all(a > b for a, b in pairwise(shares)), shares
    assert all(_share(table_chart(stack - 2, b)[0]) > shares[b - 1] for b in range(1, 6))


def test_the_big_blind_defends_widest_and_everyone_calls_aces() -> None:
    push, calls = table_chart(10.0, behind=5)
    assert _share(calls[-1]) >= max(_share(c) for c in calls[:-1])  # it has a blind in
    assert all(c[INDEX["AA"]] == 1.0 and c[INDEX["72o"]] == 0.0 for c in calls)
    assert push[INDEX["AA"]] == 1.0 and push[INDEX["72o"]] == 0.0


@pytest.mark.parametrize(
    ("antes", "stack", "behind"),
    [(Antes.NONE, 8.0, 5), (Antes.TENTH, 12.0, 3), (Antes.BIG_BLIND_ANTE, 15.0, 2)],
)
def test_the_kept_charts_are_near_equilibrium(antes: Antes, stack: float, behind: int) -> None:
    """A best response against the stored profile gains little (big blinds per first-in
    hand); pushing and calling everything gains a lot more."""
    game = table_game(antes, stack, behind)
    push, calls = table_chart(stack, behind, antes)
    assert game.exploitability(push, calls) < 0.03
    everything = np.ones_like(push)
    assert game.exploitability(everything, np.ones_like(calls)) > 0.5


def test_antes_widen_the_push() -> None:
    plain = _share(table_chart(10.0, 3)[0])
    assert _share(table_chart(10.0, 3, Antes.TENTH)[0]) > plain


@pytest.mark.parametrize(
    "bad", [{"behind": 0}, {"behind": 6}, {"stack": 0.0}, {"stack": float("nan")}]
)
def test_bad_spots_are_refused(bad: dict[str, float]) -> None:
    args: dict[str, float] = {"stack": 10.0, "behind": 3} | bad
    with pytest.raises(ValueError, match=r"behind|stack"):
        table_chart(args["stack"], int(args["behind"]))
    with pytest.raises(ValueError, match=r"behind|stack"):
        MultiwayGame(pair_weights(), heads_up_equities(), args["stack"], int(args["behind"]))


# ---- at the table: positions 0 and 1 are the blinds, 2 is under the gun, 5 the button


def _table(utg: str, bb: str, stack_bb: float) -> Hand:
    holes = ["3c2c", bb, utg, "5h4c", "6d3h", "8c2s"]
    return Hand(*NLHE, holes, [int(stack_bb * BB)] * 6)


def test_under_the_gun_pushes_aces_and_folds_junk_first_in() -> None:
    aces = push_or_fold(_table("AsAd", "KhQh", 10).view(), random.Random(1))
    assert aces is not None and aces.kind is ActionKind.RAISE and aces.to == 10 * BB
    junk = push_or_fold(_table("7c2h", "KhQh", 10).view(), random.Random(1))
    assert junk is not None and junk.kind is ActionKind.FOLD


def test_a_caller_answers_the_push_from_its_row() -> None:
    strong = _table("9s8s", "AhKh", 10).raise_to(10 * BB).fold().fold().fold().fold()
    view = strong.view()
    assert view.me == 1
    decision = push_or_fold(view, random.Random(2))
    assert decision is not None and decision.kind is ActionKind.CALL
    weak = _table("9s8s", "7h2h", 10).raise_to(10 * BB).fold().fold().fold().fold()
    decision = push_or_fold(weak.view(), random.Random(2))
    assert decision is not None and decision.kind is ActionKind.FOLD


def test_a_raise_that_leaves_chips_is_pushed_over_by_a_caller() -> None:
    hand = _table("9s8s", "AhKh", 10).raise_to(2 * BB).fold().fold().fold().fold()
    decision = push_or_fold(hand.view(), random.Random(3))
    assert decision is not None and decision.kind is ActionKind.RAISE
    assert decision.to == 10 * BB


def test_limps_deep_stacks_and_later_streets_are_left_to_the_level() -> None:
    assert push_or_fold(_table("AsAd", "KhQh", 40).view(), random.Random(4)) is None
    limped = _table("AsAd", "KhQh", 10).call()
    assert push_or_fold(limped.view(), random.Random(4)) is None
    reraised = _table("AsAd", "KhQh", 10).raise_to(2 * BB).raise_to(5 * BB)
    assert push_or_fold(reraised.view(), random.Random(4)) is None


def test_hard_and_the_baseline_play_the_table_charts() -> None:
    assert decide(_table("AsAd", "KhQh", 8).view(), Level.HARD, seed=5).kind is ActionKind.RAISE
    assert decide(_table("7c2h", "KhQh", 8).view(), Level.HARD, seed=5).kind is ActionKind.FOLD
    deep = _table("7c2h", "KhQh", 60).view()
    assert decide(deep, Level.PUSHFOLD, seed=5).kind is ActionKind.FOLD  # the 20 bb chart
