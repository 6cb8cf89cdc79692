"""Each level on spots with one clear answer, and the guarantees every answer has."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from libs.ai import Decision, Level, SeatView, decide, is_legal, legal
from libs.ai.hard import HardSettings, hard
from libs.poker import ActionKind, BettingStructure, Variant
from tests.ai.spots import BB, Hand

LEVELS = (Level.EASY, Level.NORMAL, Level.HARD)
ALL = tuple(Level)
GENEROUS = 30.0  # seconds: the sample cap binds, never the clock, so a seed repeats exactly
NUTS = {
    Variant.HOLDEM: ("AsKs", "7c7d", "QsJsTs2c3d"),
    Variant.OMAHA: ("AsKs2d3c", "7c7d8h8s", "QsJsTs4h9d"),
    Variant.OMAHA_HI_LO: ("AsKs2d3c", "7c7d8h8s", "QsJsTs4h9d"),
}
SPOTS = [(v, s) for v in Variant for s in BettingStructure]


def ask(view: SeatView, level: Level, seed: int = 7) -> Decision:
    decision = decide(view, level, seed, GENEROUS)
    assert is_legal(view.options, decision), decision
    return decision


def river(variant: Variant, structure: BettingStructure) -> Hand:
    """Heads-up, checked to the river; the big blind (position 0) holds the nuts."""
    nuts, other, board = NUTS[variant]
    hand = Hand(variant, structure, [nuts, other])
    hand.call().check().board(board[:6]).check().check().board(board[6:8])
    return hand.check().check().board(board[8:])


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(("variant", "structure"), SPOTS)
def test_the_nuts_on_the_river_bets(
    level: Level, variant: Variant, structure: BettingStructure
) -> None:
    view = river(variant, structure).view()
    assert view.me == 0 and view.options.can_check
    assert ask(view, level).kind is ActionKind.BET


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(("variant", "structure"), SPOTS)
def test_the_nuts_on_the_river_raises_a_bet(
    level: Level, variant: Variant, structure: BettingStructure
) -> None:
    hand = river(variant, structure).check()
    hand.raise_to(hand.view().options.min_to)  # the button bets; the nuts face it
    view = hand.view()
    assert view.me == 0 and view.options.can_raise
    assert ask(view, level).kind is ActionKind.RAISE


@pytest.mark.parametrize("level", (Level.EASY, Level.NORMAL, Level.HARD))
@pytest.mark.parametrize("players", (2, 6))
def test_seven_deuce_offsuit_folds_to_a_big_raise(level: Level, players: int) -> None:
    holes = ["AsAh", "7c2d", "KdQc", "9h9c", "Tc8c", "5d4d"][:players]
    if players == 2:  # the button raises to 10 big blinds; 72o is in the big blind
        hand = Hand(Variant.HOLDEM, BettingStructure.NO_LIMIT, holes[::-1])
        hand.raise_to(10 * BB)
    else:  # first to act raises to 8 big blinds, everyone folds to 72o on the button
        hand = Hand(
            Variant.HOLDEM,
            BettingStructure.NO_LIMIT,
            ["KdQc", "9h9c", "AsAh", "Tc8c", "5d4d", "7c2d"],
        )
        hand.raise_to(8 * BB).fold().fold()
    view = hand.view()
    assert {str(c) for c in view.hole} == {"7c", "2d"}
    assert ask(view, level).kind is ActionKind.FOLD


def free_checks() -> Iterator[tuple[Variant, BettingStructure, Hand]]:
    """Weak hands with a free check: the big blind's option, and checked to on the flop."""
    weak = {Variant.HOLDEM: "7c2d", Variant.OMAHA: "7c2d3h9s", Variant.OMAHA_HI_LO: "9c9dTsJs"}
    strong = {Variant.HOLDEM: "AsAh", Variant.OMAHA: "AsAhKsKh", Variant.OMAHA_HI_LO: "As2sKhKd"}
    other = {Variant.HOLDEM: "QsQh", Variant.OMAHA: "QsQhJsJh", Variant.OMAHA_HI_LO: "Ac3cTh8d"}
    for variant, structure in SPOTS:
        option = Hand(variant, structure, [weak[variant], strong[variant], other[variant]])
        yield variant, structure, option.call().call()  # limped to the big blind
        flop = Hand(variant, structure, [strong[variant], weak[variant]])
        yield variant, structure, flop.call().check().board("AdKcJh")  # BB: a weak hand


