"""A lobby and a table service as real processes on a NATS of their own (so every test's lobby
sees only its own players, tables and consumers), with helpers to register, buy in, play through
the table directly and audit."""

from __future__ import annotations

import socket
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import grpc
from holdem.common.v1 import common_pb2
from holdem.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from holdem.table.v1 import table_pb2

from libs.devstack.identity import channel_as
from libs.devstack.tablestub import table_as
from tests import infra
from tests.services.conftest import ServiceProcess, launch_service

T = TypeVar("T")
GRANT = 10_000
CONFIG = common_pb2.TableConfig(
    variant=common_pb2.VARIANT_HOLDEM,
    betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
    max_seats=6,
    small_blind=1,
    big_blind=2,
    action_clock_seconds=30,
    min_players_to_start=2,
    min_buy_in=40,
    max_buy_in=1000,
)
RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class LobbyStack:
    log_dir: Path
    nats_url: str
    redis_url: str
    table_port: int = field(default_factory=free_port)
    lobby_port: int = field(default_factory=free_port)
    table: ServiceProcess | None = None
    lobby: ServiceProcess | None = None
    lobby_env: dict[str, str] = field(default_factory=dict)

    # ---- processes ----

    def start_table(self) -> ServiceProcess:
        self.table = launch_service(
            "table",
            self.log_dir,
            {
                "HOLDEM_NATS_URL": self.nats_url,
                "HOLDEM_REDIS_URL": self.redis_url,
                "HOLDEM_LISTEN": f"127.0.0.1:{self.table_port}",
                "HOLDEM_TABLE_DEALER": "local",
                "HOLDEM_TABLE_EVALUATOR": "local",
                "HOLDEM_TABLE_LEASE_TTL_SECONDS": "0.5",
            },
        ).wait_serving()
        return self.table

    def start_lobby(self) -> ServiceProcess:
        self.lobby = launch_service(
            "lobby",
            self.log_dir,
            {
                "HOLDEM_NATS_URL": self.nats_url,
                "HOLDEM_REDIS_URL": self.redis_url,
                "HOLDEM_LISTEN": f"127.0.0.1:{self.lobby_port}",
                "HOLDEM_TABLE_ADDR": f"127.0.0.1:{self.table_port}",
                "HOLDEM_LOBBY_STARTING_CHIPS": str(GRANT),
                "HOLDEM_LOBBY_SAGA_RESUME_SECONDS": "0.5",
                "HOLDEM_LOBBY_LEAVE_WAIT_SECONDS": "5",
                "HOLDEM_RPC_TIMEOUT_SECONDS": "3",
                **self.lobby_env,
            },
        ).wait_serving()
        return self.lobby

    def kill(self) -> None:
        for process in (self.lobby, self.table):
            if process is not None:
                process.kill()

    # ---- calls ----

    def lobby_call(self, method: str, request: Any, timeout: float = 15.0) -> Any:
        with channel_as(f"127.0.0.1:{self.lobby_port}") as channel:
            stub = lobby_pb2_grpc.LobbyServiceStub(channel)
            return getattr(stub, method)(request, timeout=timeout)

    def table_call(self, method: str, request: Any, timeout: float = 15.0) -> Any:
        with table_as(f"127.0.0.1:{self.table_port}") as stub:
            return getattr(stub, method)(request, timeout=timeout)

    def register(self, name: str = "", bot: bool = False) -> lobby_pb2.Player:
        """A new player; a bot (``bot``) is played by the table itself once seated."""
        name = name or f"p{uuid.uuid4().hex[:10]}"
        response = self.lobby_call(
            "RegisterPlayer",
            lobby_pb2.RegisterPlayerRequest(username=name, password=f"pw-{name}-long", is_bot=bot),
        )
        player: lobby_pb2.Player = response.player
        return player

    def hands_started(self, table_id: str) -> int:
        return int(self.view(table_id).hand_number)

    def seated_with_chips(self, table_id: str) -> int:
        """Seats whose player has chips behind or in front (an all-in counts until it busts)."""
        view = self.view(table_id)
        return sum(1 for s in view.seats if s.player_id and (s.stack or s.committed))

    def create_table(self, owner: str, **config: int) -> str:
        wire = common_pb2.TableConfig()
        wire.CopyFrom(CONFIG)
        for key, value in config.items():
            setattr(wire, key, value)
        response = self.lobby_call(
            "CreateTable",
            lobby_pb2.CreateTableRequest(name="t", config=wire, created_by_player_id=owner),
        )
        return str(response.table.table_id)

    def join(self, player_id: str, table_id: str, buy_in: int, key: str = "") -> Any:
        """Buy in; retried with the same key while the answer is UNAVAILABLE (a slow table: the
        saga completes and the retry gets its outcome), as a client is told to."""
        request = lobby_pb2.JoinTableRequest(
            player_id=player_id,
            table_id=table_id,
            buy_in=buy_in,
            idempotency_key=key or uuid.uuid4().hex,
        )
        return retry(lambda: self.lobby_call("JoinTable", request))

    def leave(self, player_id: str, table_id: str, key: str = "") -> Any:
        request = lobby_pb2.LeaveTableRequest(
            player_id=player_id, table_id=table_id, idempotency_key=key or uuid.uuid4().hex
        )
        return retry(lambda: self.lobby_call("LeaveTable", request))

    def wallet(self, player_id: str) -> lobby_pb2.Wallet:
        response = self.lobby_call("GetWallet", lobby_pb2.GetWalletRequest(player_id=player_id))
        wallet: lobby_pb2.Wallet = response.wallet
        return wallet

    def ledger(self, player_id: str) -> list[lobby_pb2.LedgerEntry]:
        response = self.lobby_call(
            "ListLedger", lobby_pb2.ListLedgerRequest(player_id=player_id, page_size=1000)
        )
        return list(response.entries)

    def audit(self) -> lobby_pb2.AuditChipsResponse:
        audit: lobby_pb2.AuditChipsResponse = self.lobby_call(
            "AuditChips", lobby_pb2.AuditChipsRequest(), timeout=60
        )
        return audit

    def view(self, table_id: str, player_id: str = "") -> common_pb2.PlayerView:
        response = self.table_call(
            "GetPlayerView",
            table_pb2.GetPlayerViewRequest(table_id=table_id, player_id=player_id),
        )
        view: common_pb2.PlayerView = response.view
        return view

    def play_one_action(self, table_id: str, fold: bool = False) -> bool:
        """The acting seat checks or calls (or folds); False when nobody is to act."""
        state = self.view(table_id)
        if not state.HasField("acting_seat") or not state.hand_id:
            return False
        actor = next(s.player_id for s in state.seats if s.seat == state.acting_seat)
        view = self.view(table_id, actor)
        legal = view.legal_actions
        if fold and legal.can_fold:
            action = common_pb2.ACTION_TYPE_FOLD
        elif legal.can_check:
            action = common_pb2.ACTION_TYPE_CHECK
        elif legal.can_call:
            action = common_pb2.ACTION_TYPE_CALL
        else:
            action = common_pb2.ACTION_TYPE_FOLD
        try:
            self.table_call(
                "SubmitAction",
                table_pb2.SubmitActionRequest(
                    table_id=table_id,
                    hand_id=view.hand_id,
                    player_id=actor,
                    action=action,
                    idempotency_key=uuid.uuid4().hex,
                ),
            )
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.FAILED_PRECONDITION:  # lost a race with the clock
                raise
        return True


def eventually(check: Callable[[], T | None], timeout: float = 30.0, what: str = "") -> T:
    """Poll ``check`` until it returns something truthy (conditions, not sleeps)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            result = check()
        except grpc.RpcError as exc:
            if exc.code() not in RETRYABLE:
                raise
            result = None
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or check}")
        time.sleep(0.05)


def retry(call: Callable[[], T], timeout: float = 60.0) -> T:
    """``call`` until it does not fail UNAVAILABLE / DEADLINE_EXCEEDED (services restarting)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return call()
        except grpc.RpcError as exc:
            if exc.code() not in RETRYABLE or time.monotonic() > deadline:
                raise
        time.sleep(0.1)


@contextmanager
def lobby_stack(log_dir: Path, redis_url: str) -> Iterator[LobbyStack]:
    with infra.nats_backend() as nats_server:
        stack = LobbyStack(log_dir, nats_server.url, redis_url)
        try:
            stack.start_table()
            stack.start_lobby()
            yield stack
        finally:
            stack.kill()
