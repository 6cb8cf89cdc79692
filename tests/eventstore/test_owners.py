"""ShardOwners (libs/eventstore/owners.py) on a real NATS: a table's owner is the lease holder
of its shard, at the address it announced; cached until forgotten; None when nobody holds the
shard or the holder announced no address (an older replica)."""

from __future__ import annotations

import asyncio
import uuid

import nats
import pytest

from libs.eventstore.lease import Leases
from libs.eventstore.members import ALIVE, Announcement
from libs.eventstore.owners import ShardOwners
from libs.eventstore.shards import shard_key, shard_of

pytestmark = pytest.mark.integration

SHARDS = 8


def test_announcements_read_back_and_stay_compatible() -> None:
    assert Announcement().encode() == ALIVE
    assert Announcement.decode(ALIVE) == Announcement()
    assert Announcement.decode(b"") == Announcement()
    assert Announcement.decode(b"{not json") == Announcement()
    both = Announcement("10.0.0.7:50053", 64)
    assert Announcement.decode(both.encode()) == both


def test_the_owner_is_the_shard_holder_at_its_announced_address(nats_url: str) -> None:
    async def main() -> None:
        nc = await nats.connect(nats_url)
        bucket = f"leases_{uuid.uuid4().hex[:8]}"
        a = Leases(nc, "a", bucket=bucket, ttl=5.0, announcement=Announcement("a:1", SHARDS))
        old = Leases(nc, "old", bucket=bucket, ttl=5.0)  # announces b"1": no address
        early = ShardOwners(nc, bucket)
        owners = ShardOwners(nc, bucket)
        try:
            assert await early.address("t1") is None  # no bucket yet
            for leases in (a, old):
                await leases.start()
                await leases.announce()
            tables = [f"t{i}" for i in range(40)]
            by_shard = {shard_key(shard_of(t, SHARDS)): t for t in tables}
            keys = sorted(by_shard)
            await a.acquire(keys[0])
            await old.acquire(keys[1])
            assert await owners.address(by_shard[keys[0]]) == "a:1"
            assert owners.shards == SHARDS  # read from the announcements
            # a miss is remembered for a while (the lookup is on every call's path)
            assert await early.address(by_shard[keys[0]]) is None and early.lookups == 0
            assert await owners.address(by_shard[keys[1]]) is None  # holder's address unknown
            assert await owners.address(by_shard[keys[2]]) is None  # nobody holds it

            lookups = owners.lookups
            assert await owners.address(by_shard[keys[0]]) == "a:1"
            assert owners.lookups == lookups  # from the cache

            # the shard moves: the cached owner is kept until a call to it fails
            await a.release(keys[0])
            b = Leases(nc, "b", bucket=bucket, ttl=5.0, announcement=Announcement("b:2", SHARDS))
            await b.start()
            await b.announce()
            await b.acquire(keys[0])
            assert await owners.address(by_shard[keys[0]]) == "a:1"
            owners.forget(by_shard[keys[0]])
            assert await owners.address(by_shard[keys[0]]) == "b:2"
            await b.close()
        finally:
            await a.close()
            await old.close()
            await nc.close()

    asyncio.run(main())
