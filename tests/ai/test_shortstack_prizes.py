"""In a tournament Hard pushes and calls by prize equity: heads-up for the title the price of a
call is the chip price, on the bubble it is higher and Hard folds hands the chips would call
with; the prizes travel through the ai request and bad ones are refused."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from libs.ai import Level, decide
from libs.ai.icm import PrizeModel
from libs.ai.shortstack.hands import CLASSES, combos
from libs.ai.shortstack.play import find_spot, push_or_fold
from libs.ai.shortstack.prizes import call_value, prize_call, prize_model, prize_push_or_fold
from libs.ai.view import Prizes, SeatView
from libs.aiproto.errors import InvalidRequest
from libs.aiproto.reading import read_request
from libs.aiproto.requests import decide_request
from libs.poker import ActionKind, BettingStructure, Variant
from libs.poker.cards import Card
from tests.ai.spots import BB, Hand

NLHE = (Variant.HOLDEM, BettingStructure.NO_LIMIT)


USED = {"5h", "4c", "7d", "2c", "9h", "3s", "Jc", "2s", "6d", "3h"}  # the other seats' cards


def _cards(name: str) -> str:
    """A combination of the class that none of the other seats' cards in the spot block."""
    for a, b in combos(name):
        if not {str(Card(a)), str(Card(b))} & USED:
            return str(Card(a)) + str(Card(b))
    raise AssertionError(name)


def _facing_push(me: str, players: int, stack_bb: float) -> Hand:
    """The big blind (position 1; heads-up position 0) facing an all-in from the first in."""
    if players == 2:
        hand = Hand(*NLHE, [me, "7d2c"], [int(stack_bb * BB)] * 2)
        return hand.raise_to(int(stack_bb * BB))
    holes = ["5h4c", me, "7d2c", "9h3s", "Jc2s", "6d3h"][:players]
    hand = Hand(*NLHE, holes, [int(stack_bb * BB)] * players)
    hand.raise_to(int(stack_bb * BB))
    for _ in range(players - 2):
        hand.fold()
    return hand


def _with(view: SeatView, payouts: tuple[int, ...], others: tuple[int, ...] = ()) -> SeatView:
    return replace(view, prizes=Prizes(payouts, others))


def _model(view: SeatView) -> PrizeModel:
    model = prize_model(view)
    assert model is not None
    return model


def test_heads_up_for_the_title_the_price_is_the_chip_price() -> None:
    view = _with(_facing_push("As9d", 2, 10).view(), (70, 30))
    spot = find_spot(view)
    assert spot is not None
    _, needed, chip_price = call_value(view, spot, _model(view))
    assert needed == pytest.approx(chip_price, abs=1e-9)


def test_on_the_bubble_calls_need_more_and_hard_folds_what_chips_would_call() -> None:
    """Four left, three paid, 10 big blinds each, under the gun pushes: hands whose equity
    beats the chip price but not the prize price are folded with prizes and called without."""
    squeezed = []
    for name in CLASSES:
        view = _facing_push(_cards(name), 4, 10).view()
        prized = _with(view, (50, 30, 20))
        spot = find_spot(prized)
        assert spot is not None and not spot.first_in
        equity, needed, chip_price = call_value(prized, spot, _model(prized))
        assert needed > chip_price + 0.05
        if chip_price < equity < needed:
            squeezed.append((name, view, prized))
    assert len(squeezed) >= 5
    for _, view, prized in squeezed:
        assert decide(prized, Level.HARD, seed=1).kind is ActionKind.FOLD
        assert prize_push_or_fold(prized) is not None
        chip = push_or_fold(view, random.Random(1))
        assert chip is not None  # the chart: itself a mixture of ranges near the price


def test_a_big_stack_at_another_table_changes_nothing_for_a_winner_take_all() -> None:
    view = _facing_push("AsKd", 4, 10).view()
    alone = _with(view, (100,))
    spot = find_spot(alone)
    assert spot is not None
    _, needed, chip_price = call_value(alone, spot, _model(alone))
    assert needed == pytest.approx(chip_price, abs=1e-9)  # winner takes all: prizes = chips
    wider = _with(view, (100,), (50 * BB, 20 * BB))
    _, needed_wider, _ = call_value(wider, spot, _model(wider))
    assert needed_wider == pytest.approx(chip_price, abs=1e-9)


