"""libs.platform.validation: the protos' input rules of one value, checked from the descriptors:
the boundaries of strings (ids, keys, text, hex, unicode, control characters, huge strings,
NATS-hostile ids), integers and floating point, and enums. Whole requests (repeated, nested,
oneofs, every service's fields): test_validation_messages.py.
"""

from __future__ import annotations

import math

import pytest
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2
from holdem.ai.v1 import ai_pb2
from holdem.common.v1 import common_pb2, validate_pb2
from holdem.dealer.v1 import dealer_pb2
from holdem.evaluator.v1 import evaluator_pb2
from holdem.gateway.v1 import gateway_pb2
from holdem.lobby.v1 import lobby_pb2
from holdem.table.v1 import table_pb2

from libs.errors import ECHO_CHARS, echo
from libs.platform.validation import INVALID_FIELD, RequestInvalid
from libs.platform.validator import validate, violations
from tests.platform.validation_requests import (
    DECK_ID,
    TRILLION,
    fields,
    holdem_config,
    only,
    open_table,
)

# ---- ids and other strings ----------------------------------------------------------------------


@pytest.mark.parametrize("table_id", ["t", "a" * 64, "table-1_B", "0123456789abcdef"])
def test_ids_of_the_documented_charset_and_length_pass(table_id: str) -> None:
    assert violations(table_pb2.GetTableStateRequest(table_id=table_id)) == []


@pytest.mark.parametrize(
    "table_id",
    [
        "$JS",
        "$JS.API.STREAM.DELETE.HOLDEM_TABLES",
        "a.b",
        "*",
        ">",
        "a b",
        "tablé",
        "表",
        "t\x00",
        "t\n",
        "t\x7f",
        "a" * 65,
        "Z" * 100_000,
    ],
)
def test_ids_outside_the_charset_or_too_long_are_refused(table_id: str) -> None:
    found = only(table_pb2.GetTableStateRequest(table_id=table_id))
    assert found.field == "table_id"


def test_a_missing_required_id_is_named() -> None:
    assert str(only(table_pb2.GetTableStateRequest())) == "table_id: is required"


def test_a_100_kb_string_is_refused_with_a_short_escaped_message() -> None:
    hostile = "\x1b[2J" + "Z" * 100_000
    with pytest.raises(RequestInvalid) as caught:
        validate(table_pb2.GetTableStateRequest(table_id=hostile))
    assert caught.value.code == INVALID_FIELD
    message = caught.value.message
    assert len(message) < 200
    assert "\x1b" not in message and "\\x1b" in message
    assert "Z" * (ECHO_CHARS + 1) not in message
    assert "100004 characters" in message


@pytest.mark.parametrize(
    ("key", "ok"),
    [
        ("k", True),
        ("table:hand", True),
        ("0f8fad5b-d9cb-469f-a165-70867728950e", True),
        ("a.b*>$JS", True),  # keys go to headers and Redis values, never into subjects
        ("k" * 128, True),
        ("k" * 129, False),
        ("a b", False),
        ("é", False),
        ("k\r\nNats-Msg-Id: x", False),
    ],
)
def test_idempotency_keys_are_printable_ascii_without_spaces(key: str, ok: bool) -> None:
    request = table_pb2.SubmitActionRequest(
        table_id="t",
        player_id="p",
        action=common_pb2.ACTION_TYPE_FOLD,
        idempotency_key=key,
    )
    assert fields(request) == ([] if ok else ["idempotency_key"])


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("Friday game", True),
        ("Zoë's table 🂡", True),
        ("表" * 64, True),
        ("表" * 65, False),  # lengths count characters, not bytes
        ("tab\there", False),
        ("line\nbreak", False),
        ("nul\x00", False),
        ("right-to-left \u202e override", False),
        ("line separator \u2028", False),
    ],
)
def test_text_is_printable_unicode(name: str, ok: bool) -> None:
    request = lobby_pb2.CreateTableRequest(
        name=name, config=holdem_config(), created_by_player_id="p1"
    )
    assert fields(request) == ([] if ok else ["name"])


@pytest.mark.parametrize("password", ["\x00" * 8, "pass\x00word", "p" * 257])
def test_passwords_with_control_characters_or_too_long_are_refused(password: str) -> None:
    request = gateway_pb2.RegisterRequest(username="alice", password=password)
    assert fields(request) == ["password"]


@pytest.mark.parametrize(
    ("deck_id", "ok"),
    [(DECK_ID, True), (DECK_ID.upper(), False), (DECK_ID[:-1], False), (DECK_ID + "0", False)],
)
def test_deck_ids_are_32_lower_case_hex_digits(deck_id: str, ok: bool) -> None:
    assert fields(dealer_pb2.RevealSeedRequest(deck_id=deck_id)) == ([] if ok else ["deck_id"])


