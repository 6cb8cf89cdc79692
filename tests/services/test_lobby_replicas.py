"""Several lobby replicas at once on one NATS and one Redis (docs/lobby.md, "Several replicas"):
clients register, buy in, leave and are cashed out through every replica in turn while another
client audits the chips through any of them, and one replica is SIGKILLed mid-way (and started
again later); in the end the chip invariant holds exactly, no saga is open, no table commit was
credited twice, and login limits, tokens and the catalogue are the same whichever replica
answers."""

from __future__ import annotations

import asyncio
import base64
import itertools
import random
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.lobby.v1 import lobby_pb2

from libs.eventstore.kvkeys import all_keys
from libs.eventstore.projection import PUBLIC_STREAM
from libs.platform.natsconn import close_nats, connect_nats
from services.lobby.cashout import CONSUMER
from tests import infra
from tests.services.lobby_stack import CONFIG, GRANT, LobbyStack, eventually

pytestmark = pytest.mark.integration

REPLICAS = 3
PLAYERS = 6
FAILURES_PER_USER = 3
ENV = {
    "HOLDEM_TOKEN_KEYS": "k1:" + base64.b64encode(secrets.token_bytes(32)).decode(),
    "HOLDEM_LOBBY_LOGIN_FAILURES_PER_USER": str(FAILURES_PER_USER),
}
# a replica was killed (its connection fails), or a store or the table was slow: the same call
# again, with the same key, on the next replica
FAILOVER = (
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.ABORTED,
)


class Lobbies:
    """The replicas and which of them are alive; calls go to a chosen replica and fail over."""

    def __init__(self, stacks: list[LobbyStack]) -> None:
        self.stacks = stacks
        self.dead: set[int] = set()
        self.served = [0] * len(stacks)
        self._lock = threading.Lock()

    def alive(self) -> list[int]:
        with self._lock:
            return [i for i in range(len(self.stacks)) if i not in self.dead]

    def kill(self, index: int) -> None:
        with self._lock:
            self.dead.add(index)
        process = self.stacks[index].lobby
        assert process is not None
        process.kill()

    def revive(self, index: int) -> None:
        self.stacks[index].start_lobby()
        with self._lock:
            self.dead.discard(index)

    def call(self, first: int, method: str, request: Any, timeout: float = 90.0) -> Any:
        """``method`` on replica ``first`` (or the next live one), retried on the next live
        replica while it fails over."""
        deadline = time.monotonic() + timeout
        for turn in itertools.count():
            live = self.alive()
            index = live[(first + turn) % len(live)]
            try:
                answer = self.stacks[index].lobby_call(method, request)
            except grpc.RpcError as exc:
                if exc.code() not in FAILOVER or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
                continue
            with self._lock:
                self.served[index] += 1
            return answer
        raise AssertionError("unreachable")


@pytest.fixture
def lobbies(tmp_path: Path, redis_url: str) -> Iterator[Lobbies]:
    with infra.nats_backend() as nats_server:
        first = LobbyStack(tmp_path, nats_server.url, redis_url, lobby_env=dict(ENV))
        stacks = [first]
        try:
            first.start_table()
            first.start_lobby()
            for _ in range(REPLICAS - 1):
                other = LobbyStack(
                    tmp_path,
                    nats_server.url,
                    redis_url,
                    table_port=first.table_port,
                    lobby_env=dict(ENV),
                )
                stacks.append(other)
                other.start_lobby()
            yield Lobbies(stacks)
        finally:
            for stack in stacks:
                stack.kill()


def _refused(call: Callable[[], object], code: grpc.StatusCode) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as refused:
        call()
    assert refused.value.code() == code, refused.value
    return refused.value


