"""Table ownership leases on a real NATS KV bucket."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest

from libs.devstack.servers import NatsServer
from libs.eventstore.lease import LeaseLost, Leases
from libs.platform.natsconn import close_nats, connect_nats
from tests.conditions import wait_until

#: how long a close may take before the test calls it a hang (30 request timeouts: 150 s)
GUARD = 60.0

pytestmark = pytest.mark.integration


def test_one_holder_at_a_time_and_takeover_after_expiry(nats_url: str) -> None:
    async def main() -> None:
        import nats

        nc = await nats.connect(nats_url)
        bucket = f"leases_{uuid.uuid4().hex[:8]}"
        a = Leases(nc, "replica-a", bucket=bucket, ttl=1.0)
        b = Leases(nc, "replica-b", bucket=bucket, ttl=1.0)
        try:
            await a.start()
            await b.start()
            assert await a.acquire("t1")
            assert not await b.acquire("t1")
            assert await b.acquire("t2")
            assert await a.holder("t1") == "replica-a"
            assert await a.acquire("t1")  # renewing our own lease
            await a.release("t1")
            assert await b.acquire("t1")
            assert not await a.acquire("t1")

            # b dies (stops renewing): its leases expire and a takes them over. The server ages
            # entries out on its own schedule: wait until both are gone rather than a guessed time.
            async def expired(key: str) -> bool:
                return await a.holder(key) is None

            await wait_until(lambda: expired("t1"), "b's lease on t1 to expire")
            await wait_until(lambda: expired("t2"), "b's lease on t2 to expire")
            assert await a.acquire("t1")
            with pytest.raises(LeaseLost):
                await b.renew("t1")
            assert await b.renew_all() == ["t2"]
        finally:
            await nc.jetstream().delete_key_value(bucket)
            await nc.close()

    asyncio.run(main())


def test_a_replica_restarted_under_its_name_takes_its_leases_back_at_once(nats_url: str) -> None:
    async def main() -> None:
        import nats

        nc = await nats.connect(nats_url)
        bucket = f"leases_{uuid.uuid4().hex[:8]}"
        crashed = Leases(nc, "replica-a", bucket=bucket, ttl=60.0)
        restarted = Leases(nc, "replica-a", bucket=bucket, ttl=60.0)
        other = Leases(nc, "replica-b", bucket=bucket, ttl=60.0)
        try:
            for leases in (crashed, restarted, other):
                await leases.start()
            assert await crashed.acquire("t1")  # then it dies without releasing
            assert not await other.acquire("t1")  # another name waits for the TTL
            assert await restarted.acquire("t1")  # the same name need not
            assert restarted.held() == ["t1"]
            with pytest.raises(LeaseLost):
                await crashed.renew("t1")  # the old process could not write any more
        finally:
            await nc.close()

    asyncio.run(main())


def test_renewals_of_one_lease_at_once_never_lose_it(nats_url: str) -> None:
    """A shard's lease is renewed by the renewal loop and claimed again by many requests for its
    tables at once: each write must start from the revision the one before it made, or every
    write but the first is refused and the holder takes its own lease for lost."""

    async def main() -> None:
        import nats

        nc = await nats.connect(nats_url)
        bucket = f"leases_{uuid.uuid4().hex[:8]}"
        leases = Leases(nc, "replica-a", bucket=bucket, ttl=5.0)
        try:
            await leases.start()
            assert await leases.acquire("shard-0")
            writes = [leases.renew("shard-0") for _ in range(20)]
            claims = [leases.acquire("shard-0") for _ in range(20)]
            results = await asyncio.gather(*writes, *claims, return_exceptions=True)
            assert [r for r in results if isinstance(r, BaseException)] == []
            assert all(results[20:])
            assert leases.held() == ["shard-0"]
            assert await leases.renew_all() == []
        finally:
            await nc.jetstream().delete_key_value(bucket)
            await nc.close()

    asyncio.run(main())


def test_a_replica_configured_with_another_ttl_takes_the_bucket_s(nats_url: str) -> None:
    """Replicas must renew within the TTL the bucket ages leases out by: the first creator's.
    One started with a longer TTL would renew too slowly and see its leases lapse."""

    async def main() -> None:
        import nats

        nc = await nats.connect(nats_url)
        bucket = f"leases_{uuid.uuid4().hex[:8]}"
        first = Leases(nc, "replica-a", bucket=bucket, ttl=2.0)
        second = Leases(nc, "replica-b", bucket=bucket, ttl=30.0)
        try:
            await first.start()
            await second.start()
            assert first.ttl == 2.0
            assert second.configured_ttl == 30.0
            assert second.ttl == pytest.approx(2.0)
        finally:
            await nc.jetstream().delete_key_value(bucket)
            await nc.jetstream().delete_key_value(f"{bucket}_members")
            await nc.close()

    asyncio.run(main())


def test_closing_with_nats_gone_ends_within_its_bound(tmp_path: Path) -> None:
    """A stopping replica gives its leases up and leaves; with its nats-server dead each write
    waits out its request timeout (5 s), and 30 shards released one after another held the
    stop for minutes. ``close`` tries them all at once and gives up at its bound: it ends
    well within the guard (far below 30 request timeouts)."""

    async def main(server: NatsServer) -> None:
        nc = await connect_nats(server.url, reconnect_time_wait=0.1)
        leases = Leases(nc, "replica-a", ttl=60.0)
        try:
            await leases.start()
            for shard in range(30):
                assert await leases.acquire(f"s{shard}")
            await asyncio.to_thread(server.kill)
            await asyncio.wait_for(leases.close(timeout=1.0), GUARD)
            assert leases.held() == []
        finally:
            await close_nats(nc, drain_seconds=1.0)

    with NatsServer(parent_dir=tmp_path) as server:
        asyncio.run(main(server))
