"""When the replica serving a table dies, another one takes the table over by itself within the
lease TTL and keeps it running (the clock acts for players), with no client request needed; each
commit in the stream names the replica that appended it."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from libs.eventstore.lease import Leases
from libs.eventstore.registry import Registry
from libs.eventstore.shards import shard_of
from libs.table import TableConfig
from libs.table import commands as tc
from services.table.app import TableApp
from services.table.commits import WRITER_HEADER
from services.table.dealing import LocalDealer

pytestmark = pytest.mark.integration


def test_a_surviving_replica_adopts_the_tables_of_a_dead_one(nats_url: str) -> None:
    async def main() -> None:
        import nats

        from libs.eventstore.jetstream import JetStreamEventStore

        nc = await nats.connect(nats_url)
        suffix = uuid.uuid4().hex[:8]
        store = JetStreamEventStore(nc, stream=f"ADOPT{suffix}", subject_prefix=f"adopt{suffix}")
        await store.ensure_stream()
        dealer = LocalDealer()  # shared: the same deck continues on the new replica

        async def replica(name: str) -> TableApp:
            leases = Leases(nc, name, bucket=f"leases_{suffix}", ttl=1.0)
            await leases.start()
            registry = Registry(nc, bucket=f"tables_{suffix}")
            await registry.start()
            return TableApp(store, None, dealer, leases=leases, registry=registry, writer=name)

        a, b = await replica("a"), await replica("b")
        config = TableConfig(seats=4, action_seconds=0.5, time_bank_seconds=0)
        await a.execute("t", tc.OpenTable("t", config, a.clock()), "open")
        await a.execute("t", tc.SitDown("ann", 0, 100), "sit-ann")
        await a.execute("t", tc.SitDown("bob", 1, 100), "sit-bob")
        before = (await a.table("t")).sequence
        assert (await a.state("t")).hand_in_progress  # waiting for a player's decision
        # replica a dies: it stops renewing its lease and its clock stops; b runs its loops
        await b.start_background(tick_interval=0.1)
        try:
            for _ in range(60):
                await asyncio.sleep(0.1)
                if b.ownership.serves("t") and (await b.table("t")).sequence > before:
                    break
            assert b.ownership.serves("t")
            table = await b.table("t")
            assert table.sequence > before  # b's clock acted for the player who timed out
            assert table.state.total_chips() == 200
            writers = [(c.sequence, c.headers.get(WRITER_HEADER)) for c in await store.read("t")]
            assert {w for seq, w in writers if seq <= before} == {"a"}
            assert {w for seq, w in writers if seq > before} == {"b"}
        finally:
            await b.stop()
            await nc.jetstream().delete_stream(f"ADOPT{suffix}")
            for bucket in (f"leases_{suffix}", f"leases_{suffix}_members", f"tables_{suffix}"):
                await nc.jetstream().delete_key_value(bucket)
            await nc.close()

    asyncio.run(main())


def _in_distinct_shards(count: int, shards: int) -> list[str]:
    """``count`` table ids, each in a shard of its own."""
    ids: dict[int, str] = {}
    for i in range(10_000):
        ids.setdefault(shard_of(f"t{i}", shards), f"t{i}")
        if len(ids) == count:
            break
    return sorted(ids.values())


def test_two_replicas_split_the_shards_between_them(nats_url: str) -> None:
    """Tables opened through one replica are split with a second one by whole shards: each
    ends with half the shards in use, every table in exactly one replica's shards."""

    async def main() -> None:
        import nats

        from libs.eventstore.jetstream import JetStreamEventStore

        nc = await nats.connect(nats_url)
        suffix = uuid.uuid4().hex[:8]
        store = JetStreamEventStore(nc, stream=f"SPLIT{suffix}", subject_prefix=f"split{suffix}")
        await store.ensure_stream()
        buckets = [f"sleases_{suffix}", f"sleases_{suffix}_members", f"stables_{suffix}"]
        buckets.append(f"sshards_{suffix}")

        async def replica(name: str) -> TableApp:
            leases = Leases(nc, name, bucket=f"sleases_{suffix}", ttl=1.0)
            await leases.start()
            registry = Registry(nc, bucket=f"stables_{suffix}")
            await registry.start()
            in_use = Registry(nc, bucket=f"sshards_{suffix}")
            await in_use.start()
            return TableApp(
                store, None, LocalDealer(), leases=leases, registry=registry, shards_in_use=in_use
            )

        a, b = await replica("a"), await replica("b")
        tables = _in_distinct_shards(4, a.ownership.shards)
        for t in tables:  # every table is opened through replica a
            await a.execute(t, tc.OpenTable(t, TableConfig(seats=4), 0.0), f"o{t}")
        assert all(a.ownership.serves(t) for t in tables)
        await a.start_background()
        await b.start_background()
        try:
            for _ in range(80):
                await asyncio.sleep(0.1)
                if len(a.ownership.held_shards()) == len(b.ownership.held_shards()) == 2:
                    break
            assert len(a.ownership.held_shards()) == len(b.ownership.held_shards()) == 2
            for t in tables:  # exactly one replica serves each table
                assert a.ownership.serves(t) != b.ownership.serves(t)
        finally:
            await a.stop()
            await b.stop()
            await nc.jetstream().delete_stream(f"SPLIT{suffix}")
            for bucket in buckets:
                await nc.jetstream().delete_key_value(bucket)
            await nc.close()

    asyncio.run(main())
