"""The gateway and its NATS, on a nats-server of each test's own (issue 9's red-team findings):

- a gateway that started before the revocation bucket existed (here: before the lobby, which
  makes it) still refuses a token once it is logged out elsewhere (rt/revoke.py);
- a NATS that hangs (SIGSTOP) while a stream resumes from a sequence is UNAVAILABLE, not
  INTERNAL, and the same call works once NATS answers again (rt/watchdown2.py)."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import nats.errors
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from holdem.lobby.v1 import lobby_pb2, lobby_pb2_grpc

from libs.auth import KeyRing, issue
from libs.devstack import NatsServer
from libs.devstack.identity import channel_as
from libs.devstack.processes import free_port
from libs.devstack.services import service_key_env
from libs.errors import Unavailable
from libs.platform.unavailable import DEPENDENCY_DOWN
from services.gateway.auth import Authenticator
from services.gateway.config import load_config
from services.gateway.server import GATEWAY_SERVICE, NATS_DOWN, GatewayServicer
from tests.conditions import wait_until_sync
from tests.gateway.stack import KEYS, bearer, start_gateway_stack
from tests.services.conftest import ServiceProcess, start_service

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

S = grpc.StatusCode


@pytest.fixture
def processes() -> Iterator[list[ServiceProcess]]:
    started: list[ServiceProcess] = []
    yield started
    for process in reversed(started):
        process.stop()  # gracefully: a table replica hands its shard leases back


def _trailer(error: grpc.RpcError, name: str) -> str:
    metadata: Any = error.trailing_metadata()
    return str(dict(metadata or ()).get(name, ""))


def _serving(address: str) -> bool:
    with grpc.insecure_channel(address) as channel:
        health = health_pb2_grpc.HealthStub(channel).Check(  # type: ignore[attr-defined]
            health_pb2.HealthCheckRequest(), timeout=10
        )
    return bool(health.status == health_pb2.HealthCheckResponse.SERVING)


def test_a_gateway_started_before_the_revocation_bucket_refuses_a_token_logged_out_elsewhere(
    tmp_path: Path, own_nats: NatsServer, redis_url: str, processes: list[ServiceProcess]
) -> None:
    lobby_address = f"127.0.0.1:{free_port()}"
    infra = {"HOLDEM_NATS_URL": own_nats.url, "HOLDEM_REDIS_URL": redis_url}
    infra["HOLDEM_TOKEN_KEYS"] = KEYS
    nowhere = "127.0.0.1:1"  # no table service: none of these calls reaches one
    # the gateway first: no bucket holdem_revoked yet (the lobby makes it when it starts)
    gateway = start_service(
        "gateway",
        tmp_path,
        {**infra, "HOLDEM_LOBBY_ADDR": lobby_address, "HOLDEM_TABLE_ADDR": nowhere},
    )
    processes.append(gateway)
    lobby = start_service(
        "lobby", tmp_path, {**infra, "HOLDEM_LISTEN": lobby_address, "HOLDEM_TABLE_ADDR": nowhere}
    )
    processes.append(lobby)
    with grpc.insecure_channel(gateway.address) as channel:
        gw = gateway_pb2_grpc.GatewayServiceStub(channel)
        login = gw.GuestLogin(gateway_pb2.GuestLoginRequest(display_name="Leaver"), timeout=10)
        wallet = gateway_pb2.GetWalletRequest()
        gw.GetWallet(wallet, metadata=bearer(login.token), timeout=10)  # the token works
        # logged out through another gateway replica (here: the lobby's Logout directly)
        with channel_as(lobby.address, "tools") as lobby_channel:
            lobby_pb2_grpc.LobbyServiceStub(lobby_channel).Logout(
                lobby_pb2.LogoutRequest(token=login.token), timeout=10
            )

        def refused() -> bool:
            try:
                gw.GetWallet(wallet, metadata=bearer(login.token), timeout=10)
            except grpc.RpcError as exc:
                assert exc.code() == S.UNAUTHENTICATED, exc.details()
                assert _trailer(exc, "x-error-code") == "TOKEN_REVOKED"
                return True
            return False

        wait_until_sync(refused, "the revoked token refused at this gateway", timeout=10)
        # another player's token still works, and the gateway says SERVING: it can check tokens
        other = gw.GuestLogin(gateway_pb2.GuestLoginRequest(display_name="Stayer"), timeout=10)
        gw.GetWallet(wallet, metadata=bearer(other.token), timeout=10)
    assert _serving(gateway.address)


def test_watch_table_from_a_sequence_while_nats_hangs_is_unavailable_not_internal(
    tmp_path: Path, own_nats: NatsServer, redis_url: str
) -> None:
    stack = start_gateway_stack(tmp_path, own_nats.url, redis_url)
    try:
        table_id = stack.open_table()
        stack.seat(table_id, "p1", 100)
        sequence = stack.view(table_id).sequence
        token = stack.token("watcher")
        request = gateway_pb2.WatchTableRequest(table_id=table_id, from_sequence=sequence - 1)
        assert own_nats.pid is not None
        with grpc.insecure_channel(stack.gateway.address) as channel:
            gw = stack.gateway_stub(channel)
            os.kill(own_nats.pid, signal.SIGSTOP)
            try:
                with pytest.raises(grpc.RpcError) as caught:
                    next(iter(gw.WatchTable(request, metadata=bearer(token), timeout=30)))
            finally:
                os.kill(own_nats.pid, signal.SIGCONT)
            error = caught.value
            assert error.code() == S.UNAVAILABLE, (error.code(), error.details())
            assert len(error.details() or "") <= 100

            def resumes() -> bool:
                try:
                    stream = gw.WatchTable(request, metadata=bearer(token), timeout=10)
                    first = next(iter(stream))
                except grpc.RpcError as exc:
                    assert exc.code() == S.UNAVAILABLE, exc.details()
                    return False
                stream.cancel()
                assert first.sequence == sequence and first.previous == sequence - 1
                return True

            wait_until_sync(resumes, "the stream resumes once NATS answers again", timeout=60)
    finally:
        for process in (stack.gateway, stack.lobby, stack.table):
            process.kill()


def test_every_gateway_rpc_is_guarded_against_a_failing_nats() -> None:
    """Each RPC of the service runs inside libs.platform.unavailable's guard (the WatchTable
    case above, over a real hung NATS, shows what the guard does)."""
    for name in GATEWAY_SERVICE.methods_by_name:
        assert getattr(getattr(GatewayServicer, name), "__wrapped__", None) is not None, name


class _Context:
    def __init__(self, token: str) -> None:
        self.token = token

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return bearer(self.token)

    def peer(self) -> str:
        return "ipv4:127.0.0.1:5000"

    async def abort(self, code: grpc.StatusCode, details: str, **_: Any) -> None:
        raise AssertionError(f"aborted {code}: {details}")


class _Unreached:
    """A backend no call may reach (its methods may be looked up, not called)."""

    def __getattr__(self, name: str) -> Any:
        async def reached(*args: object, **kwargs: object) -> None:
            raise AssertionError(f"{name} was called")

        return reached


class _Unreadable:
    """A revocation check whose bucket cannot be read (NATS does not answer)."""

    async def revoked(self, claims: object) -> bool:
        raise nats.errors.TimeoutError


def test_every_rpc_with_a_token_that_cannot_be_checked_is_unavailable() -> None:
    """While revocations cannot be read, no call is served as if its token were fine: every
    RPC that carries a token answers UNAVAILABLE (DEPENDENCY_DOWN) before reaching anything."""
    config = load_config({**service_key_env("gateway"), "HOLDEM_TOKEN_KEYS": KEYS})
    unreachable: Any = _Unreached()  # the lobby, the table and NATS feeds
    servicer = GatewayServicer(
        config,
        unreachable,
        unreachable,
        Authenticator(config.token_keys),
        feeds=unreachable,
        revocations=_Unreadable(),  # type: ignore[arg-type]
    )
    token, _ = issue(
        KeyRing.parse(KEYS),
        player_id="p1",
        username="p1",
        display_name="p1",
        guest=True,
        now=time.time(),
        ttl_seconds=3600,
    )
    requests = {
        name: getattr(gateway_pb2, method.input_type.name)()
        for name, method in GATEWAY_SERVICE.methods_by_name.items()
        if name not in ("Register", "Login", "GuestLogin", "ListTables")  # no token
    }
    assert len(requests) == len(GATEWAY_SERVICE.methods_by_name) - 4

    async def answer(name: str, request: Any) -> BaseException | None:
        call = getattr(servicer, name)(request, _Context(token))
        try:
            if name in ("WatchTable", "WatchChat", "WatchTournament", "WatchWaitlist"):  # streams
                await anext(call)
            else:
                await call
        except BaseException as exc:
            return exc
        return None

    for name, request in requests.items():
        error = asyncio.run(answer(name, request))
        assert isinstance(error, Unavailable), (name, error)
        assert error.code == DEPENDENCY_DOWN and error.message == NATS_DOWN