@pytest.mark.parametrize("level", ALL)
def test_a_free_check_is_never_folded(level: Level) -> None:
    for variant, structure, hand in free_checks():
        view = hand.view()
        assert view.options.can_check, (variant, structure)
        for seed in range(1, 6):
            decision = ask(view, level, seed)
            assert decision.kind is not ActionKind.FOLD, (variant, structure, decision)


@pytest.mark.parametrize("level", ALL)
def test_a_seed_makes_a_decision_reproducible(level: Level) -> None:
    hand = Hand(
        Variant.OMAHA_HI_LO, BettingStructure.POT_LIMIT, ["As2sKhQd", "7c8d9hTs", "5c5dJsJh"]
    )
    hand.call().call().check().board("3h4dKc")
    hand.check().raise_to(150)  # position 1 bets into position 2
    view = hand.view()
    for seed in (1, 2, 99):
        assert ask(view, level, seed) == ask(view, level, seed)


def test_hard_respects_its_sample_cap() -> None:
    hand = Hand(Variant.HOLDEM, BettingStructure.NO_LIMIT, ["AsKs", "QdQh", "Tc9c"])
    hand.raise_to(300).call().call().board("Qs7s2c")
    view = hand.view()
    for cap in (1, 120, 700):
        decision = hard(view, 5, GENEROUS, settings=HardSettings(max_samples=cap))
        assert 0 < decision.samples <= cap
        assert is_legal(view.options, decision)


def test_hard_with_almost_no_time_answers_legally_with_fewer_samples() -> None:
    hand = Hand(Variant.OMAHA_HI_LO, BettingStructure.POT_LIMIT, ["As2sKhQd", "7c8d9hTs"])
    hand.call().check().board("3h4dKc").check()
    view = hand.view()
    ticks = iter(range(10**6))

    def clock() -> float:  # every reading is 5 ms later than the one before
        return next(ticks) * 0.005

    decision = hard(view, 3, budget=0.01, clock=clock)
    assert is_legal(view.options, decision)
    assert 0 < decision.samples <= 400  # one chunk, no narrowing, then the deadline stops it
    generous = hard(view, 3, GENEROUS)
    assert decision.samples < generous.samples


def test_the_calling_station_never_folds_or_raises() -> None:
    hand = Hand(Variant.HOLDEM, BettingStructure.NO_LIMIT, ["7c2d", "AsAh"])
    hand.raise_to(40 * BB)
    assert ask(hand.view(), Level.CALL).kind is ActionKind.CALL
    limped = Hand(Variant.HOLDEM, BettingStructure.NO_LIMIT, ["7c2d", "AsAh"]).call()
    assert ask(limped.view(), Level.CALL).kind is ActionKind.CHECK


def test_the_random_player_uses_every_legal_kind_within_bounds() -> None:
    view = Hand(Variant.HOLDEM, BettingStructure.NO_LIMIT, ["7c2d", "AsAh", "KsKd"]).view()
    seen = {ask(view, Level.RANDOM, seed).kind for seed in range(60)}
    assert seen == {ActionKind.FOLD, ActionKind.CALL, ActionKind.RAISE}


def test_legal_turns_any_wish_into_an_allowed_action() -> None:
    view = Hand(Variant.HOLDEM, BettingStructure.POT_LIMIT, ["7c2d", "AsAh", "KsKd"]).view()
    o = view.options
    assert legal(view, ActionKind.RAISE, 10**9).to == o.max_to
    assert legal(view, ActionKind.RAISE, 1).to == o.min_to
    assert legal(view, ActionKind.CHECK).kind is ActionKind.FOLD
    capped = Hand(Variant.HOLDEM, BettingStructure.FIXED_LIMIT, ["7c2d", "AsAh"])
    capped.raise_to(200).raise_to(300).raise_to(400)  # the cap: one bet and three raises
    assert not capped.view().options.can_raise
    assert legal(capped.view(), ActionKind.RAISE, 500).kind is ActionKind.CALL
    rng = random.Random(1)
    for _ in range(50):
        wish = rng.choice(list(ActionKind))
        assert is_legal(o, legal(view, wish, rng.randint(-5, 10**6)))


def test_hard_without_time_to_sample_answers_as_easy_does() -> None:
    hand = Hand(Variant.HOLDEM, BettingStructure.NO_LIMIT, ["AsKs", "QdQh"])
    view = hand.raise_to(300).call().board("Qs7s2c").view()
    quick = hard(view, 3, budget=0.001)
    assert quick.samples == 0 and is_legal(view.options, quick)
    assert quick.kind is decide(view, Level.EASY, 3).kind
