"""A gateway with real backends for tests: nats-server and redis-server (session fixtures), the
lobby, the table service (local dealer and evaluator) and the gateway as processes, sharing one
token key ring. ``GatewayStack`` also mints tokens (as the lobby would) and talks to the table
directly to set tables up and to check what the gateway says against the truth."""

from __future__ import annotations

import base64
import secrets
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from holdem.table.v1 import table_pb2, table_pb2_grpc

from libs.auth import KeyRing, issue, issue_for
from libs.devstack.identity import channel_as
from libs.devstack.tablestub import table_stub
from tests.services.conftest import ServiceProcess, start_service

KEYS = "k1:" + base64.b64encode(secrets.token_bytes(32)).decode()
OTHER_KEYS = "k1:" + base64.b64encode(secrets.token_bytes(32)).decode()  # forged tokens

CONFIG = common_pb2.TableConfig(
    variant=common_pb2.VARIANT_HOLDEM,
    betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
    max_seats=6,
    small_blind=1,
    big_blind=2,
    min_buy_in=40,
    max_buy_in=400,
    action_clock_seconds=60,
)


@dataclass
class GatewayStack:
    gateway: ServiceProcess
    table: ServiceProcess
    lobby: ServiceProcess
    nats_url: str
    ring: KeyRing = field(default_factory=lambda: KeyRing.parse(KEYS))

    def token(self, player_id: str, *, ttl: int = 3600, now: float | None = None) -> str:
        return issue_for(
            self.ring, player_id, now=time.time() if now is None else now, ttl_seconds=ttl
        )

    def forged(self, player_id: str) -> str:
        token, _ = issue(
            KeyRing.parse(OTHER_KEYS),
            player_id=player_id,
            username="x",
            display_name="x",
            guest=False,
            now=time.time(),
            ttl_seconds=3600,
        )
        return token

    def stop(self) -> None:
        """Stop every process gracefully, all at once: the table replica hands its shard leases
        back as it stops, so the next stack on the session's NATS can serve those shards at
        once (a SIGKILLed replica's leases hold its shards for a lease TTL)."""
        processes = (self.gateway, self.lobby, self.table)
        for process in processes:
            process.send_stop()
        for process in processes:
            process.stop()

    def gateway_stub(self, channel: grpc.Channel) -> gateway_pb2_grpc.GatewayServiceStub:
        return gateway_pb2_grpc.GatewayServiceStub(channel)

    def table_stub(self) -> table_pb2_grpc.TableServiceStub:
        address = self.table.address
        return table_stub(channel_as(address), channel_as(address, "gateway"))

    def open_table(self, config: common_pb2.TableConfig = CONFIG) -> str:
        table_id = f"gw{uuid.uuid4().hex[:10]}"
        self.table_stub().SubmitCommand(
            table_pb2.SubmitCommandRequest(
                table_id=table_id,
                idempotency_key="open",
                open_table=table_pb2.OpenTable(config=config),
            ),
            timeout=10,
        )
        return table_id

    def seat(self, table_id: str, player_id: str, buy_in: int, *, bot: bool = False) -> None:
        """Seats directly at the table (contract-13 §5: until the lobby seats everyone)."""
        self.table_stub().SubmitCommand(
            table_pb2.SubmitCommandRequest(
                table_id=table_id,
                idempotency_key=f"seat-{player_id}",
                seat_player=table_pb2.SeatPlayer(player_id=player_id, buy_in=buy_in, is_bot=bot),
            ),
            timeout=10,
        )

    def view(self, table_id: str, player_id: str = "") -> common_pb2.PlayerView:
        return (
            self.table_stub()
            .GetPlayerView(
                table_pb2.GetPlayerViewRequest(table_id=table_id, player_id=player_id), timeout=10
            )
            .view
        )


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def start_gateway_stack(
    log_dir: Path,
    nats_url: str,
    redis_url: str,
    gateway_env: dict[str, str] | None = None,
    lobby_env: dict[str, str] | None = None,
) -> GatewayStack:
    infra = {"HOLDEM_NATS_URL": nats_url, "HOLDEM_REDIS_URL": redis_url, "HOLDEM_TOKEN_KEYS": KEYS}
    local = {
        "HOLDEM_TABLE_DEALER": "local",
        "HOLDEM_TABLE_EVALUATOR": "local",
        "HOLDEM_TABLE_AI": "local",
    }
    table = start_service("table", log_dir, {**infra, **local})
    lobby = start_service(
        "lobby", log_dir, {**infra, "HOLDEM_TABLE_ADDR": table.address, **(lobby_env or {})}
    )
    gateway = start_service(
        "gateway",
        log_dir,
        {
            **infra,
            "HOLDEM_LOBBY_ADDR": lobby.address,
            "HOLDEM_TABLE_ADDR": table.address,
            **(gateway_env or {}),
        },
    )
    return GatewayStack(gateway, table, lobby, nats_url)


@pytest.fixture(scope="module")
def gateway_stack(
    tmp_path_factory: pytest.TempPathFactory, nats_url: str, redis_url: str
) -> Iterator[GatewayStack]:
    stack = start_gateway_stack(
        tmp_path_factory.mktemp("gateway"),
        nats_url,
        redis_url,
        # a burst past what test_gateway_bad_input sends from one peer (every RPC x 8 bad tokens);
        # test_past_the_rate_limit has a strict gateway of its own
        {"HOLDEM_GATEWAY_WATCH_BUFFER": "64", "HOLDEM_GATEWAY_RATE_BURST": "2000"},
    )
    yield stack
    stack.stop()


@dataclass
class Drained:
    """What a stream gave until it ended: its updates, and the error it ended with (None: it
    ended normally)."""

    updates: list[gateway_pb2.TableUpdate]
    error: grpc.RpcError | None

    def describe(self) -> str:
        last = self.updates[-1] if self.updates else None
        return (
            f"{len(self.updates)} updates, the last at sequence "
            f"{last.sequence if last else None}, ended by "
            f"{self.error.code() if self.error else 'the server (OK)'}"
        )


def drain(stream: Any, seconds: float, what: str) -> Drained:
    """Read ``stream`` (a server-streaming call of a sync channel) to its end, within ``seconds``:
    a stream still open then is cancelled and fails the test, saying what it gave (a stream
    that never ends must not wedge the test until its timeout)."""
    updates: list[gateway_pb2.TableUpdate] = []
    timer = threading.Timer(seconds, stream.cancel)
    timer.start()
    error: grpc.RpcError | None = None
    try:
        for update in stream:
            updates.append(update)
    except grpc.RpcError as exc:
        error = exc
    finally:
        timer.cancel()
    drained = Drained(updates, error)
    if error is not None and error.code() == grpc.StatusCode.CANCELLED:
        raise AssertionError(
            f"{what}: the stream was still open after {seconds} s ({drained.describe()})"
        )
    return drained
