"""Buy-ins and cash-outs exactly once while the lobby and the table service are SIGKILLed: a lobby
killed with a buy-in half done finishes it when it is back, and a chaos run killing both at
random points ends with every saga finished and every chip accounted for (issue 13)."""

from __future__ import annotations

import os
import random
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest
from holdem.lobby.v1 import lobby_pb2

from tests.services.lobby_stack import GRANT, LobbyStack, eventually, lobby_stack, retry

pytestmark = pytest.mark.integration


@pytest.fixture
def stack(tmp_path: Path, redis_url: str) -> Iterator[LobbyStack]:
    with lobby_stack(tmp_path, redis_url) as running:
        yield running


def test_a_lobby_killed_with_a_buy_in_half_done_finishes_it(stack: LobbyStack) -> None:
    alice = stack.register()
    table = stack.create_table(alice.player_id, min_players_to_start=3)
    assert stack.table is not None and stack.lobby is not None
    os.kill(stack.table.pid, signal.SIGSTOP)  # the table takes the seat request, answers nothing
    try:
        request = lobby_pb2.JoinTableRequest(
            player_id=alice.player_id, table_id=table, buy_in=300, idempotency_key="half-done"
        )
        with pytest.raises(grpc.RpcError) as pending:
            stack.lobby_call("JoinTable", request)  # once, no retry
        assert pending.value.code() == grpc.StatusCode.UNAVAILABLE
        wallet = stack.wallet(alice.player_id)
        assert (wallet.balance, wallet.reserved) == (GRANT - 300, 300)
        stack.lobby.kill()
    finally:
        os.kill(stack.table.pid, signal.SIGCONT)
    stack.start_lobby()

    def seated() -> bool:
        wallet = stack.wallet(alice.player_id)
        return wallet.reserved == 0 and wallet.on_tables == 300

    eventually(seated, what="the process manager to finish the buy-in")
    again = retry(lambda: stack.join(alice.player_id, table, 300, key="half-done"))
    assert again.stack == 300
    assert stack.wallet(alice.player_id).balance == GRANT - 300
    audit = stack.audit()
    assert audit.holds and audit.open_sagas == 0 and audit.seated_players == 1, audit


def test_sagas_survive_random_kills_of_the_lobby_and_the_table(stack: LobbyStack) -> None:
    rng = random.Random(int(os.environ.get("HOLDEM_TEST_CHAOS_SEED", "13")))
    players = [stack.register(bot=True) for _ in range(4)]
    table = stack.create_table(players[0].player_id)
    stop = threading.Event()
    failures: list[BaseException] = []
    joins: dict[str, list[str]] = {p.player_id: [] for p in players}

    def calls(player_id: str, key: str, amount: int) -> list[Callable[[], object]]:
        return [
            lambda: stack.join(player_id, table, amount, key=key),
            lambda: stack.leave(player_id, table, key=f"leave-{key}"),
        ]

    def play(player_id: str) -> None:
        """Join and leave again and again; every call retried with its key until answered."""
        while not stop.is_set():
            key = uuid.uuid4().hex
            joins[player_id].append(key)
            for call in calls(player_id, key, rng.choice((100, 150, 200))):
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    try:
                        call()
                        break
                    except grpc.RpcError as exc:
                        code = exc.code()
                        if code in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.NOT_FOUND):
                            break  # e.g. not seated any more: the next round
                        if code not in (
                            grpc.StatusCode.UNAVAILABLE,
                            grpc.StatusCode.DEADLINE_EXCEEDED,
                            grpc.StatusCode.ABORTED,
                        ):
                            failures.append(exc)
                            return
                    time.sleep(0.05)

    threads = [threading.Thread(target=play, args=(p.player_id,)) for p in players]
    for thread in threads:
        thread.start()
    try:
        for _ in range(6):
            time.sleep(rng.uniform(0.2, 1.5))
            victim = rng.choice(("lobby", "table", "both"))
            if victim in ("lobby", "both") and stack.lobby is not None:
                stack.lobby.kill()
            if victim in ("table", "both") and stack.table is not None:
                stack.table.kill()
            if victim in ("table", "both"):
                stack.start_table()
            if victim in ("lobby", "both"):
                stack.start_lobby()
    finally:
        stop.set()
        for thread in threads:  # a call is retried for up to 60 s: two of them per round
            thread.join(timeout=300)
    # a thread still calling would buy in after the final leaves and the audit below (it did:
    # chips were on the table again when the wallets were summed)
    assert not any(thread.is_alive() for thread in threads), "a player's calls never ended"
    assert not failures, failures

    # Every player leaves; then nothing is open, nothing is on the table, nothing was lost.
    for player in players:
        for _ in range(3):
            try:
                retry(lambda p=player: stack.leave(p.player_id, table))  # type: ignore[misc]
            except grpc.RpcError as exc:
                assert exc.code() == grpc.StatusCode.FAILED_PRECONDITION, exc
                break

    def settled() -> bool:
        audit = stack.audit()
        assert audit.holds, audit
        return audit.open_sagas == 0 and audit.on_tables == 0 and audit.in_flight == 0

    eventually(settled, timeout=90, what="every saga and cash-out to finish")
    total = sum(stack.wallet(p.player_id).balance for p in players)
    if total != len(players) * GRANT:  # say where the chips went (seen once under load)
        lines = [str(stack.audit())]
        for p in players:
            lines.append(f"{p.player_id[:8]}: {stack.wallet(p.player_id)}".replace("\n", " "))
            lines += [
                f"  {e.kind} {e.amount:+d} -> {e.balance_after} {e.reference}".replace("\n", " ")
                for e in stack.ledger(p.player_id)
            ]
        raise AssertionError(
            f"wallets hold {total}, not {len(players) * GRANT}:\n" + "\n".join(lines)
        )
    for player in players:
        ledger = stack.ledger(player.player_id)
        assert ledger[-1].balance_after == stack.wallet(player.player_id).balance
        buy_ins = [e.reference for e in ledger if e.amount < 0]
        assert len(buy_ins) == len(set(buy_ins))  # one charge per saga
