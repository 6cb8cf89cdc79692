"""libs.platform.validator on whole requests: repeated fields, nested messages and their paths,
oneofs, presence, the error naming five problems, valid requests of every service, and every
request field of every service stating its rules."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from holdem.ai.v1 import ai_pb2
from holdem.common.v1 import common_pb2, validate_pb2
from holdem.dealer.v1 import dealer_pb2
from holdem.evaluator.v1 import evaluator_pb2
from holdem.gateway.v1 import gateway_pb2
from holdem.lobby.v1 import lobby_pb2
from holdem.table.v1 import table_pb2

from libs.platform.validation import RequestInvalid
from libs.platform.validator import validate, violations
from tests.platform.validation_requests import (
    DECK_ID,
    SERVICE_FILES,
    card,
    fields,
    holdem_config,
    only,
    open_table,
)

# ---- repeated, nested, oneofs, presence ---------------------------------------------------------


def test_repeated_bounds_uniqueness_and_item_rules() -> None:
    def deal(indexes: list[int]) -> dealer_pb2.DealCardsRequest:
        return dealer_pb2.DealCardsRequest(deck_id=DECK_ID, indexes=indexes)

    assert violations(deal(list(range(52)))) == []
    assert fields(deal([])) == ["indexes"]
    assert fields(deal([0, 0, 0])) == ["indexes"]
    assert fields(deal([0, 52])) == ["indexes[1]"]
    assert fields(deal([*range(52), 0])) == ["indexes"]  # 53 items: counted first
    assert "at most 52 items" in only(deal([1] * 10_000)).problem


def test_nested_messages_are_checked_with_their_paths() -> None:
    holding = evaluator_pb2.Holding(
        hole_cards=[card(), card(rank=99), common_pb2.Card(rank=common_pb2.RANK_TEN)],
        board=[card(suit=common_pb2.SUIT_HEARTS)],
    )
    request = evaluator_pb2.EvaluateBatchRequest(
        variant=common_pb2.VARIANT_HOLDEM, holdings=[evaluator_pb2.Holding(), holding]
    )
    assert fields(request) == ["holdings[1].hole_cards[1].rank", "holdings[1].hole_cards[2].suit"]


def test_repeated_messages_are_bounded_before_their_items_are_checked() -> None:
    request = evaluator_pb2.EquityRequest(
        variant=common_pb2.VARIANT_HOLDEM, players=[evaluator_pb2.Holding()] * 11
    )
    assert str(only(request)) == "players: at most 10 items (got 11)"


def test_a_pot_pays_distinct_seats_only() -> None:
    request = evaluator_pb2.ResolveShowdownRequest(
        variant=common_pb2.VARIANT_HOLDEM,
        board=[card()],
        contenders=[evaluator_pb2.Contender(seat=0, hole_cards=[card()])],
        pots=[common_pb2.Pot(amount=10, eligible_seats=[0, 0, 1])],
    )
    assert fields(request) == ["pots[0].eligible_seats"]


def test_a_required_oneof_names_its_choices() -> None:
    found = only(table_pb2.SubmitCommandRequest(table_id="t", idempotency_key="k"))
    assert found.field == "command" and "start_hand" in found.problem
    request = table_pb2.SubmitCommandRequest(
        table_id="t", idempotency_key="k", start_hand=table_pb2.StartHand()
    )
    assert violations(request) == []


def test_the_chosen_oneof_member_is_checked() -> None:
    request = table_pb2.SubmitCommandRequest(
        table_id="t", idempotency_key="k", seat_player=table_pb2.SeatPlayer(player_id="a.b")
    )
    assert fields(request) == ["seat_player.player_id"]


def test_an_unset_optional_field_is_not_checked_but_a_set_one_is() -> None:
    def join(**seat: int) -> gateway_pb2.JoinTableRequest:
        return gateway_pb2.JoinTableRequest(table_id="t", buy_in=100, **seat)  # type: ignore[arg-type]

    assert violations(join()) == []
    assert violations(join(seat=0)) == []
    assert violations(join(seat=9)) == []
    assert fields(join(seat=10)) == ["seat"]


def test_required_messages_must_be_present() -> None:
    assert fields(lobby_pb2.CreateTableRequest(created_by_player_id="p")) == ["config"]


def test_timestamps_in_a_request_must_be_in_range() -> None:
    view = common_pb2.PlayerView()
    view.action_deadline.seconds = 2**62
    request = ai_pb2.DecideRequest(view=view, difficulty=common_pb2.BOT_DIFFICULTY_HARD)
    assert fields(request) == ["view.action_deadline"]
    deadline = request.view.action_deadline  # the request holds a copy of ``view``
    deadline.seconds = 1_800_000_000
    deadline.nanos = -1
    assert fields(request) == ["view.action_deadline"]
    deadline.nanos = 0
    assert violations(request) == []


def test_a_view_sent_to_the_ai_is_checked_at_every_level() -> None:
    view = common_pb2.PlayerView(
        table_id="t",
        seats=[common_pb2.SeatView(seat=10, stack=-5, display_name="\x07bell")],
        board=[card()] * 6,
    )
    request = ai_pb2.DecideRequest(view=view, difficulty=common_pb2.BOT_DIFFICULTY_NORMAL)
    assert fields(request) == [
        "view.board",
        "view.seats[0].seat",
        "view.seats[0].display_name",
        "view.seats[0].stack",
    ]


def test_the_error_names_five_problems_and_counts_the_rest() -> None:
    request = evaluator_pb2.EvaluateBatchRequest(
        holdings=[evaluator_pb2.Holding(hole_cards=[common_pb2.Card()])] * 4
    )
    with pytest.raises(RequestInvalid) as caught:
        validate(request)
    assert len(caught.value.violations) == 9  # variant + 4 x (rank, suit)
    assert caught.value.message.startswith("invalid request: variant: is required")
    assert caught.value.message.endswith("(and 4 more)")


def test_valid_requests_of_every_service_pass() -> None:
    requests: list[Message] = [
        dealer_pb2.StartDeckRequest(table_id="t", hand_id="1", idempotency_key="t:1"),
        dealer_pb2.DealCardsRequest(deck_id=DECK_ID, indexes=[0, 6]),
        evaluator_pb2.EvaluateBatchRequest(
            variant=common_pb2.VARIANT_HOLDEM,
            holdings=[evaluator_pb2.Holding(hole_cards=[card(), card(14, 3)], board=[card(2, 1)])],
        ),
        open_table(holdem_config(rake_basis_points=500, rake_cap=10)),
        gateway_pb2.RegisterRequest(username="alice", password="correct horse"),
        lobby_pb2.ListTablesRequest(),
        ai_pb2.DecideRequest(view=common_pb2.PlayerView(), difficulty=1),  # type: ignore[arg-type]
    ]
    for request in requests:
        assert violations(request) == [], type(request).__name__


# ---- every request field says its rules ---------------------------------------------------------


def _request_fields(descriptor: Descriptor, seen: set[str]) -> Iterator[FieldDescriptor]:
    if descriptor.full_name in seen or descriptor.full_name.startswith("google.protobuf."):
        return
    seen.add(descriptor.full_name)
    for field in descriptor.fields:
        yield field
        if field.message_type is not None:
            yield from _request_fields(field.message_type, seen)


def _all_request_fields() -> list[FieldDescriptor]:
    seen: set[str] = set()
    found: list[FieldDescriptor] = []
    for module in SERVICE_FILES:
        for service in module.DESCRIPTOR.services_by_name.values():
            for method in service.methods:
                found += _request_fields(method.input_type, seen)
    return found


_INTEGERS = {
    FieldDescriptor.TYPE_INT32,
    FieldDescriptor.TYPE_INT64,
    FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_UINT64,
    FieldDescriptor.TYPE_SINT32,
    FieldDescriptor.TYPE_SINT64,
    FieldDescriptor.TYPE_FIXED32,
    FieldDescriptor.TYPE_FIXED64,
    FieldDescriptor.TYPE_SFIXED32,
    FieldDescriptor.TYPE_SFIXED64,
}


def test_every_request_field_of_every_service_states_its_rules() -> None:
    """Strings name their charset, integers their bounds (or ``any``), repeated fields their
    size: the defaults are a safety net, not the design."""
    missing = []
    for field in _all_request_fields():
        rules = field.GetOptions().Extensions[validate_pb2.rules]
        if field.type == FieldDescriptor.TYPE_STRING and not rules.chars:
            missing.append(f"{field.full_name}: chars")
        if field.type in _INTEGERS and not (
            rules.HasField("max") or rules.HasField("min") or rules.any
        ):
            missing.append(f"{field.full_name}: bounds")
        if field.is_repeated and not rules.max_items:
            missing.append(f"{field.full_name}: max_items")
    assert missing == []
    assert len(_all_request_fields()) > 100  # the walk found the requests of all six services
