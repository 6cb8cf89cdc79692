"""Redis holds only what can be rebuilt: with bots playing at two tables bought into through the
lobby, Redis is emptied (FLUSHALL, under the running services) or its snapshots corrupted
(while the lobby and the table service are down: SIGKILLed), and both start again, so each
must load every table, wallet and listing it serves from what Redis now holds and the streams.
Play goes on, the chip audit holds throughout, and when every player has left every chip is back
in its wallet: nothing Redis held was needed.

Corruption, snapshot by snapshot in turn: bytes that decode to nothing, a sequence that is no
number, a sequence far ahead of the stream (with the snapshot's own valid bytes); and garbage
planted where the lobby would keep each wallet's and listing's snapshot (it snapshots every 50
commits: these players have not made that many). Each is discarded (``snapshot_discarded`` in the
service's log) and the aggregate folded from its stream."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import redis

from libs.devstack import RedisServer, start_redis
from tests.services.lobby_stack import GRANT, LobbyStack, eventually, lobby_stack

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

PLAYERS = 4
BUY_IN = 300


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    """A redis-server of this test's own: it is emptied and corrupted."""
    with start_redis() as server:
        yield server


def _played(stack: LobbyStack, table: str, hands: int) -> bool:
    """``hands`` hands started, or fewer seats with chips than a hand needs (a bot busted)."""
    return stack.hands_started(table) >= hands or stack.seated_with_chips(table) < 2


def _corrupt(client: redis.Redis, players: list[str], tables: list[str]) -> int:
    """Corrupt every snapshot there is, and plant garbage where the lobby's would be; how many
    snapshots were corrupted or planted."""
    keys = sorted(client.keys("holdem:*snapshot:*"))
    for index, key in enumerate(keys):
        variant = index % 3
        if variant == 0:
            client.hset(key, "data", b"\x00\xffnot a snapshot")
        elif variant == 1:
            client.hset(key, "seq", "not-a-number")
        else:
            client.hset(key, "seq", str(10**12))  # ahead of the stream, its bytes still valid
    planted = [f"holdem:lobby:snapshot:player:{p}" for p in players]
    planted += [f"holdem:lobby:snapshot:table:{t}" for t in tables]
    for key in planted:
        client.hset(key, mapping={"seq": "1", "data": b"\x00garbage"})
    return len(keys) + len(planted)


def _cashed_out(stack: LobbyStack, player_id: str) -> bool:
    wallet = stack.wallet(player_id)
    return wallet.on_tables == 0 and wallet.reserved == 0


@pytest.mark.parametrize("fault", ["flush", "corrupt"])
def test_redis_lost_or_corrupted_mid_play_rebuilds_every_table_and_wallet(
    tmp_path: Path, own_redis: RedisServer, fault: str
) -> None:
    with lobby_stack(tmp_path, own_redis.url) as stack:
        players = [stack.register(bot=True).player_id for _ in range(PLAYERS)]
        tables = [stack.create_table(players[0]), stack.create_table(players[2])]
        for index, player in enumerate(players):
            stack.join(player, tables[index // 2], BUY_IN)
        eventually(
            lambda: all(_played(stack, t, 2) for t in tables), timeout=120, what="two hands each"
        )
        before = stack.audit()
        assert before.holds and before.grants == PLAYERS * GRANT, before
        client = redis.Redis.from_url(own_redis.url)
        table_snapshots = [f"holdem:snapshot:{t}" for t in tables]
        assert all(client.exists(k) for k in table_snapshots)  # hand ends were snapshotted
        hands = {t: stack.hands_started(t) for t in tables}
        if fault == "flush":  # under the running services: snapshots, limits, the audit gate
            client.flushall()
            stack.kill()
        else:  # while they are down (a running table would write a good snapshot over it)
            stack.kill()
            assert _corrupt(client, players, tables) >= len(tables) + PLAYERS
        # started again, nothing cached in memory: every load reads Redis and the streams
        stack.start_table()
        stack.start_lobby()

        eventually(
            lambda: all(_played(stack, t, hands[t] + 1) for t in tables),
            timeout=120,
            what="play going on after the restart",
        )
        after = stack.audit()
        assert after.holds and after.grants == before.grants, after
        for player in players:
            try:
                stack.leave(player, tables[players.index(player) // 2])
            except grpc.RpcError as exc:  # busted: it left already
                assert exc.code() in (
                    grpc.StatusCode.FAILED_PRECONDITION,
                    grpc.StatusCode.NOT_FOUND,
                ), exc
        for player in players:
            eventually(functools.partial(_cashed_out, stack, player), timeout=90, what="cash-out")
        assert sum(stack.wallet(p).balance for p in players) == PLAYERS * GRANT
        final = stack.audit()
        assert final.holds and final.in_flight == 0 and final.on_tables == 0, final
        assert final.wallets == PLAYERS * GRANT
        if fault == "corrupt":
            assert stack.table is not None and stack.lobby is not None
            assert "snapshot_discarded" in stack.table.log_path.read_text()
            assert "snapshot_discarded" in stack.lobby.log_path.read_text()
