"""The red team's lobby findings (issue 9: bad input gets a clear error and changes nothing),
against a real lobby and table service on NATS and Redis: a CreateTable whose derived buy-ins
nobody could pay is refused naming the client's field and lists nothing, grants nothing; a
JoinTable the lobby can tell is wrong writes nothing to the ledger."""

from __future__ import annotations

import asyncio
import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from redis.asyncio import Redis

from libs.devstack import RedisServer, start_redis
from libs.devstack.identity import channel_as
from libs.platform.callers import CLIENT_ADDRESS_HEADER
from services.lobby.limits import LoginLimiter, TooManyAttempts
from tests import infra
from tests.services.conftest import Starter
from tests.services.lobby_stack import CONFIG, LobbyStack, eventually, lobby_stack, retry

pytestmark = pytest.mark.integration

EASY = common_pb2.BOT_DIFFICULTY_EASY


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


def _login_from(stack: LobbyStack, address: str, username: str, password: str) -> Any:
    """A Login as the gateway sends it for a player at ``address``."""
    with channel_as(f"127.0.0.1:{stack.lobby_port}", "gateway") as channel:
        return lobby_pb2_grpc.LobbyServiceStub(channel).Login(
            lobby_pb2.LoginRequest(username=username, password=password),
            metadata=((CLIENT_ADDRESS_HEADER, address),),
            timeout=15,
        )


def test_wrong_passwords_from_one_address_never_lock_the_owner_out(stack: LobbyStack) -> None:
    """lockout.py: five wrong passwords for a username, and the owner's right password was
    refused RESOURCE_EXHAUSTED for 299 s, again and again. The attacker's address is stopped;
    the owner, from their own address, is not; and one address guessing over many usernames is
    stopped by the per-address count."""
    attacker, owner = f"203.0.113.{uuid.uuid4().int % 250}", f"198.51.100.{uuid.uuid4().int % 250}"
    victim = stack.register()
    password = f"pw-{victim.username}-long"
    for _ in range(5):
        _refused(
            lambda: _login_from(stack, attacker, victim.username, "wrong-pass-xyz"),
            grpc.StatusCode.UNAUTHENTICATED,
        )
    stopped = _refused(
        lambda: _login_from(stack, attacker, victim.username, "wrong-pass-xyz"),
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    )
    assert _code(stopped) == "TOO_MANY_LOGIN_FAILURES"
    assert _login_from(stack, owner, victim.username, password).player.player_id == (
        victim.player_id
    )
    # the owner's success does not let the attacker's address guess again
    _refused(
        lambda: _login_from(stack, attacker, victim.username, password),
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    )


def test_login_guessing_stays_bounded_per_address_and_per_username(redis_url: str) -> None:
    """The limiter on a real Redis, small limits: one address guesses at most ``per_username``
    times at one account and ``per_peer`` times over all; addresses guessing together at one
    account get at most ``per_username_total`` guesses plus one per address, and the owner from
    an address that did not fail still gets to try."""

    async def scenario() -> None:
        redis = Redis.from_url(redis_url)
        limiter = LoginLimiter(
            redis, per_username=3, per_peer=5, per_username_total=6, window_seconds=60
        )
        run = uuid.uuid4().hex[:8]

        async def guesses(username: str, address: str) -> int:
            """Wrong passwords until the limiter refuses; how many it let through."""
            made = 0
            while made < 50:
                try:
                    await limiter.check(username, address)
                except TooManyAttempts:
                    return made
                await limiter.failed(username, address)
                made += 1
            return made

        try:
            alone, elsewhere = f"a-{run}", f"b-{run}"
            assert await guesses(f"u-{run}", alone) == 3
            await limiter.check(f"u-{run}", elsewhere)  # the owner elsewhere may try
            assert await guesses(f"v-{run}", alone) == 2  # 5 from this address in all
            with pytest.raises(TooManyAttempts):
                await limiter.check(f"new-{run}", alone)

            spread = [await guesses(f"w-{run}", f"d{i}-{run}") for i in range(10)]
            assert spread == [3, 3, 1, 1, 1, 1, 1, 1, 1, 1]  # 6 in all, then one per address
            await limiter.check(f"w-{run}", f"owner-{run}")  # never failed: may try
            with pytest.raises(TooManyAttempts):
                await limiter.check(f"w-{run}", f"d0-{run}")
            # a success from an address clears that address's count for that username only
            await limiter.succeeded(f"u-{run}", alone)
            with pytest.raises(TooManyAttempts):
                await limiter.check(f"u-{run}", alone)  # the address is still over per_peer
        finally:
            await redis.aclose()

    asyncio.run(scenario())