def test_strings_without_rules_get_the_default_bound_and_no_control_characters() -> None:
    assert violations(health_pb2.HealthCheckRequest(service="s" * 1024)) == []
    assert fields(health_pb2.HealthCheckRequest(service="s" * 1025)) == ["service"]
    assert fields(health_pb2.HealthCheckRequest(service="a\x01b")) == ["service"]
    assert violations(health_pb2.HealthCheckRequest(service="ünïcode")) == []


def test_echo_escapes_and_truncates() -> None:
    assert echo("abc") == "'abc'"
    assert echo("a\x00\n") == "'a\\x00\\n'"
    assert echo("é") == "'\\xe9'"
    long = echo("x" * 1000)
    assert long == f"'{'x' * ECHO_CHARS}'... (1000 characters)"


# ---- integers and floating point ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "ok"),
    [
        ("big_blind", TRILLION, True),
        ("big_blind", TRILLION + 1, False),
        ("big_blind", 2**60, False),
        ("big_blind", -1, False),
        ("ante", 0, True),
        ("min_buy_in", 2**63 - 1, False),
        ("rake_basis_points", 10_000, True),
        ("rake_basis_points", 10_001, False),
        ("rake_basis_points", 2**32 - 1, False),
        ("max_seats", 10, True),
        ("max_seats", 11, False),
        ("action_clock_seconds", 2**32 - 1, False),
    ],
)
def test_table_config_bounds(field: str, value: int, ok: bool) -> None:
    request = open_table(holdem_config(**{field: value}))
    assert fields(request) == ([] if ok else [f"open_table.config.{field}"])


def _bound(message: type[Message], field: str) -> int:
    rules = message.DESCRIPTOR.fields_by_name[field].GetOptions().Extensions[validate_pb2.rules]
    return int(rules.max)


def test_the_chip_bounds_leave_room_for_every_total_a_table_reaches() -> None:
    """The most chips one table can hold: ten seats bought in at the default maximum buy-in
    (100 big blinds) of the largest big blind. Stacks and pots a view reports are bounded above
    that, and far below 2**63, so no sum the services write to a proto overflows."""
    most_on_a_table = 10 * 100 * _bound(common_pb2.TableConfig, "big_blind")
    for message, field in [
        (common_pb2.SeatView, "stack"),
        (common_pb2.Pot, "amount"),
        (common_pb2.LegalActions, "max_raise_to"),
    ]:
        assert most_on_a_table <= _bound(message, field) < 2**63 // 1000, field
    largest = holdem_config(small_blind=TRILLION, big_blind=TRILLION, rake_cap=TRILLION)
    assert violations(open_table(largest)) == []


def test_amounts_of_actions_are_bounded() -> None:
    base = {"table_id": "t", "player_id": "p", "idempotency_key": "k"}
    bet = common_pb2.ACTION_TYPE_BET
    ok = table_pb2.SubmitActionRequest(action=bet, amount=TRILLION, **base)
    assert violations(ok) == []
    for amount in (-1, TRILLION + 1, 2**63 - 1, -(2**63)):
        bad = table_pb2.SubmitActionRequest(action=bet, amount=amount, **base)
        assert fields(bad) == ["amount"]


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        (0.0, True),
        (0.01, True),
        (1.0, True),
        (1.5, False),
        (-0.1, False),
        (math.nan, False),
        (math.inf, False),
        (-math.inf, False),
    ],
)
def test_floating_point_fields_are_finite_and_bounded(value: float, ok: bool) -> None:
    request = evaluator_pb2.EquityRequest(
        variant=common_pb2.VARIANT_HOLDEM,
        players=[evaluator_pb2.Holding(), evaluator_pb2.Holding()],
        target_std_error=value,
    )
    assert fields(request) == ([] if ok else ["target_std_error"])


def test_any_value_of_a_seed_is_fine() -> None:
    request = ai_pb2.DecideRequest(
        view=common_pb2.PlayerView(),
        difficulty=common_pb2.BOT_DIFFICULTY_EASY,
        seed=2**64 - 1,
    )
    assert violations(request) == []


# ---- enums --------------------------------------------------------------------------------------


def test_a_required_enum_refuses_unspecified_and_names_the_choices() -> None:
    found = only(table_pb2.SubmitActionRequest(table_id="t", player_id="p", idempotency_key="k"))
    assert found.field == "action"
    assert "ACTION_TYPE_FOLD" in found.problem and "UNSPECIFIED" not in found.problem


@pytest.mark.parametrize("value", [7, 99, -1, 2**31 - 1])
def test_unknown_enum_numbers_are_refused_even_where_optional(value: int) -> None:
    request = lobby_pb2.ListTablesRequest(variant=value)  # type: ignore[arg-type]
    found = only(request)
    assert found.field == "variant" and f"{value} is not a Variant" in found.problem


def test_items_of_a_repeated_enum_are_never_unspecified() -> None:
    bots = [common_pb2.BOT_DIFFICULTY_EASY, common_pb2.BOT_DIFFICULTY_UNSPECIFIED]
    request = gateway_pb2.CreateTableRequest(config=holdem_config(), bots=bots)
    assert fields(request) == ["bots[1]"]