def test_replicas_share_login_limits_tokens_and_the_catalogue(lobbies: Lobbies) -> None:
    a, b, c = lobbies.stacks
    name = f"dora{uuid.uuid4().hex[:8]}"
    player = a.register(name)

    def login(stack: LobbyStack, password: str) -> lobby_pb2.LoginResponse:
        return stack.lobby_call(  # type: ignore[no-any-return]
            "Login", lobby_pb2.LoginRequest(username=name, password=password)
        )

    # A token from one replica is good at every other (same keys); a logout anywhere revokes it.
    session = login(b, f"pw-{name}-long")
    who = c.lobby_call("Authenticate", lobby_pb2.AuthenticateRequest(token=session.token))
    assert who.player.player_id == player.player_id
    a.lobby_call("Logout", lobby_pb2.LogoutRequest(token=session.token))
    _refused(
        lambda: c.lobby_call("Authenticate", lobby_pb2.AuthenticateRequest(token=session.token)),
        grpc.StatusCode.UNAUTHENTICATED,
    )

    # One failed login at each replica: together they reach the limit, so every replica refuses
    # even the right password (each alone has seen fewer than the limit).
    for stack in (a, b, c)[:FAILURES_PER_USER]:
        _refused(lambda s=stack: login(s, "wrong-password"), grpc.StatusCode.UNAUTHENTICATED)  # type: ignore[misc]
    for stack in (a, b, c):
        limited = _refused(
            lambda s=stack: login(s, f"pw-{name}-long"),  # type: ignore[misc]
            grpc.StatusCode.RESOURCE_EXHAUSTED,
        )
        assert "retry in" in (limited.details() or "")

    # A table listed at one replica is listed by every replica (each follows the catalogue).
    table = a.create_table(player.player_id)

    def listed_everywhere() -> bool:
        for stack in (a, b, c):
            tables = stack.lobby_call("ListTables", lobby_pb2.ListTablesRequest()).tables
            if table not in {t.table_id for t in tables}:
                return False
        return True

    eventually(listed_everywhere, timeout=15, what="every replica to list the new table")
    closed = c.lobby_call(
        "CloseTable",
        lobby_pb2.CloseTableRequest(table_id=table, requested_by_player_id=player.player_id),
    )
    assert closed.table.table_id == table

    def closed_everywhere() -> bool:
        return all(
            s.lobby_call("GetTable", lobby_pb2.GetTableRequest(table_id=table)).table.status
            == common_pb2.TABLE_STATUS_CLOSED
            for s in (a, b, c)
        )

    eventually(closed_everywhere, timeout=15, what="every replica to see the table closed")


