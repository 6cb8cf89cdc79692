"""The ai service's messages: a request carries one seat's view exactly, nobody else's cards,
and every inconsistent request is refused with a reason."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from holdem.ai.v1 import ai_pb2
from holdem.common.v1 import common_pb2 as pb

from libs.ai import Level, SeatView
from libs.ai.arena import LevelPlayer, MatchConfig, run_match
from libs.ai.decision import Decision
from libs.aiproto.errors import InvalidRequest
from libs.aiproto.reading import read_request
from libs.aiproto.requests import (
    TableContext,
    decide_request,
    decision_from_response,
    response_from_decision,
)
from libs.poker import ActionKind, BettingStructure, Variant
from tests.ai.spots import Hand


def request() -> ai_pb2.DecideRequest:
    hand = Hand(
        Variant.OMAHA_HI_LO, BettingStructure.POT_LIMIT, ["As2sKhQd", "7c8d9hTs", "5c5dJsJh"]
    )
    hand.call().call().check().board("3h4dKc").check()
    return decide_request(hand.view(), Level.NORMAL, 42, 100)


class Recorder:
    """Plays randomly; records the request the table would send for every decision."""

    name = "recorder"

    def __init__(self) -> None:
        self.checked = 0

    def act(self, view: SeatView, seed: int) -> Decision:
        req = decide_request(view, Level.HARD, seed, 100, TableContext.numbered(view.players))
        shown = {(c.rank, c.suit) for seat in req.view.seats for c in seat.hole_cards} | {
            (c.rank, c.suit) for c in req.view.board
        }
        mine = {(int(c) // 4 + 2, int(c) % 4 + 1) for c in view.hole}
        board = {(int(c) // 4 + 2, int(c) % 4 + 1) for c in view.board}
        assert shown == mine | board
        viewer = [s for s in req.view.seats if s.hole_cards]
        assert [s.seat for s in viewer] == [req.view.viewer_seat]
        assert read_request(req).view == view
        self.checked += 1
        return LevelPlayer(Level.RANDOM).act(view, seed)


@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("structure", list(BettingStructure))
def test_requests_carry_the_view_and_only_the_seats_own_cards(
    variant: Variant, structure: BettingStructure
) -> None:
    recorder = Recorder()
    run_match(recorder, recorder, 12, MatchConfig(variant, structure, seats=6, seed=5))
    assert recorder.checked > 30


def test_decisions_cross_the_wire_both_ways() -> None:
    view = read_request(request()).view
    for decision in (
        Decision(ActionKind.CHECK),
        Decision(ActionKind.BET, view.options.min_to, "why"),
    ):
        assert decision_from_response(response_from_decision(decision), view) == decision
    all_in = ai_pb2.DecideResponse(action=pb.ACTION_TYPE_ALL_IN)
    # Pot limit: all in is a bet of every chip, above the maximum (the caller finds it illegal).
    assert decision_from_response(all_in, view) == Decision(ActionKind.BET, view.options.all_in_to)
    short = Hand(Variant.HOLDEM, BettingStructure.NO_LIMIT, ["AsKs", "QdQh"], [300, 10_000])
    facing = short.raise_to(1_000).view()  # the big blind has less than the call left
    assert decision_from_response(all_in, facing) == Decision(ActionKind.CALL)
    assert decision_from_response(ai_pb2.DecideResponse(), view) is None


Breaker = Callable[[ai_pb2.DecideRequest], object]


def _set(field: str, value: object) -> Breaker:
    def apply(r: ai_pb2.DecideRequest) -> None:
        target: object = r
        *path, last = field.split(".")
        for name in path:
            target = getattr(target, name)
        setattr(target, last, value)

    return apply


def _viewer(r: ai_pb2.DecideRequest) -> pb.SeatView:
    return next(s for s in r.view.seats if s.seat == r.view.viewer_seat)


def _duplicate_board_card(r: ai_pb2.DecideRequest) -> None:
    r.view.board[1].CopyFrom(r.view.board[0])


def _hole_card_on_board(r: ai_pb2.DecideRequest) -> None:
    _viewer(r).hole_cards[0].CopyFrom(r.view.board[0])


def _three_hole_cards(r: ai_pb2.DecideRequest) -> None:
    del _viewer(r).hole_cards[3]


def _no_view(r: ai_pb2.DecideRequest) -> None:
    r.ClearField("view")


def _unknown_action(r: ai_pb2.DecideRequest) -> None:
    r.view.actions[0].kind = pb.PublicActionKind.ValueType(99)


def _bad_card(r: ai_pb2.DecideRequest) -> None:
    r.view.board[0].rank = pb.Rank.ValueType(1)


def _board_too_short(r: ai_pb2.DecideRequest) -> None:
    del r.view.board[2]


@pytest.mark.parametrize(
    ("breaker", "code", "words"),
    [
        (_set("difficulty", 0), "BAD_DIFFICULTY", "difficulty"),
        (_set("difficulty", 9), "BAD_DIFFICULTY", "difficulty"),
        (_no_view, "MISSING_FIELD", "view"),
        (_set("view.config.variant", 0), "BAD_VARIANT", "variant"),
        (_set("view.config.betting_structure", 7), "BAD_STRUCTURE", "betting_structure"),
        (_set("view.street", 5), "BAD_STREET", "street"),
        (_board_too_short, "BAD_BOARD", "board"),
        (_duplicate_board_card, "DUPLICATE_CARD", "twice"),
        (_hole_card_on_board, "DUPLICATE_CARD", "appears in"),
        (_three_hole_cards, "BAD_HOLE_CARDS", "4 hole cards"),
        (_bad_card, "BAD_CARDS", "not a card"),
        (_unknown_action, "BAD_ACTION", "unknown kind"),
        (_set("legal_actions.min_raise_to", 10**9), "AMOUNT_OUT_OF_RANGE", "raise bounds"),
        (_set("legal_actions.can_call", True), "BAD_LEGAL_ACTIONS", "can_check"),
        (_set("time_budget_ms", 60_000), "AMOUNT_OUT_OF_RANGE", "time_budget_ms"),
        (_set("view.viewer_seat", 7), "BAD_SEATS", "viewer_seat"),
        (_set("view.acting_seat", 0), "NOT_YOUR_TURN", "to act"),
        (_set("view.config.big_blind", 0), "AMOUNT_OUT_OF_RANGE", "blinds"),
    ],
)
def test_inconsistent_requests_are_refused_with_a_reason(
    breaker: Breaker, code: str, words: str
) -> None:
    r = request()
    read_request(r)  # the unbroken request is fine
    breaker(r)
    with pytest.raises(InvalidRequest) as caught:
        read_request(r)
    assert caught.value.code == code
    assert words in caught.value.message
