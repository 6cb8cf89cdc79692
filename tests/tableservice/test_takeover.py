"""When the replica serving a table dies, another one takes the table over by itself within the
lease TTL and keeps it running (the clock acts for players), with no client request needed."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from libs.eventstore.lease import Leases
from libs.eventstore.registry import Registry
from libs.table import TableConfig
from libs.table import commands as tc
from services.table.app import TableApp
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
            return TableApp(store, None, dealer, leases=leases, registry=registry)

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
                if "t" in b.leases.held() and (await b.table("t")).sequence > before:  # type: ignore[union-attr]
                    break
            assert b.leases is not None and "t" in b.leases.held()
            table = await b.table("t")
            assert table.sequence > before  # b's clock acted for the player who timed out
            assert table.state.total_chips() == 200
        finally:
            await b.stop()
            await nc.jetstream().delete_stream(f"ADOPT{suffix}")
            for bucket in (f"leases_{suffix}", f"leases_{suffix}_members", f"tables_{suffix}"):
                await nc.jetstream().delete_key_value(bucket)
            await nc.close()

    asyncio.run(main())


def test_two_replicas_split_the_tables_between_them(nats_url: str) -> None:
    async def main() -> None:
        import nats

        from libs.eventstore.jetstream import JetStreamEventStore

        nc = await nats.connect(nats_url)
        suffix = uuid.uuid4().hex[:8]
        store = JetStreamEventStore(nc, stream=f"SPLIT{suffix}", subject_prefix=f"split{suffix}")
        await store.ensure_stream()

        async def replica(name: str) -> TableApp:
            leases = Leases(nc, name, bucket=f"sleases_{suffix}", ttl=1.0)
            await leases.start()
            registry = Registry(nc, bucket=f"stables_{suffix}")
            await registry.start()
            return TableApp(store, None, LocalDealer(), leases=leases, registry=registry)

        a, b = await replica("a"), await replica("b")
        for i in range(4):  # every table is opened through replica a
            await a.execute(f"t{i}", tc.OpenTable(f"t{i}", TableConfig(seats=4), 0.0), f"o{i}")
        assert a.leases is not None and b.leases is not None
        assert len(a.leases.held()) == 4
        await a.start_background()
        await b.start_background()
        try:
            for _ in range(80):
                await asyncio.sleep(0.1)
                if len(a.leases.held()) == 2 and len(b.leases.held()) == 2:
                    break
            assert sorted(a.leases.held() + b.leases.held()) == ["t0", "t1", "t2", "t3"]
            assert len(a.leases.held()) == len(b.leases.held()) == 2
        finally:
            await a.stop()
            await b.stop()
            await nc.jetstream().delete_stream(f"SPLIT{suffix}")
            for bucket in (f"sleases_{suffix}", f"sleases_{suffix}_members", f"stables_{suffix}"):
                await nc.jetstream().delete_key_value(bucket)
            await nc.close()

    asyncio.run(main())