def test_first_in_on_the_bubble_pushes_aces_and_folds_junk() -> None:
    aces = Hand(*NLHE, ["5h4c", "Jc2s", "AsAd", "9h3s"], [10 * BB] * 4).view()
    junk = Hand(*NLHE, ["5h4c", "Jc2s", "7d2c", "9h3s"], [10 * BB] * 4).view()
    assert prize_push_or_fold(_with(aces, (50, 30, 20))).kind is ActionKind.RAISE  # type: ignore[union-attr]
    assert prize_push_or_fold(_with(junk, (50, 30, 20))).kind is ActionKind.FOLD  # type: ignore[union-attr]


def test_cash_games_and_deep_non_all_in_spots_are_left_alone() -> None:
    view = _facing_push("AsKd", 4, 10).view()
    assert prize_push_or_fold(view) is None  # no prizes: a cash game
    deep = Hand(*NLHE, ["5h4c", "Jc2s", "AsAd", "9h3s"], [100 * BB] * 4).raise_to(3 * BB)
    assert prize_call(_with(deep.fold().view(), (50, 30, 20)), 0.5, "") is None


def test_the_prizes_travel_through_the_request() -> None:
    view = _with(_facing_push("AsKd", 4, 10).view(), (50, 30, 20), (1500, 700))
    assert read_request(decide_request(view, Level.HARD, 1, 100)).view == view


@pytest.mark.parametrize(
    ("payouts", "others", "message"),
    [((20, 30), (), "never rising"), ((50, -1), (), "none negative"), ((50,), (0,), "above 0")],
)
def test_bad_prizes_are_refused(
    payouts: tuple[int, ...], others: tuple[int, ...], message: str
) -> None:
    request = decide_request(_facing_push("AsKd", 4, 10).view(), Level.HARD, 1, 100)
    request.prizes.payouts.extend(payouts)
    request.prizes.other_stacks.extend(others)
    with pytest.raises(InvalidRequest, match=message):
        read_request(request)
    with pytest.raises(ValueError, match=message):
        Prizes(payouts, others)


def test_an_all_in_call_after_the_flop_is_priced_by_the_prizes() -> None:
    """On the river against an all-in on the bubble, 55 % equity is not enough; winner takes
    all, it is (the chip price of a pot-size all-in is a third)."""
    hand = Hand(*NLHE, ["5h4c", "AsKd", "7d2c", "9h3s"], [20 * BB] * 4)
    hand.fold().fold().call().check().board("Kc8d3d").check().check()
    hand.board("2h").check().check().board("Qs").check().raise_to(hand.view().options.all_in_to)
    view = hand.view()
    bubble = prize_call(_with(view, (50, 30, 20)), 0.55, "")
    assert bubble is not None and bubble.kind is ActionKind.FOLD
    alone = prize_call(_with(view, (100,)), 0.55, "")
    assert alone is not None and alone.kind is ActionKind.CALL


def test_at_a_big_fields_bubble_hard_folds_what_chips_would_call() -> None:
    """13 left, 12 paid, one of them down to 1.5 big blinds at another table: at 10 big blinds in
    the big blind against a 40 big blind push, pairs and big aces that beat the chip price by a
    margin (+chip EV) are folded by the prizes (-$EV), and called when the prizes are not shown.
    With more than 10 left Hard used to play chips here. The 13-player field is priced by
    sampling; the exact programme gives the same price within 0.01."""
    payouts = (250, 160, 120, 90, 70, 60, 50, 45, 40, 40, 35, 35)
    others = (*[15 * BB] * 6, 15 * BB // 10)
    changed = []
    for name in CLASSES:
        holes = ["5h4c", _cards(name), "7d2c", "9h3s", "Jc2s", "6d3h"]
        hand = Hand(*NLHE, holes, [15 * BB, 10 * BB, 40 * BB, 15 * BB, 15 * BB, 15 * BB])
        hand.raise_to(hand.view().options.all_in_to)
        for _ in range(4):
            hand.fold()
        view = hand.view()
        prized = _with(view, payouts, others)
        spot = find_spot(prized)
        assert spot is not None and spot.pusher == 2
        model = _model(prized)
        assert not model.exact(view.players)
        equity, needed, chip_price = call_value(prized, spot, model)
        exact = PrizeModel(payouts, others, exact_states=10**4)
        assert call_value(prized, spot, exact)[1] == pytest.approx(needed, abs=0.01)
        if chip_price + 0.03 < equity < needed - 0.03:
            assert decide(prized, Level.HARD, seed=1).kind is ActionKind.FOLD
            assert decide(view, Level.HARD, seed=1).kind is ActionKind.CALL
            changed.append(name)
    assert {"TT", "AQs", "AKo", "AQo"} <= set(changed)
