"""The tournament stack of tests/gateway/test_gateway_tournaments.py: nats-server, redis-server,
the table, lobby, tournament and gateway services as processes (``stack``, module scope), and a
player with a token and a client of the gateway (``Player``)."""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from holdem.tournament.v1 import tournament_pb2 as tpb
from holdem.tournament.v1 import tournament_pb2_grpc

from libs.devstack.identity import channel_as
from tests import infra
from tests.gateway.stack import KEYS, bearer
from tests.services.conftest import ServiceProcess, launch_service, start_service
from tests.services.lobby_stack import LobbyStack

S = grpc.StatusCode
BUY_IN = 100


@dataclass
class Stack:
    lobby: LobbyStack
    tournament: ServiceProcess
    gateway: ServiceProcess

    def tools(self, method: str, request: Any) -> Any:
        with channel_as(self.tournament.address, "tools") as channel:
            stub = tournament_pb2_grpc.TournamentServiceStub(channel)
            return getattr(stub, method)(request, timeout=30)

    def create(self, **fields: Any) -> str:
        base: dict[str, Any] = {
            "name": "gateway",
            "kind": tpb.TOURNAMENT_KIND_SIT_AND_GO,
            "max_entrants": 3,
            "seats_per_table": 3,
            "starting_stack": 200,
            "buy_in": BUY_IN,
            "structure": tpb.BlindStructure(name="hyper", unit=tpb.LEVEL_UNIT_HANDS),
        }
        tid = f"g{uuid.uuid4().hex[:10]}"
        config = tpb.TournamentConfig(**{**base, **fields})
        request = tpb.CreateTournamentRequest(tournament_id=tid, config=config, idempotency_key="c")
        self.tools("CreateTournament", request)
        return tid

    def guest(self, name: str) -> tuple[str, str]:
        """A guest's token and player id, through the gateway."""
        with grpc.insecure_channel(self.gateway.address) as channel:
            stub = gateway_pb2_grpc.GatewayServiceStub(channel)
            login = stub.GuestLogin(gateway_pb2.GuestLoginRequest(display_name=name), timeout=30)
        return login.token, login.player.player_id

    def balance(self, player_id: str) -> int:
        return int(self.lobby.wallet(player_id).balance)

    def summary(self, tid: str) -> tpb.TournamentSummary:
        answer = self.tools("GetTournament", tpb.GetTournamentRequest(tournament_id=tid))
        summary: tpb.TournamentSummary = answer.tournament.summary
        return summary


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, redis_url: str) -> Iterator[Stack]:
    with tournament_stack(tmp_path_factory.mktemp("gateway-tournaments"), redis_url) as started:
        yield started


@contextlib.contextmanager
def tournament_stack(
    log_dir: Path, redis_url: str, gateway_env: dict[str, str] | None = None
) -> Iterator[Stack]:
    """The stack's processes, the gateway with ``gateway_env`` added (the web client's HTTP
    port: tests/web/test_browser_tournaments.py)."""
    with infra.nats_backend() as nats_server:
        lobby = LobbyStack(
            log_dir, nats_server.url, redis_url, lobby_env={"HOLDEM_TOKEN_KEYS": KEYS}
        )
        started: list[ServiceProcess] = []
        try:
            lobby.start_table()
            lobby.start_lobby()
            infra_env = {"HOLDEM_NATS_URL": nats_server.url, "HOLDEM_REDIS_URL": redis_url}
            peers = {
                "HOLDEM_TABLE_ADDR": f"127.0.0.1:{lobby.table_port}",
                "HOLDEM_LOBBY_ADDR": f"127.0.0.1:{lobby.lobby_port}",
            }
            tournament = launch_service(
                "tournament",
                log_dir,
                {
                    **infra_env,
                    **peers,
                    "HOLDEM_TOURNAMENT_LEASE_TTL_SECONDS": "5",
                    "HOLDEM_TOURNAMENT_DIRECTOR_POLL_SECONDS": "0.2",
                    "HOLDEM_TOURNAMENT_SAGA_RESUME_SECONDS": "1",
                    "HOLDEM_RPC_TIMEOUT_SECONDS": "3",
                },
            ).wait_serving()
            started.append(tournament)
            gateway = start_service(
                "gateway",
                log_dir,
                {
                    **infra_env,
                    **peers,
                    "HOLDEM_TOURNAMENT_ADDR": tournament.address,
                    "HOLDEM_TOKEN_KEYS": KEYS,
                    "HOLDEM_GATEWAY_TOURNAMENT_POLL_SECONDS": "0.2",
                    "HOLDEM_GATEWAY_RATE_BURST": "1000",
                    **(gateway_env or {}),
                },
            )
            started.append(gateway)
            yield Stack(lobby, tournament, gateway)
        finally:
            for process in reversed(started):
                process.kill()
            lobby.kill()


def eventually(check: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


class Player:
    """One player's calls through the gateway (a blocking channel)."""

    def __init__(self, stack: Stack, name: str) -> None:
        self.stack = stack
        self.token, self.player_id = stack.guest(name)

    def call(self, method: str, request: Any, token: str | None = None) -> Any:
        with grpc.insecure_channel(self.stack.gateway.address) as channel:
            stub = gateway_pb2_grpc.GatewayServiceStub(channel)
            metadata = bearer(self.token if token is None else token) if token != "" else ()
            return getattr(stub, method)(request, metadata=metadata, timeout=30)

    def refused(self, method: str, request: Any, token: str | None = None) -> grpc.RpcError:
        with pytest.raises(grpc.RpcError) as caught:
            self.call(method, request, token)
        assert caught.value.details(), method
        return caught.value

    def register(self, tid: str, key: str = "") -> Any:
        return gateway_pb2.RegisterTournamentRequest(
            tournament_id=tid, idempotency_key=key or uuid.uuid4().hex
        )

    def unregister(self, tid: str, key: str = "") -> Any:
        return gateway_pb2.UnregisterTournamentRequest(
            tournament_id=tid, idempotency_key=key or uuid.uuid4().hex
        )
