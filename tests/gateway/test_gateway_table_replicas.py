"""Two table-service replicas behind ONE configured address: the lobby and the gateway are told
only replica A's address (as a Kubernetes Service pins a caller to one pod), yet players create,
join and act on tables held by either replica, and no NOT_OWNER reaches them: every call goes to
the replica holding its table's shard (libs/platform/routing.py). Then replica B is SIGKILLed and
its tables keep working through the gateway once A adopts them.

Real processes: nats-server, redis-server, two table replicas (each its own port and advertised
address), lobby, gateway."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import grpc
import nats
import pytest
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc

from libs.devstack import NatsServer
from libs.devstack.processes import free_ports
from libs.eventstore.owners import ShardOwners
from tests.conditions import wait_until
from tests.gateway.stack import CONFIG, KEYS, bearer
from tests.services.conftest import ServiceProcess, start_service

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

TABLES = 8  # enough that rebalancing gives replica B some of their shards
BUY_IN = 100


@dataclass
class Replicas:
    a: ServiceProcess
    b: ServiceProcess
    lobby: ServiceProcess
    gateway: ServiceProcess
    nats_url: str


@pytest.fixture
def replicas(tmp_path: Path, own_nats: NatsServer, redis_url: str) -> Iterator[Replicas]:
    # A NATS server of this test's own: the session's holds the shards of every table earlier
    # tests opened; with them counted, the fair share among two replicas is half of up to 64
    # shards, and A could keep all eight of this test's tables while B took only stale shards
    # (seen in CI).
    nats_url = own_nats.url
    infra = {"HOLDEM_NATS_URL": nats_url, "HOLDEM_REDIS_URL": redis_url, "HOLDEM_TOKEN_KEYS": KEYS}
    local = {"HOLDEM_TABLE_DEALER": "local", "HOLDEM_TABLE_EVALUATOR": "local"}
    port_a, port_b = free_ports("127.0.0.1", 2)
    tag = uuid.uuid4().hex[:6]
    started: list[ServiceProcess] = []

    def table(name: str, port: int) -> ServiceProcess:
        env = {
            **infra,
            **local,
            "HOLDEM_LISTEN": f"127.0.0.1:{port}",  # announced as is (HOLDEM_TABLE_ADVERTISE_ADDR)
            "HOLDEM_TABLE_REPLICA_ID": f"{name}-{tag}",
        }
        started.append(start_service("table", tmp_path, env))
        return started[-1]

    try:
        a = table("a", port_a)
        b = table("b", port_b)
        only_a = {**infra, "HOLDEM_TABLE_ADDR": a.address}
        lobby = start_service("lobby", tmp_path, only_a)
        started.append(lobby)
        gateway = start_service(
            "gateway",
            tmp_path,
            {**only_a, "HOLDEM_LOBBY_ADDR": lobby.address, "HOLDEM_GATEWAY_RATE_BURST": "100000"},
        )
        started.append(gateway)
        yield Replicas(a, b, lobby, gateway, nats_url)
    finally:
        for process in reversed(started):
            process.send_stop()
        for process in reversed(started):
            process.stop()


@dataclass
class Table:
    table_id: str
    tokens: list[str]


async def open_table(gw: gateway_pb2_grpc.GatewayServiceAsyncStub) -> Table:
    """Two guests; the first creates a heads-up table through the gateway, both join it."""
    tokens = []
    for i in range(2):
        login = await gw.GuestLogin(gateway_pb2.GuestLoginRequest(display_name=f"guest{i}"))
        tokens.append(login.token)
    config = common_pb2.TableConfig()
    config.CopyFrom(CONFIG)
    config.min_players_to_start = 2
    created = await gw.CreateTable(
        gateway_pb2.CreateTableRequest(name="routing", config=config), metadata=bearer(tokens[0])
    )
    table_id = created.table.table_id
    for token in tokens:
        await gw.JoinTable(
            gateway_pb2.JoinTableRequest(
                table_id=table_id, buy_in=BUY_IN, idempotency_key=uuid.uuid4().hex
            ),
            metadata=bearer(token),
        )
    return Table(table_id, tokens)


async def act_once(gw: gateway_pb2_grpc.GatewayServiceAsyncStub, table: Table) -> bool:
    """The player to act folds (through the gateway); False while nobody is to act (the hand
    is being dealt). Any other refusal (NOT_OWNER, UNAVAILABLE) fails the caller."""
    for token in table.tokens:
        try:
            await gw.Act(
                gateway_pb2.ActRequest(
                    table_id=table.table_id,
                    action=common_pb2.ACTION_TYPE_FOLD,
                    idempotency_key=uuid.uuid4().hex,
                ),
                metadata=bearer(token),
            )
            return True
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.FAILED_PRECONDITION:  # not this player's turn
                raise
    return False


async def owners_of(nats_url: str, tables: list[Table]) -> dict[str, str | None]:
    nc = await nats.connect(nats_url)
    try:
        owners = ShardOwners(nc)
        return {t.table_id: await owners.address(t.table_id) for t in tables}
    finally:
        await nc.close()


def test_tables_of_both_replicas_work_through_one_address(replicas: Replicas) -> None:
    addresses = {replicas.a.address, replicas.b.address}

    async def main() -> None:
        async with grpc.aio.insecure_channel(replicas.gateway.address) as channel:
            gw: gateway_pb2_grpc.GatewayServiceAsyncStub = gateway_pb2_grpc.GatewayServiceStub(
                channel
            )
            tables = [await open_table(gw) for _ in range(TABLES)]

            def acting(table: Table) -> Callable[[], Awaitable[bool]]:
                return partial(act_once, gw, table)

            # A adopted every new shard (it got every call); rebalancing hands B its share
            async def both_hold_some() -> bool:
                held = set((await owners_of(replicas.nats_url, tables)).values())
                return addresses <= held

            await wait_until(both_hold_some, "both replicas hold some of the tables", 60)

            # every table, on either replica, plays through the gateway: no refusal reaches
            # the players (act_once raises on any but "not your turn")
            for table in tables:
                await wait_until(acting(table), f"a fold at {table.table_id}")
            # and a second hand each (the first fold ended the first)
            for table in tables:
                await wait_until(acting(table), f"hand 2 at {table.table_id}")

            on_b = [
                t
                for t in tables
                if (await owners_of(replicas.nats_url, [t]))[t.table_id] == replicas.b.address
            ]
            assert on_b
            replicas.b.kill()  # SIGKILL: its leases hold its shards until they expire

            async def plays_again(table: Table) -> bool:
                try:
                    return await act_once(gw, table)
                except grpc.aio.AioRpcError as exc:
                    # until A adopts the shard: B's lease has not expired yet
                    assert exc.code() == grpc.StatusCode.UNAVAILABLE, exc
                    return False

            for table in on_b:
                await wait_until(partial(plays_again, table), f"{table.table_id} after B died")
            owners = await owners_of(replicas.nats_url, on_b)
            assert set(owners.values()) == {replicas.a.address}
            # and once adopted, no refusal at all
            for table in on_b:
                await wait_until(acting(table), f"{table.table_id} on A")

    asyncio.run(main())
