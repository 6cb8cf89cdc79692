"""The red team's lobby findings (issue 9: bad input gets a clear error and changes nothing),
against a real lobby and table service on NATS and Redis: a CreateTable whose derived buy-ins
nobody could pay is refused naming the client's field and lists nothing, grants nothing; a
JoinTable the lobby can tell is wrong writes nothing to the ledger."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.lobby.v1 import lobby_pb2

from tests.services.lobby_stack import CONFIG, LobbyStack, lobby_stack

pytestmark = pytest.mark.integration


@pytest.fixture
def stack(tmp_path: Path, redis_url: str) -> Iterator[LobbyStack]:
    with lobby_stack(tmp_path, redis_url) as running:
        yield running


def _refused(call: Any, status: grpc.StatusCode) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    assert caught.value.code() == status, caught.value.details()
    return caught.value


def _code(error: grpc.RpcError) -> str:
    metadata: Any = error.trailing_metadata()
    return str(dict(metadata or ()).get("x-error-code", ""))


def _tables(stack: LobbyStack) -> list[str]:
    listed = stack.lobby_call("ListTables", lobby_pb2.ListTablesRequest(include_closed=True))
    return [t.table_id for t in listed.tables]


def test_a_create_table_nobody_could_join_is_refused_and_changes_nothing(
    stack: LobbyStack,
) -> None:
    """bigblind3.py: CreateTable(big_blind=10**12, bots=[HARD]) answered INVALID_ARGUMENT
    naming seat_player.buy_in, yet the table was listed OPEN and the house AI was granted 10**14
    chips; without bots it was accepted, and nobody could ever join it."""
    owner = stack.register()
    grants = stack.audit().grants
    wire = common_pb2.TableConfig()
    wire.CopyFrom(CONFIG)
    wire.big_blind, wire.small_blind, wire.min_buy_in, wire.max_buy_in = 10**12, 1, 0, 0
    for bots in ([common_pb2.BOT_DIFFICULTY_HARD], []):
        request = lobby_pb2.CreateTableRequest(
            name="big", config=wire, created_by_player_id=owner.player_id, bots=bots
        )
        error = _refused(
            lambda r=request: stack.lobby_call("CreateTable", r, timeout=30),
            grpc.StatusCode.INVALID_ARGUMENT,
        )
        details = str(error.details())
        assert details.startswith("config.big_blind: "), details
        assert "seat_player" not in details and _code(error) == "INVALID_TABLE_CONFIG"
    assert _tables(stack) == []
    audit = stack.audit()
    assert audit.holds and audit.grants == grants, audit
    _refused(
        lambda: stack.lobby_call("GetPlayer", lobby_pb2.GetPlayerRequest(player_id="ai-hard-1")),
        grpc.StatusCode.NOT_FOUND,
    )


def test_a_join_the_lobby_can_tell_is_wrong_leaves_the_ledger_as_it_was(stack: LobbyStack) -> None:
    """refused.py: JoinTable(seat=9) at a 6-seat table and a buy-in above the table's maximum
    answered INVALID_ARGUMENT, after a BUY_IN and a REFUND were written to the ledger."""
    owner, player = stack.register(), stack.register()
    table = stack.create_table(owner.player_id)
    before = stack.ledger(player.player_id)
    for seat, buy_in, code in ((9, 100, "NO_SUCH_SEAT"), (None, 5000, "BUY_IN_OUT_OF_RANGE")):
        request = lobby_pb2.JoinTableRequest(
            player_id=player.player_id, table_id=table, seat=seat, buy_in=buy_in
        )
        error = _refused(
            lambda r=request: stack.lobby_call("JoinTable", r), grpc.StatusCode.INVALID_ARGUMENT
        )
        assert _code(error) == code, error.details()
    assert stack.ledger(player.player_id) == before
    assert stack.wallet(player.player_id).reserved == 0
    assert stack.audit().holds
