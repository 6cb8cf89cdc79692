"""Issue 9's bad inputs, sent to the services that take them (lobby, table, gateway as processes):
each is INVALID_ARGUMENT at the edge (the validation layer), and the service keeps working."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from holdem.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from holdem.table.v1 import table_pb2

from libs.devstack.identity import channel_as
from libs.devstack.tablestub import table_as
from tests.services.conftest import ServiceProcess, start_service, stop_all

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

BAD_IDS = [
    "$JS",
    "$JS.API.>",
    "a.b",
    "*",
    ">",
    "tablé",
    "t\x00",
    "t\n\r",
    "Z" * 5000,
    "Z" * 100_000,
]


def config(**overrides: int) -> common_pb2.TableConfig:
    base = common_pb2.TableConfig(
        variant=common_pb2.VARIANT_HOLDEM,
        betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
        max_seats=6,
        small_blind=1,
        big_blind=2,
    )
    for name, value in overrides.items():
        setattr(base, name, value)
    return base


OVERFLOWING = [config(rake_basis_points=2**32 - 1), config(big_blind=2**60, small_blind=1)]


def refused(call: Callable[[], object]) -> str:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT, caught.value
    details = str(caught.value.details())
    assert len(details) < 300
    return details


@pytest.fixture(scope="module")
def services(
    tmp_path_factory: pytest.TempPathFactory, nats_url: str, redis_url: str
) -> Iterator[dict[str, ServiceProcess]]:
    log_dir = tmp_path_factory.mktemp("bad-input")
    infra = {"HOLDEM_NATS_URL": nats_url, "HOLDEM_REDIS_URL": redis_url}
    running: dict[str, ServiceProcess] = {}
    try:
        running["lobby"] = start_service("lobby", log_dir, infra)
        running["gateway"] = start_service(
            "gateway", log_dir, {**infra, "HOLDEM_LOBBY_ADDR": running["lobby"].address}
        )
        running["table"] = start_service(
            "table",
            log_dir,
            {
                **infra,
                "HOLDEM_TABLE_DEALER": "local",
                "HOLDEM_TABLE_EVALUATOR": "local",
                "HOLDEM_TABLE_AI": "local",
            },
        )
        yield running
    finally:
        stop_all(list(running.values()))


def test_bad_table_ids_and_a_1_mb_idempotency_key_leave_the_table_service_working(
    services: dict[str, ServiceProcess],
) -> None:
    """Issue 9: GetTableState(table_id="Z"*5000) or a 1 MB idempotency key broke the table
    service's NATS connection, and every table call was INTERNAL from then on."""
    with table_as(services["table"].address) as stub:
        for table_id in BAD_IDS:
            refused(
                lambda t=table_id: stub.GetTableState(  # type: ignore[misc]
                    table_pb2.GetTableStateRequest(table_id=t), timeout=10
                )
            )
        details = refused(
            lambda: stub.SubmitCommand(
                table_pb2.SubmitCommandRequest(
                    table_id="t1", idempotency_key="k" * 1_000_000, start_hand=table_pb2.StartHand()
                ),
                timeout=10,
            )
        )
        assert "idempotency_key: at most 128 characters" in details
        for bad in OVERFLOWING:
            refused(
                lambda c=bad: stub.SubmitCommand(  # type: ignore[misc]
                    table_pb2.SubmitCommandRequest(
                        table_id="t-overflow",
                        idempotency_key="open",
                        open_table=table_pb2.OpenTable(config=c),
                    ),
                    timeout=10,
                )
            )
        opened = stub.SubmitCommand(
            table_pb2.SubmitCommandRequest(
                table_id="t-after",
                idempotency_key="open",
                open_table=table_pb2.OpenTable(config=config()),
            ),
            timeout=10,
        )
        assert opened.sequence > 0
        state = stub.GetTableState(table_pb2.GetTableStateRequest(table_id="t-after"), timeout=10)
        assert state.view.config.big_blind == 2


def test_a_rake_of_2_32_minus_1_basis_points_or_an_overflowing_big_blind_is_refused_by_the_lobby(
    services: dict[str, ServiceProcess],
) -> None:
    """Issue 9: a big blind of 2**60 answered INTERNAL but stored the table, and ListTables was
    INTERNAL for everyone from then on; a rake of 2**32-1 basis points gave INTERNAL."""
    with channel_as(services["lobby"].address) as channel:
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        player = lobby.RegisterPlayer(
            lobby_pb2.RegisterPlayerRequest(username="rake", password="correct horse"), timeout=10
        ).player
        for bad in OVERFLOWING:
            details = refused(
                lambda c=bad: lobby.CreateTable(  # type: ignore[misc]
                    lobby_pb2.CreateTableRequest(config=c, created_by_player_id=player.player_id),
                    timeout=10,
                )
            )
            assert "config." in details
        for player_id in BAD_IDS:
            refused(
                lambda p=player_id: lobby.GetWallet(  # type: ignore[misc]
                    lobby_pb2.GetWalletRequest(player_id=p), timeout=10
                )
            )
        listed = lobby.ListTables(lobby_pb2.ListTablesRequest(), timeout=10).tables
        assert all(
            t.config.big_blind < 2**60 and t.config.rake_basis_points <= 10_000 for t in listed
        )


def test_the_gateway_refuses_them_for_a_logged_in_player(
    services: dict[str, ServiceProcess],
) -> None:
    with grpc.insecure_channel(services["gateway"].address) as channel:
        gateway = gateway_pb2_grpc.GatewayServiceStub(channel)
        gateway.Register(
            gateway_pb2.RegisterRequest(username="gwrake", password="correct horse"), timeout=10
        )
        token = gateway.Login(
            gateway_pb2.LoginRequest(username="gwrake", password="correct horse"), timeout=10
        ).token
        auth = (("authorization", f"Bearer {token}"),)
        for bad in OVERFLOWING:
            refused(
                lambda c=bad: gateway.CreateTable(  # type: ignore[misc]
                    gateway_pb2.CreateTableRequest(config=c), metadata=auth, timeout=10
                )
            )
        for password in ("\x00" * 8, "pass\x00word"):
            refused(
                lambda p=password: gateway.Register(  # type: ignore[misc]
                    gateway_pb2.RegisterRequest(username="nul", password=p), timeout=10
                )
            )
        created = gateway.CreateTable(
            gateway_pb2.CreateTableRequest(config=config()), metadata=auth, timeout=10
        )
        listed = gateway.ListTables(gateway_pb2.ListTablesRequest(), timeout=10)
        assert created.table.table_id in [t.table_id for t in listed.tables]
