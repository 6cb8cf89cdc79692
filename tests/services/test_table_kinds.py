"""A table's chips are wallets' (a cash table) or a tournament's (a tournament table), and each
chip-moving service reaches only its own kind (services/table/kinds.py, a real table service):

- the tournament service's commands (open, seat, add chips, leave, close, release a hand) reach
  only tournament tables: a cash table refuses each (NOT_A_TOURNAMENT_TABLE);
- the lobby's (a buy-in, a top-up, a cash-out, a close paid to wallets) reach only cash tables:
  a tournament table refuses each (TOURNAMENT_TABLE);
- players (the gateway) cannot release a hand anywhere (PERMISSION_DENIED) nor change seats at
  a tournament table (the tournament seats them);

each refusal changing nothing: the table's view is the same before and after.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.table.v1 import table_pb2, table_pb2_grpc

from libs.devstack.identity import channel_as
from libs.platform.callers import CALLER_NOT_ALLOWED
from libs.platform.errors import error_code_of
from libs.table import errors as TE
from tests.services.conftest import ServiceProcess, start_service, stop_all

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory, nats_url: str, redis_url: str) -> Iterator[str]:
    log_dir: Path = tmp_path_factory.mktemp("kinds")
    infra = {"HOLDEM_NATS_URL": nats_url, "HOLDEM_REDIS_URL": redis_url}
    running: list[ServiceProcess] = []
    try:
        running.append(start_service("dealer", log_dir, infra))
        env = {
            **infra,
            "HOLDEM_DEALER_ADDR": running[0].address,
            "HOLDEM_TABLE_EVALUATOR": "local",
            "HOLDEM_TABLE_AI": "local",
        }
        running.append(start_service("table", log_dir, env))
        yield running[1].address
    finally:
        stop_all(running)


def _config(tournament: bool) -> common_pb2.TableConfig:
    return common_pb2.TableConfig(
        variant=common_pb2.VARIANT_HOLDEM,
        betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
        max_seats=6,
        small_blind=1,
        big_blind=2,
        tournament=tournament,
        min_players_to_start=3,  # a cash table of two deals no hand: its view stays the same
    )


def _commands(table_id: str, tournament: bool) -> dict[str, table_pb2.SubmitCommandRequest]:
    """Every chip-moving command for ``table_id``, one key each."""
    fields: dict[str, Any] = {
        "open_table": table_pb2.OpenTable(config=_config(tournament)),
        "seat_player": table_pb2.SeatPlayer(player_id="rich", seat=3, buy_in=200),
        "add_chips": table_pb2.AddChips(player_id="p0", amount=10),
        "leave_seat": table_pb2.LeaveSeat(player_id="p0"),
        "close_table": table_pb2.CloseTable(),
        "release_hand": table_pb2.ReleaseHand(number=1, small_blind=1, big_blind=2),
    }
    return {
        which: table_pb2.SubmitCommandRequest(
            table_id=table_id, idempotency_key=f"k-{which}-{uuid.uuid4().hex[:6]}", **{which: msg}
        )
        for which, msg in fields.items()
    }


def _open(address: str, service: str, tournament: bool) -> str:
    """A table of that kind opened by ``service``, p0 and p1 seated with 100."""
    table_id = f"kind{uuid.uuid4().hex[:10]}"
    with channel_as(address, service) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)
        stub.SubmitCommand(_commands(table_id, tournament)["open_table"], timeout=10)
        for seat in range(2):
            sit = table_pb2.SeatPlayer(player_id=f"p{seat}", seat=seat, buy_in=100)
            stub.SubmitCommand(
                table_pb2.SubmitCommandRequest(
                    table_id=table_id, idempotency_key=f"sit{seat}", seat_player=sit
                ),
                timeout=10,
            )
    return table_id


def _view(address: str, table_id: str) -> bytes:
    with grpc.insecure_channel(address) as channel:
        answer = table_pb2_grpc.TableServiceStub(channel).GetTableState(
            table_pb2.GetTableStateRequest(table_id=table_id), timeout=10
        )
    return answer.view.SerializeToString(deterministic=True)


def _refused(
    address: str, service: str, request: table_pb2.SubmitCommandRequest
) -> tuple[grpc.StatusCode, str, str]:
    with channel_as(address, service) as channel, pytest.raises(grpc.RpcError) as caught:
        table_pb2_grpc.TableServiceStub(channel).SubmitCommand(request, timeout=10)
    error: Any = caught.value
    return error.code(), error_code_of(error) or "", str(error.details())


def test_the_tournament_service_reaches_only_tournament_tables(table: str) -> None:
    cash = _open(table, "lobby", tournament=False)
    before = _view(table, cash)
    for which, request in _commands(cash, tournament=False).items():
        status, code, details = _refused(table, "tournament", request)
        assert (status, code) == (grpc.StatusCode.FAILED_PRECONDITION, TE.NOT_A_TOURNAMENT_TABLE)
        assert "cash table" in details, which
    fresh = f"kind{uuid.uuid4().hex[:10]}"  # nor opens a cash table of its own
    status, code, _ = _refused(table, "tournament", _commands(fresh, False)["open_table"])
    assert code == TE.NOT_A_TOURNAMENT_TABLE
    assert _view(table, cash) == before
    with grpc.insecure_channel(table) as channel, pytest.raises(grpc.RpcError) as caught:
        table_pb2_grpc.TableServiceStub(channel).GetTableState(
            table_pb2.GetTableStateRequest(table_id=fresh), timeout=10
        )
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND


def test_a_tournament_table_refuses_the_lobbys_wallet_chips(table: str) -> None:
    tournament = _open(table, "tournament", tournament=True)
    before = _view(table, tournament)
    for which, request in _commands(tournament, tournament=True).items():
        if which == "release_hand":
            continue  # never the lobby's (the caller policy's refusal: below)
        status, code, details = _refused(table, "lobby", request)
        assert (status, code) == (grpc.StatusCode.FAILED_PRECONDITION, TE.TOURNAMENT_TABLE), which
        assert "tournament's table" in details
    assert _view(table, tournament) == before


def test_players_release_no_hand_and_change_no_seat_at_a_tournament_table(table: str) -> None:
    tournament = _open(table, "tournament", tournament=True)
    before = _view(table, tournament)
    release = _commands(tournament, tournament=True)["release_hand"]
    for service in ("gateway", "lobby"):
        status, code, _ = _refused(table, service, release)
        assert (status, code) == (grpc.StatusCode.PERMISSION_DENIED, CALLER_NOT_ALLOWED)
    change = table_pb2.SubmitCommandRequest(
        table_id=tournament,
        idempotency_key="change",
        change_seat=table_pb2.ChangeSeat(player_id="p0", seat=4),
    )
    status, code, details = _refused(table, "gateway", change)
    assert (status, code) == (grpc.StatusCode.FAILED_PRECONDITION, TE.TOURNAMENT_TABLE)
    assert "no seat changes" in details
    assert _view(table, tournament) == before
    # the tournament service itself releases the hand: past every check
    with channel_as(table, "tournament") as channel:
        table_pb2_grpc.TableServiceStub(channel).SubmitCommand(release, timeout=10)
