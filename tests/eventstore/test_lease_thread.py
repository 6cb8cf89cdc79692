"""Leases kept by a thread of their own (libs/eventstore/lease_thread.py) on a real NATS KV
bucket: they outlive a serving loop that does not yield for several TTLs, a lease that lapsed
while nobody took it is taken again at once and reported, one somebody else took is reported
and let go."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator

import pytest
from nats.aio.client import Client as NATS

from libs.eventstore.lease import Leases
from libs.eventstore.lease_thread import LeaseThread
from libs.platform.natsconn import connect_nats
from tests.conditions import wait_until

pytestmark = pytest.mark.integration


@contextlib.asynccontextmanager
async def _bucket(nats_url: str) -> AsyncIterator[tuple[NATS, str]]:
    """A connection and a lease bucket's name of this test's own; the bucket (and its members
    bucket) removed after."""
    nc = await connect_nats(nats_url)
    bucket = f"lth_{uuid.uuid4().hex[:8]}"
    try:
        yield nc, bucket
    finally:
        await nc.jetstream().delete_key_value(bucket)
        await nc.jetstream().delete_key_value(f"{bucket}_members")
        await nc.close()


def _thread(nats_url: str, owner: str, bucket: str, ttl: float) -> LeaseThread:
    return LeaseThread(lambda: connect_nats(nats_url), owner, bucket=bucket, ttl=ttl)


def test_leases_outlive_a_serving_loop_that_does_not_yield(nats_url: str) -> None:
    """The caller's loop runs Python for three TTLs without yielding (a replica starved by its
    tables): renewed on their own thread, the leases are still held, under its name, and
    nothing was lost; a plain ``Leases`` on that loop loses its own."""

    async def main() -> None:
        async with _bucket(nats_url) as (nc, bucket):
            kept = _thread(nats_url, "replica-a", bucket, ttl=1.0)
            plain = Leases(nc, "replica-p", bucket=bucket, ttl=1.0)
            try:
                await kept.start()
                await plain.start()
                assert await kept.acquire("s1") and await plain.acquire("s2")
                busy_until = time.monotonic() + 3 * kept.ttl
                while time.monotonic() < busy_until:  # no await: the loop is starved
                    sum(range(1000))
                assert await plain.renew_all() == ["s2"]  # late: lapsed meanwhile
                assert await kept.renew_all() == []
                assert kept.held() == ["s1"] and kept.fresh("s1")
                assert await plain.holder("s1") == "replica-a"
                assert kept.rounds >= 3  # it renewed while the loop was busy
            finally:
                await kept.close()

    asyncio.run(main())


def test_a_lapsed_lease_nobody_took_is_taken_again_and_reported(nats_url: str) -> None:
    async def main() -> None:
        async with _bucket(nats_url) as (nc, bucket):
            kept = _thread(nats_url, "replica-a", bucket, ttl=2.0)
            try:
                await kept.start()
                assert await kept.acquire("s1")
                assert "replica-a" in await kept.members()  # announced by the thread
                kv = await nc.jetstream().key_value(bucket)
                await kv.delete("s1")  # the entry aged out: nobody holds it

                lost: list[str] = []

                async def reported() -> bool:
                    lost.extend(await kept.renew_all())
                    return bool(lost)

                await wait_until(reported, "the lapse to be reported")
                assert lost == ["s1"]
                assert kept.held() == ["s1"] and await kept.holder("s1") == "replica-a"
                assert await kept.acquire("s1")  # the caller's retake: ours already
            finally:
                await kept.close()

    asyncio.run(main())


def test_a_lease_someone_else_took_is_reported_and_let_go(nats_url: str) -> None:
    async def main() -> None:
        async with _bucket(nats_url) as (nc, bucket):
            kept = _thread(nats_url, "replica-a", bucket, ttl=2.0)
            try:
                await kept.start()
                assert await kept.acquire("s1")
                kv = await nc.jetstream().key_value(bucket)
                await kv.put("s1", b"replica-b")  # b holds it now (it lapsed, b claimed it)

                lost: list[str] = []

                async def reported() -> bool:
                    lost.extend(await kept.renew_all())
                    return bool(lost)

                await wait_until(reported, "the loss to be reported")
                assert lost == ["s1"] and kept.held() == []
                assert not await kept.acquire("s1")
                assert await kept.holder("s1") == "replica-b"
            finally:
                await kept.close()

    asyncio.run(main())


def test_closing_releases_the_leases_and_stops_the_thread(nats_url: str) -> None:
    async def main() -> None:
        async with _bucket(nats_url) as (nc, bucket):
            kept = _thread(nats_url, "replica-a", bucket, ttl=60.0)
            other = Leases(nc, "replica-b", bucket=bucket, ttl=60.0)
            await kept.start()
            await other.start()
            assert await kept.acquire("s1")
            await kept.close()
            assert await other.holder("s1") is None
            assert "replica-a" not in await other.members()
            assert await other.acquire("s1")

    asyncio.run(main())
