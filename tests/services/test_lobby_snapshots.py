"""The lobby's store and wallet snapshots across versions: a snapshot written before the wallet's
bounds loads (migrated), one this version cannot read is ignored (the stream has every commit),
and the snapshots it writes stay small however long the wallet lives."""

from __future__ import annotations

import asyncio
import json
from functools import partial

from libs.eventstore.memory import InMemoryEventStore, InMemorySnapshotStore
from libs.lobby import wallet, wallet_codec, wallet_decide
from services.lobby.base import PLAYERS
from services.lobby.store import Aggregates
from tests.lobby.test_wallet_bounds import OLD_SNAPSHOT


def _store() -> tuple[Aggregates[wallet.Wallet, wallet.Event], InMemorySnapshotStore]:
    snapshots = InMemorySnapshotStore()
    return Aggregates(PLAYERS, InMemoryEventStore(), snapshots, snapshot_every=50), snapshots


async def _history(
    players: Aggregates[wallet.Wallet, wallet.Event], tables: range
) -> wallet.Wallet:
    """Alice buys in at each table, then is cashed out (each at a new table)."""
    state = await players.execute(
        "p1",
        partial(
            wallet_decide.register,
            username="alice",
            display_name="Alice",
            guest=False,
            bot=False,
            grant=1000,
            now=1.0,
        ),
        "reg",
    )
    for i in tables:
        now, table, saga = 10.0 * i, f"t{i}", f"s{i}"
        reserve = partial(
            wallet_decide.reserve,
            saga=saga,
            kind=wallet.BUY_IN,
            table_id=table,
            amount=100,
            seat=None,
            wait_for_big_blind=False,
            now=now,
        )
        await players.execute("p1", reserve, f"reserve-{saga}")
        confirm = partial(wallet_decide.confirm, saga=saga, seat=0, stack=100, sequence=3, now=now)
        await players.execute("p1", confirm, f"confirm-{saga}")
        credit = partial(wallet_decide.credit, table_id=table, sequence=9, amount=100, now=now)
        state = await players.execute("p1", credit, f"credit-{table}-9")
    return state


def test_an_old_snapshot_loads_and_its_commits_follow() -> None:
    async def scenario() -> None:
        players, snapshots = _store()
        old = wallet_codec.decode_wallet(OLD_SNAPSHOT.encode())
        # the stream's commits the old snapshot reflects, then one after it
        for sequence in range(1, 12):
            await players.repository.events.append(
                "p1", b"{}", expected_last=sequence - 1 if sequence > 1 else 0, msg_id=str(sequence)
            )
        await snapshots.save("p1", 11, OLD_SNAPSHOT.encode())
        await players.repository.events.append(
            "p1",
            wallet_codec.encode(wallet_decide.credit(old, "t2", 12, 100, 20.0)),
            expected_last=11,
            msg_id="credit-t2-12",
        )
        loaded = await players.get("p1")
        assert (loaded.balance, loaded.on_tables, loaded.reserved) == (900, 0, 50)
        assert loaded.was_credited("t1", 9) and loaded.was_credited("t2", 12)
        after = await players.execute(
            "p1", lambda w: wallet_decide.credit(w, "t1", 9, 450, 21.0), "credit-t1-9-again"
        )
        assert after.balance == 900  # credited before the snapshot: not again

    asyncio.run(scenario())


def test_a_snapshot_it_cannot_read_is_ignored() -> None:
    async def scenario() -> None:
        players, snapshots = _store()
        expected = await _history(players, range(30))
        sequence = await players.repository.events.last_sequence("p1")
        future = json.loads(wallet_codec.encode_wallet(expected)) | {"a_field_of_tomorrow": 1}
        for unreadable in (b"\x00not json", json.dumps(future).encode()):
            await snapshots.delete("p1")
            await snapshots.save("p1", sequence, unreadable)
            players.forget("p1")
            assert await players.get("p1") == expected  # folded from the stream

    asyncio.run(scenario())


def test_snapshots_stay_small_however_long_the_wallet_lives() -> None:
    async def scenario() -> None:
        players, snapshots = _store()
        sizes = []
        for tables in (range(400), range(400, 4000)):
            state = await _history(players, tables)
            snapshot = await snapshots.load("p1")
            assert snapshot is not None
            sizes.append(len(snapshot.data))
            players.forget("p1")
            assert await players.get("p1") == state  # snapshot + the commits after it
        assert sizes[1] < sizes[0] * 1.1

    asyncio.run(scenario())