@pytest.fixture
def limited(tmp_path: Path, redis_url: str) -> Iterator[LobbyStack]:
    """A lobby with small limits on what one address or player may create."""
    with infra.nats_backend() as nats_server:
        stack = LobbyStack(
            tmp_path,
            nats_server.url,
            redis_url,
            lobby_env={
                "HOLDEM_LOBBY_GUESTS_PER_ADDRESS": "3",
                "HOLDEM_LOBBY_GUEST_WINDOW_SECONDS": "600",
                "HOLDEM_LOBBY_OPEN_TABLES_PER_PLAYER": "2",
                "HOLDEM_LOBBY_HOUSE_AI_MAX_BUY_IN": "500",
            },
        )
        try:
            stack.start_table()
            stack.start_lobby()
            yield stack
        finally:
            stack.kill()


def _guest_from(stack: LobbyStack, address: str) -> Any:
    with channel_as(f"127.0.0.1:{stack.lobby_port}", "gateway") as channel:
        return lobby_pb2_grpc.LobbyServiceStub(channel).GuestLogin(
            lobby_pb2.GuestLoginRequest(display_name="g"),
            metadata=((CLIENT_ADDRESS_HEADER, address),),
            timeout=15,
        )


def test_guests_are_limited_per_client_address(limited: LobbyStack) -> None:
    """guests.py: one address created 46 guests a second (each an account, a wallet and its
    grant, and its own rate-limit bucket at the gateway)."""
    here, there = (f"192.0.2.{uuid.uuid4().int % 250}-{uuid.uuid4().hex[:6]}" for _ in range(2))
    for _ in range(3):
        assert _guest_from(limited, here).token
    refusal = _refused(lambda: _guest_from(limited, here), grpc.StatusCode.RESOURCE_EXHAUSTED)
    assert _code(refusal) == "TOO_MANY_GUESTS"
    trailing: Any = refusal.trailing_metadata() or ()
    metadata = dict(trailing)
    assert 0 < int(metadata["grpc-retry-pushback-ms"]) <= 600_000
    assert _guest_from(limited, there).token  # another address is not held up


def _register_from(stack: LobbyStack, address: str) -> Any:
    with channel_as(f"127.0.0.1:{stack.lobby_port}", "gateway") as channel:
        return lobby_pb2_grpc.LobbyServiceStub(channel).RegisterPlayer(
            lobby_pb2.RegisterPlayerRequest(
                username=f"r{uuid.uuid4().hex[:12]}", password="Zq8-vLmw-long-enough"
            ),
            metadata=((CLIENT_ADDRESS_HEADER, address),),
            timeout=15,
        )


def test_registrations_are_limited_per_client_address(limited: LobbyStack) -> None:
    """rt2/register_flood.py: with guests limited per address, one address still registered
    40 accounts in 1.5 s through the gateway (each the same free account, wallet and grant as
    a guest, and 10 more open tables), so the guest limit bounded nothing. Registrations from
    clients are counted per address apart from guests; tools (operators) are not counted."""
    here, there = (f"198.51.100.{uuid.uuid4().int % 250}-{uuid.uuid4().hex[:6]}" for _ in range(2))
    for _ in range(3):
        assert _register_from(limited, here).player.player_id
    refusal = _refused(lambda: _register_from(limited, here), grpc.StatusCode.RESOURCE_EXHAUSTED)
    assert _code(refusal) == "TOO_MANY_ACCOUNTS"
    trailing: Any = refusal.trailing_metadata() or ()
    assert 0 < int(dict(trailing)["grpc-retry-pushback-ms"]) <= 600_000
    assert _guest_from(limited, here).token  # guests are counted apart
    assert _register_from(limited, there).player.player_id  # another address is not held up
    for _ in range(4):
        assert limited.register().player_id  # tools: not a client's registration