def test_buy_ins_and_cash_outs_through_every_replica_with_one_killed(lobbies: Lobbies) -> None:
    rng = random.Random(int(time.time()))
    players = [
        lobbies.stacks[i % REPLICAS].register(f"bot{uuid.uuid4().hex[:8]}", bot=True)
        for i in range(PLAYERS)
    ]
    wire = common_pb2.TableConfig()
    wire.CopyFrom(CONFIG)
    table = lobbies.call(
        1,
        "CreateTable",
        lobby_pb2.CreateTableRequest(
            name="replicas", config=wire, created_by_player_id=players[0].player_id
        ),
    ).table.table_id
    stop = threading.Event()
    failures: list[BaseException] = []
    rounds = itertools.count()
    done = [0]
    audits: list[lobby_pb2.AuditChipsResponse] = []

    def play(number: int, player_id: str) -> None:
        """Buy in through one replica, leave through the next, round after round."""
        try:
            while not stop.is_set():
                turn = next(rounds)
                key = uuid.uuid4().hex
                join = lobby_pb2.JoinTableRequest(
                    player_id=player_id,
                    table_id=table,
                    buy_in=rng.choice((100, 150, 200)),
                    idempotency_key=key,
                )
                leave = lobby_pb2.LeaveTableRequest(
                    player_id=player_id, table_id=table, idempotency_key=f"leave-{key}"
                )
                for offset, (method, request) in enumerate(
                    (("JoinTable", join), ("LeaveTable", leave))
                ):
                    try:
                        lobbies.call(number + turn + offset, method, request)
                    except grpc.RpcError as exc:
                        if exc.code() not in (
                            grpc.StatusCode.FAILED_PRECONDITION,
                            grpc.StatusCode.NOT_FOUND,
                        ):
                            raise  # refused: still seated, not seated any more: next round
                done[0] += 1
        except BaseException as exc:
            failures.append(exc)

    def audit_now_and_then() -> None:
        """The invariant holds at any moment, audited on one replica while the others move
        chips (the gate spans every replica)."""
        try:
            while not stop.is_set():
                audit = lobbies.call(
                    rng.randrange(REPLICAS), "AuditChips", lobby_pb2.AuditChipsRequest()
                )
                assert audit.holds, audit
                audits.append(audit)
                time.sleep(0.2)
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=play, args=(n, p.player_id)) for n, p in enumerate(players)]
    threads.append(threading.Thread(target=audit_now_and_then))
    for thread in threads:
        thread.start()
    try:
        eventually(lambda: done[0] >= 8 or failures, timeout=120, what="rounds before the kill")
        lobbies.kill(1)  # SIGKILL, whatever it was doing: a buy-in, a credit, an audit
        eventually(lambda: done[0] >= 18 or failures, timeout=180, what="rounds after the kill")
        lobbies.revive(1)  # back, while the others go on: it catches up from the streams
        eventually(lambda: done[0] >= 26 or failures, timeout=180, what="rounds after its return")
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=300)
    assert not any(thread.is_alive() for thread in threads), "a client's calls never ended"
    assert not failures, failures
    assert len(audits) >= 2, "no audit ran while chips moved"
    assert all(lobbies.served[i] > 0 for i in range(REPLICAS)), lobbies.served
    print(f"calls answered per replica {lobbies.served}, {len(audits)} audits, {done[0]} rounds")

    # Everyone leaves (through the survivors); then nothing is open or in flight anywhere.
    for number, player in enumerate(players):
        request = lobby_pb2.LeaveTableRequest(
            player_id=player.player_id, table_id=table, idempotency_key=uuid.uuid4().hex
        )
        for _ in range(3):  # a player in the hand in play leaves when it ends
            try:
                if not lobbies.call(number, "LeaveTable", request).leaving:
                    break
            except grpc.RpcError as exc:
                assert exc.code() == grpc.StatusCode.FAILED_PRECONDITION, exc
                break
            request.idempotency_key = uuid.uuid4().hex
            time.sleep(0.5)

    def settled() -> lobby_pb2.AuditChipsResponse | None:
        audit = lobbies.call(2, "AuditChips", lobby_pb2.AuditChipsRequest())
        assert audit.holds, audit
        quiet = audit.open_sagas == 0 and audit.on_tables == 0 and audit.in_flight == 0
        return audit if quiet and audit.seated_players == 0 else None

    final = eventually(settled, timeout=120, what="every saga and cash-out to finish")
    assert final.grants == PLAYERS * GRANT, final  # nobody was granted twice
    assert final.wallets + final.rake == final.grants, final

    # No table commit was credited twice, and each ledger adds up to its wallet.
    for number, player in enumerate(players):
        ledger = lobbies.call(
            number,
            "ListLedger",
            lobby_pb2.ListLedgerRequest(player_id=player.player_id, page_size=1000),
        ).entries
        cash_outs = [e.reference for e in ledger if e.kind == lobby_pb2.LEDGER_ENTRY_KIND_CASH_OUT]
        assert len(cash_outs) == len(set(cash_outs)), cash_outs
        wallet = lobbies.call(
            number, "GetWallet", lobby_pb2.GetWalletRequest(player_id=player.player_id)
        ).wallet
        assert sum(e.amount for e in ledger) == wallet.balance, ledger
        assert (wallet.reserved, wallet.on_tables) == (0, 0), wallet

    # No saga left in the index (an entry the killed replica wrote just before it would have
    # reserved is dropped by the process manager after a while), no public commit unacknowledged.
    nats_url = lobbies.stacks[0].nats_url
    eventually(
        lambda: asyncio.run(_open_sagas_and_unacked(nats_url)) == ([], 0),
        timeout=60,
        what="the saga index and the cash-out consumer to be empty",
    )


async def _open_sagas_and_unacked(nats_url: str) -> tuple[list[str], int]:
    nc = await connect_nats(nats_url, name="test")
    try:
        sagas = await all_keys(nc, "holdem_lobby_sagas")
        info = await nc.jetstream().consumer_info(PUBLIC_STREAM, CONSUMER)
        return sagas, int(info.num_pending or 0) + int(info.num_ack_pending or 0)
    finally:
        await close_nats(nc)
