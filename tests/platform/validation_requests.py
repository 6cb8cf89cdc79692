"""Requests and their parts for the validation tests (libs.platform.validator): a hold'em config
with overrides, an OpenTable command, a card, and the violations a message has."""

from __future__ import annotations

from google.protobuf.message import Message
from holdem.ai.v1 import ai_pb2
from holdem.common.v1 import common_pb2
from holdem.dealer.v1 import dealer_pb2
from holdem.evaluator.v1 import evaluator_pb2
from holdem.gateway.v1 import gateway_pb2
from holdem.lobby.v1 import lobby_pb2
from holdem.table.v1 import table_pb2
from holdem.tournament.v1 import tournament_pb2

from libs.platform.validation import Violation
from libs.platform.validator import violations

SERVICE_FILES = (
    ai_pb2,
    dealer_pb2,
    evaluator_pb2,
    gateway_pb2,
    lobby_pb2,
    table_pb2,
    tournament_pb2,
)
DECK_ID = "0123456789abcdef0123456789abcdef"
TRILLION = 10**12


def fields(message: Message) -> list[str]:
    return [v.field for v in violations(message)]


def only(message: Message) -> Violation:
    (found,) = violations(message)
    return found


def holdem_config(**overrides: int) -> common_pb2.TableConfig:
    config = common_pb2.TableConfig(
        variant=common_pb2.VARIANT_HOLDEM,
        betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
        max_seats=6,
        small_blind=1,
        big_blind=2,
    )
    for name, value in overrides.items():
        setattr(config, name, value)
    return config


def open_table(config: common_pb2.TableConfig) -> table_pb2.SubmitCommandRequest:
    return table_pb2.SubmitCommandRequest(
        table_id="t1", idempotency_key="open", open_table=table_pb2.OpenTable(config=config)
    )


def card(rank: int = common_pb2.RANK_ACE, suit: int = common_pb2.SUIT_SPADES) -> common_pb2.Card:
    return common_pb2.Card(rank=rank, suit=suit)  # type: ignore[arg-type]