def test_a_player_may_keep_only_so_many_tables_open(limited: LobbyStack) -> None:
    """tablespam.py: one guest created 600 tables in 15 s; each stays open at the table
    service. Closing one makes room for another."""
    owner = limited.register()
    first, _ = limited.create_table(owner.player_id), limited.create_table(owner.player_id)
    refusal = _refused(
        lambda: limited.create_table(owner.player_id), grpc.StatusCode.FAILED_PRECONDITION
    )
    assert _code(refusal) == "TOO_MANY_OPEN_TABLES"
    assert len(_tables(limited)) == 2
    limited.lobby_call(
        "CloseTable",
        lobby_pb2.CloseTableRequest(table_id=first, requested_by_player_id=owner.player_id),
    )

    def closed() -> bool:
        found = limited.lobby_call("GetTable", lobby_pb2.GetTableRequest(table_id=first))
        return bool(found.table.status == common_pb2.TABLE_STATUS_CLOSED)

    eventually(closed, what="the table closed")
    assert limited.create_table(owner.player_id)


def test_house_ais_bring_at_most_the_house_limit(limited: LobbyStack) -> None:
    """A table with AIs and a max buy-in of 10**12 had the house mint 10**12 chips per AI, for
    its creator to win from EASY AIs. With the house limit at 500, an AI at a table whose max
    buy-in is 1,000 brings 500; a table whose min buy-in is above the limit gets no AIs."""
    owner = limited.register()
    wire = common_pb2.TableConfig()
    wire.CopyFrom(CONFIG)
    wire.min_players_to_start = 3  # no hand: the AI's buy-in stays as it was
    created = limited.lobby_call(
        "CreateTable",
        lobby_pb2.CreateTableRequest(
            name="ai", config=wire, created_by_player_id=owner.player_id, bots=[EASY]
        ),
        timeout=30,
    )
    buy_ins = [
        e.amount for e in limited.ledger("ai-easy-1") if e.table_id == created.table.table_id
    ]
    assert buy_ins == [-500]
    wire.min_buy_in = 600
    refusal = _refused(
        lambda: limited.lobby_call(
            "CreateTable",
            lobby_pb2.CreateTableRequest(
                name="no ai", config=wire, created_by_player_id=owner.player_id, bots=[EASY]
            ),
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert _code(refusal) == "INVALID_BOTS"
    assert _tables(limited) == [created.table.table_id]
    assert limited.audit().holds


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    with start_redis() as server:
        yield server


def test_a_hung_redis_makes_login_unavailable_at_once(
    start: Starter, nats_url: str, own_redis: RedisServer
) -> None:
    """redishang.py: with Redis stopped (SIGSTOP: connections open, nothing answers) Login
    waited out the caller's deadline (DEADLINE_EXCEEDED after 5 s through the gateway): the
    lobby's Redis client had no socket timeout. Now UNAVAILABLE within a few seconds, wallets
    (NATS) still answer, and logins work again once Redis does."""
    lobby = start("lobby", {"HOLDEM_NATS_URL": nats_url, "HOLDEM_REDIS_URL": own_redis.url})
    name = f"hang{uuid.uuid4().hex[:8]}"
    with channel_as(lobby.address) as channel:
        stub = lobby_pb2_grpc.LobbyServiceStub(channel)
        request = lobby_pb2.RegisterPlayerRequest(username=name, password="correct horse")
        player = stub.RegisterPlayer(request, timeout=15).player
        login = lobby_pb2.LoginRequest(username=name, password="correct horse")
        assert stub.Login(login, timeout=15).token
        os.kill(own_redis.pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            with pytest.raises(grpc.RpcError) as caught:
                stub.Login(login, timeout=20)
            took = time.monotonic() - started
            assert caught.value.code() == grpc.StatusCode.UNAVAILABLE, caught.value.details()
            assert took < 3.5, took  # the Redis timeout (2 s), well inside a 5 s deadline
            assert len(str(caught.value.details())) < 100
            wallet = stub.GetWallet(
                lobby_pb2.GetWalletRequest(player_id=player.player_id), timeout=10
            )
            assert wallet.wallet.balance > 0
        finally:
            os.kill(own_redis.pid, signal.SIGCONT)
        assert retry(lambda: stub.Login(login, timeout=15), timeout=30).token
