"""Ownership by shards on real NATS KV buckets (services/table/ownership.py): what a replica
writes to keep its tables does not grow with their number, whole shards move when a replica
joins or leaves, and a paused owner that lost its shard cannot commit (the expected-sequence
guard, whatever it believes)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import pytest

from libs.eventstore import ConcurrencyConflict, EventStore, InMemoryEventStore
from libs.eventstore.lease import Leases
from libs.eventstore.registry import Registry
from libs.eventstore.shards import shard_of
from libs.table import TableConfig
from libs.table import commands as tc
from services.table.app import TableApp
from services.table.commits import Proposal
from services.table.dealing import LocalDealer
from services.table.ownership import NotOwner
from tests.conditions import wait_until

pytestmark = pytest.mark.integration

SHARDS = 8
Replica = Callable[[str, EventStore], Awaitable[TableApp]]


def tables_in(shards: range, per_shard: int) -> list[str]:
    """``per_shard`` table ids in each of ``shards``."""
    found: dict[int, list[str]] = {s: [] for s in shards}
    i = 0
    while any(len(ids) < per_shard for ids in found.values()):
        table_id = f"t{i}"
        ids = found.get(shard_of(table_id, SHARDS))
        if ids is not None and len(ids) < per_shard:
            ids.append(table_id)
        i += 1
    return [t for ids in found.values() for t in ids]


@asynccontextmanager
async def replicas(nats_url: str, ttl: float = 1.0) -> AsyncIterator[Replica]:
    """A factory of table replicas sharing one set of buckets, all removed after."""
    import nats

    nc = await nats.connect(nats_url)
    suffix = uuid.uuid4().hex[:8]
    made: list[TableApp] = []

    async def replica(name: str, store: EventStore) -> TableApp:
        leases = Leases(nc, name, bucket=f"shl_{suffix}", ttl=ttl)
        await leases.start()
        registry = Registry(nc, bucket=f"sht_{suffix}")
        await registry.start()
        in_use = Registry(nc, bucket=f"shs_{suffix}")
        await in_use.start()
        app = TableApp(
            store,
            None,
            LocalDealer(),
            leases=leases,
            registry=registry,
            shards_in_use=in_use,
            shards=SHARDS,
        )
        made.append(app)
        return app

    try:
        yield replica
    finally:
        for app in made:
            await app.stop()
        for bucket in (f"shl_{suffix}", f"shl_{suffix}_members", f"sht_{suffix}", f"shs_{suffix}"):
            await nc.jetstream().delete_key_value(bucket)
        await nc.close()


async def open_tables(app: TableApp, tables: list[str]) -> None:
    for t in tables:
        await app.execute(t, tc.OpenTable(t, TableConfig(seats=4), 0.0), f"open-{t}")


def test_ownership_writes_per_renewal_round_do_not_grow_with_the_tables(nats_url: str) -> None:
    async def main() -> None:
        # a TTL no lease lapses within while 200 tables open on a busy machine (a lapse would
        # add its retake to the round's writes)
        async with replicas(nats_url, ttl=30.0) as replica:
            writes = []
            for per_shard in (2, 50):  # 8 tables, then 200, in the same 4 shards
                app = await replica(f"r{per_shard}", InMemoryEventStore())
                await open_tables(app, tables_in(range(4), per_shard))
                assert app.leases is not None
                before = app.leases.writes
                await app.renew()
                writes.append(app.leases.writes - before)
                for key in app.ownership.held_shards():
                    await app.leases.release(key)
            assert writes == [4, 4]  # one write per shard held

    asyncio.run(main())


def test_a_replica_joining_takes_shards_and_one_leaving_releases_them(nats_url: str) -> None:
    async def main() -> None:
        async with replicas(nats_url) as replica:
            store = InMemoryEventStore()
            a = await replica("a", store)
            tables = tables_in(range(4), 3)
            await open_tables(a, tables)
            await a.start_background()
            assert len(a.ownership.held_shards()) == 4
            b = await replica("b", store)
            await b.start_background()

            async def split() -> bool:
                return len(a.ownership.held_shards()) == len(b.ownership.held_shards()) == 2

            await wait_until(split, "the joining replica to take half the shards")
            for t in tables:  # a table is served by exactly one replica
                assert a.ownership.serves(t) != b.ownership.serves(t)
            # b leaves as the service does on SIGTERM: its loops stop, its shards are released
            await b.stop()
            assert b.leases is not None
            for key in b.ownership.held_shards():
                await b.leases.release(key)

            async def back() -> bool:
                return len(a.ownership.held_shards()) == 4

            await wait_until(back, "the shards b released to be taken back by a")
            assert all(a.ownership.serves(t) for t in tables)

    asyncio.run(main())


def test_a_paused_owner_cannot_commit_after_losing_its_shard(nats_url: str) -> None:
    async def main() -> None:
        import nats

        from libs.eventstore.jetstream import JetStreamEventStore

        nc = await nats.connect(nats_url)
        suffix = uuid.uuid4().hex[:8]
        store = JetStreamEventStore(nc, stream=f"PAUSE{suffix}", subject_prefix=f"pause{suffix}")
        await store.ensure_stream()
        try:
            async with replicas(nats_url) as replica:
                a = await replica("a", store)
                b = await replica("b", store)
                await open_tables(a, ["t"])
                await a.execute("t", tc.SitDown("ann", 0, 100), "sit-ann")
                table = await a.table("t")  # a is past its ownership check, then pauses
                stale = table.sequence
                assert b.leases is not None

                async def expired() -> bool:
                    assert b.leases is not None
                    return await b.leases.holder(b.ownership.shard("t")) is None

                await wait_until(expired, "the paused owner's shard lease to expire")
                await b.execute("t", tc.SitDown("bob", 1, 100), "sit-bob")  # b owns it now
                moved = await store.last_sequence("t")
                assert moved > stale and b.ownership.serves("t")
                # a resumes and commits what it decided on the state it had
                state, events = await a.step(table.state, tc.SitDown("cat", 2, 100))
                proposal = Proposal("sit-cat", "SitDown", state, events, 0.0)
                with pytest.raises(ConcurrencyConflict):
                    await a.stream.commit("t", table, proposal)
                assert await store.last_sequence("t") == moved  # nothing of a's landed
                with pytest.raises(NotOwner):  # and a's next command is refused outright
                    await a.execute("t", tc.SitDown("cat", 2, 100), "sit-cat-2")
        finally:
            await nc.jetstream().delete_stream(f"PAUSE{suffix}")
            await nc.close()

    asyncio.run(main())


def test_a_lapsed_lease_nobody_took_is_taken_again_and_its_tables_kept(nats_url: str) -> None:
    """A starved replica that renews after its lease expired keeps the tables of a shard
    nobody claimed meanwhile (at 10,000 tables such a replica used to drop them all), and a
    table another replica played meanwhile is reloaded, not served stale."""

    async def main() -> None:
        async with replicas(nats_url) as replica:
            store = InMemoryEventStore()
            a = await replica("a", store)
            b = await replica("b", store)
            kept, moved = tables_in(range(1), 2)  # two tables in one shard
            await open_tables(a, [kept, moved])
            shard = a.ownership.shard(kept)
            assert a.leases is not None and b.leases is not None

            async def lapsed() -> bool:
                assert b.leases is not None
                return await b.leases.holder(shard) is None

            loaded = dict(a.tables)
            await wait_until(lapsed, "a's shard lease to lapse (a does not renew)")
            await a.renew()  # late: the lease is gone, nobody took it
            assert a.ownership.serves(kept) and set(a.tables) == {kept, moved}
            assert all(a.tables[t] is loaded[t] for t in loaded)  # kept, not reloaded
            await a.execute(kept, tc.SitDown("ann", 0, 100), "sit-ann")  # plays on

            await wait_until(lapsed, "a's shard lease to lapse again")
            await b.execute(moved, tc.SitDown("bob", 1, 100), "sit-bob")  # b serves it
            await b.leases.release(shard)  # and hands the shard back
            await a.renew()
            assert a.ownership.serves(moved)
            assert moved not in a.tables and kept in a.tables  # the moved one is reloaded
            state = await a.state(moved)
            assert [seat.player_id for seat in state.seats.values()] == ["bob"]
            await a.execute(moved, tc.SitDown("cat", 2, 100), "sit-cat")

    asyncio.run(main())


def test_a_command_that_meets_a_conflict_claims_the_table_again_before_its_retry(
    nats_url: str,
) -> None:
    """A command that passed its ownership check, then waited (the table's lock, a slow
    store) while its lease lapsed and another replica took the table and committed, meets a
    conflict; deciding it again on the reloaded state and appending it would commit on a table
    this replica no longer serves. It is refused (NotOwner) and nothing of it lands."""

    async def main() -> None:
        async with replicas(nats_url) as replica:
            store = InMemoryEventStore()
            a = await replica("a", store)
            b = await replica("b", store)
            await open_tables(a, ["t"])
            table = await a.table("t")
            assert b.leases is not None
            async with table.lock:  # a's command passes its check, then waits here
                command = asyncio.create_task(a.execute("t", tc.SitDown("cat", 2, 100), "sit-cat"))

                async def expired() -> bool:
                    assert b.leases is not None
                    return await b.leases.holder(b.ownership.shard("t")) is None

                await wait_until(expired, "a's shard lease to lapse (a does not renew)")
                await b.execute("t", tc.SitDown("bob", 1, 100), "sit-bob")  # b serves it now
                moved = await store.last_sequence("t")
            with pytest.raises(NotOwner):
                await command
            assert await store.last_sequence("t") == moved  # nothing of a's landed

    asyncio.run(main())


def test_a_lapsed_shard_another_replica_claimed_has_its_tables_dropped(nats_url: str) -> None:
    """A starved replica that renews after another replica claimed its lapsed shard lets the
    shard's tables go (the other serves them now) and refuses their commands."""

    async def main() -> None:
        async with replicas(nats_url) as replica:
            store = InMemoryEventStore()
            a = await replica("a", store)
            b = await replica("b", store)
            tables = tables_in(range(1), 2)  # two tables in one shard
            other = tables_in(range(1, 2), 1)  # and one in another
            await open_tables(a, tables + other)
            shard = a.ownership.shard(tables[0])
            assert a.leases is not None and b.leases is not None

            async def lapsed() -> bool:
                assert b.leases is not None
                return await b.leases.holder(shard) is None

            await wait_until(lapsed, "a's shard lease to lapse (a does not renew)")
            assert await b.leases.acquire(shard)  # b claims it first
            await a.renew()
            assert not a.ownership.serves(tables[0])
            assert set(a.tables) == set(other)  # the other shard's table stays
            with pytest.raises(NotOwner):
                await a.execute(tables[0], tc.SitDown("ann", 0, 100), "sit-ann")
            await b.execute(tables[0], tc.SitDown("bob", 1, 100), "sit-bob")  # b serves it

    asyncio.run(main())
