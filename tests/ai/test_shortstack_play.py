"""Short stacks heads-up are played from the push-or-fold charts: the small blind pushes or
folds, the big blind calls a push (or pushes over a raise) with the calling range, and every
other spot is left to the level's own play."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from libs.ai import Level, decide
from libs.ai.shortstack.charts import Antes, heads_up_chart
from libs.ai.shortstack.hands import INDEX
from libs.ai.shortstack.play import antes_of, push_or_fold
from libs.poker import ActionKind, BettingStructure, DealHands, Variant, parse_cards, start_hand
from libs.poker.evolve import replay
from tests.ai.spots import BB, Hand
from tests.ai.spots import config as config_of

NLHE = (Variant.HOLDEM, BettingStructure.NO_LIMIT)


def _hand(
    sb_hole: str, bb_hole: str, stack_bb: float, structure: BettingStructure = NLHE[1]
) -> Hand:
    # heads-up position 1 is the button (small blind), position 0 the big blind
    stack = int(stack_bb * BB)
    return Hand(Variant.HOLDEM, structure, [bb_hole, sb_hole], [stack, stack])


def _share(name: str, stack_bb: float, side: int) -> float:
    return float(heads_up_chart(stack_bb)[side][INDEX[name]])


@pytest.mark.parametrize(("hole", "name"), [("AsKd", "AKo"), ("7c2d", "72o"), ("8s4s", "84s")])
def test_the_small_blind_pushes_as_often_as_the_chart_says(hole: str, name: str) -> None:
    view = _hand(hole, "QhQc", 10).view()
    rng = random.Random(1)
    pushes = 0
    for _ in range(400):
        decision = push_or_fold(view, rng)
        assert decision is not None
        if decision.kind is ActionKind.RAISE:
            assert decision.to == view.options.all_in_to
            pushes += 1
        else:
            assert decision.kind is ActionKind.FOLD
    assert pushes / 400 == pytest.approx(_share(name, 10, 0), abs=0.08)


def test_the_big_blind_calls_a_push_with_the_calling_range_only() -> None:
    strong = _hand("7c2d", "AsJd", 10)
    strong.raise_to(strong.view().options.all_in_to)
    weak = _hand("7c2d", "9s3d", 10)
    weak.raise_to(weak.view().options.all_in_to)
    assert _share("AJo", 10, 1) == 1.0 and _share("93o", 10, 1) == 0.0
    assert push_or_fold(strong.view(), random.Random(2)).kind is ActionKind.CALL  # type: ignore[union-attr]
    assert push_or_fold(weak.view(), random.Random(2)).kind is ActionKind.FOLD  # type: ignore[union-attr]


def test_over_a_raise_that_leaves_chips_the_big_blind_pushes_or_folds() -> None:
    hand = _hand("7c2d", "AsJd", 10)
    hand.raise_to(2 * BB)
    decision = push_or_fold(hand.view(), random.Random(3))
    assert decision is not None and decision.kind is ActionKind.RAISE
    assert decision.to == hand.view().options.all_in_to


@pytest.mark.parametrize(
    "spot",
    ["deep", "pot_limit", "limped", "seven_handed", "flop"],
)
def test_other_spots_are_left_to_the_level(spot: str) -> None:
    if spot == "deep":
        view = _hand("AsKd", "QhQc", 40).view()
    elif spot == "pot_limit":
        view = _hand("AsKd", "QhQc", 10, BettingStructure.POT_LIMIT).view()
    elif spot == "limped":
        view = _hand("AsKd", "QhQc", 10).call().view()  # the big blind after a limp
    elif spot == "seven_handed":  # under the gun has six behind: more than the charts know
        holes = ["AsKd", "QhQc", "7c2d", "8c8d", "9h9s", "JcTc", "5s4s"]
        view = Hand(*NLHE, holes, [10 * BB] * 7).view()
    else:
        view = _hand("AsKd", "QhQc", 10).call().check().board("2c7h9d").view()
    assert push_or_fold(view, random.Random(4)) is None


def test_hard_plays_the_chart_and_the_baseline_plays_it_at_any_depth() -> None:
    view = _hand("AsKd", "QhQc", 8).view()
    assert decide(view, Level.HARD, seed=5).kind is ActionKind.RAISE  # AKo pushes at 8 bb
    junk = _hand("7c2d", "QhQc", 8).view()
    assert decide(junk, Level.HARD, seed=5).kind is ActionKind.FOLD
    deep = _hand("7c2d", "QhQc", 60).view()
    assert decide(deep, Level.PUSHFOLD, seed=5).kind is ActionKind.FOLD  # the 30 bb chart
    limped = _hand("7c2d", "QhQc", 10).call().view()
    assert decide(limped, Level.PUSHFOLD, seed=5).kind is ActionKind.CHECK


def _with_antes(antes: tuple[int, int]) -> Hand:
    hand = Hand(*NLHE, ["QhQc", "AsKd"], [10 * BB, 10 * BB])
    config = replace(config_of(*NLHE, 2), antes=antes, dead_antes=antes[1] == 0)
    opening = start_hand(config, [10 * BB, 10 * BB])
    hand.events = list(opening)
    hand.state = replay(opening)
    return hand.apply(DealHands((parse_cards("QhQc"), parse_cards("AsKd"))))


def test_antes_are_read_from_the_forced_bets() -> None:
    assert antes_of(_hand("AsKd", "QhQc", 10).view()) is Antes.NONE
    assert antes_of(_with_antes((BB // 10, BB // 10)).view()) is Antes.TENTH
    assert antes_of(_with_antes((BB, 0)).view()) is Antes.BIG_BLIND_ANTE  # the big blind posts it
