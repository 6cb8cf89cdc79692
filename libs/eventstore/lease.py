"""Ownership leases in a NATS KV bucket whose entries expire after ``ttl`` seconds.

The holder of a key's lease is the only process that should serve that key (the table service's
keys are shards of tables: services/table/ownership.py). A lease is taken with ``create`` (fails
if someone holds it), kept alive by rewriting it with the expected revision before it expires,
and lost when the holder stops renewing: the entry ages out of the bucket and another process's
``create`` succeeds. Leases are an optimisation of who does the work, not the safety net: two
holders can still never both commit, because every append carries the expected stream sequence.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Protocol

import structlog
from nats.aio.client import Client as NATS
from nats.js.api import KeyValueConfig, StorageType
from nats.js.errors import (
    KeyNotFoundError,
    KeyWrongLastSequenceError,
    NoStreamResponseError,
)
from nats.js.kv import KeyValue

from libs.eventstore.kv import open_bucket
from libs.eventstore.kvkeys import all_keys
from libs.eventstore.members import Announcement

log = structlog.get_logger("eventstore.lease")


class LeaseLost(Exception):
    """This process no longer holds the lease (it expired, or another process took it)."""


class LeaseKeeper(Protocol):
    """What a service holding leases uses of them: ``Leases`` on the caller's own event loop,
    or ``lease_thread.LeaseThread``, the same kept alive by a thread of its own."""

    owner: str

    @property
    def ttl(self) -> float: ...

    @property
    def writes(self) -> int: ...

    def held(self) -> list[str]: ...

    def fresh(self, key: str) -> bool: ...

    async def acquire(self, key: str) -> bool: ...

    async def release(self, key: str) -> None: ...

    async def holder(self, key: str) -> str | None: ...

    async def members(self) -> list[str]: ...

    async def announce(self) -> None: ...

    async def renew_all(self) -> list[str]: ...

    async def close(self, timeout: float = 2.0) -> None: ...


class Leases:
    def __init__(
        self,
        nc: NATS,
        owner: str,
        bucket: str = "holdem_table_leases",
        ttl: float = 5.0,
        replicas: int = 1,
        announcement: Announcement | None = None,
    ):
        self._nc = nc
        # what ``announce`` says besides "alive": the address callers reach this process at
        # and its shard count (libs/eventstore/members.py); none: b"1"
        self.announcement = announcement or Announcement()
        self.replicas = replicas
        self.owner = owner
        self.bucket = bucket
        self.ttl = ttl
        self.configured_ttl = ttl  # what this process was told; ``ttl`` is the bucket's own
        self._kv: KeyValue | None = None
        self._members: KeyValue | None = None
        self._revisions: dict[str, int] = {}
        self._renewed_at: dict[str, float] = {}
        self.writes = 0  # KV writes made (create, update, put, delete): what ownership costs
        # one write at a time per key: two renewals from the same revision at once would have
        # the second refused, and this process take its own lease for lost
        self._locks: dict[str, asyncio.Lock] = {}

    def _lock(self, key: str) -> asyncio.Lock:
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        return lock

    async def start(self) -> None:
        self._kv = await self._bucket(self.bucket)
        self._members = await self._bucket(f"{self.bucket}_members")
        await self._adopt_bucket_ttl(self._kv)

    async def _adopt_bucket_ttl(self, kv: KeyValue) -> None:
        """Every holder must renew within the TTL the bucket ages entries out by, and that is the
        TTL of whoever made the bucket first (an existing bucket is opened as it is). A process
        configured with another TTL would renew too slowly (its leases lapse between renewals and
        its tables flap to the others) or count a dead holder alive too long: it takes the
        bucket's TTL and says so, loudly, instead."""
        bucket_ttl = (await kv.status()).ttl
        if not bucket_ttl or abs(bucket_ttl - self.configured_ttl) < 1e-3:
            return
        log.warning(
            "lease_ttl_differs",
            bucket=self.bucket,
            configured_ttl=self.configured_ttl,
            bucket_ttl=bucket_ttl,
            hint="every replica should set the same lease TTL; using the bucket's",
        )
        self.ttl = bucket_ttl

    async def _bucket(self, name: str) -> KeyValue:
        config = KeyValueConfig(
            bucket=name,
            ttl=self.ttl,
            history=1,
            storage=StorageType.MEMORY,
            replicas=self.replicas,
        )
        return await open_bucket(self._nc.jetstream(), config)

    async def _gone(self, exc: Exception) -> None:
        """A bucket did not answer because it is gone: the buckets are in memory, and a NATS
        server that restarted has none. Create them again (leases held are lost with them:
        the next renewal says so and the tables are claimed afresh), then re-raise."""
        self._revisions.clear()
        self._renewed_at.clear()
        with contextlib.suppress(Exception):  # still down: the next call tries again
            await self.start()
        raise LeaseLost("the lease buckets were lost (NATS restarted)") from exc

    async def announce(self) -> None:
        """Say this process is alive (an entry that expires with the lease TTL), and where it is
        reached (its ``announcement``)."""
        assert self._members is not None, "Leases.start() was not called"
        try:
            self.writes += 1
            await self._members.put(self.owner, self.announcement.encode())
        except NoStreamResponseError as exc:
            await self._gone(exc)

    async def leave(self) -> None:
        """Say this process is going (its member entry deleted), so the others count it out at
        once instead of a TTL later. Best effort: an entry left behind expires anyway."""
        if self._members is None:
            return
        with contextlib.suppress(Exception):
            self.writes += 1
            await self._members.delete(self.owner)

    async def close(self, timeout: float = 2.0) -> None:
        """Give up every lease held and leave (``leave``), all at once and within ``timeout``
        seconds. Best effort, and bounded: with NATS gone each write waits out its request
        timeout, and a stopping replica releasing its shards one after another waited minutes
        (what is left behind expires a TTL later anyway)."""

        async def release(key: str) -> None:
            with contextlib.suppress(Exception):
                await self.release(key)

        work = asyncio.gather(*(release(key) for key in self.held()), self.leave())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(work, timeout)

    async def members(self) -> list[str]:
        """The processes that announced themselves within the last TTL."""
        assert self._members is not None, "Leases.start() was not called"
        return await all_keys(self._nc, f"{self.bucket}_members")

    @property
    def kv(self) -> KeyValue:
        if self._kv is None:
            raise RuntimeError("Leases.start() was not called")
        return self._kv

    def held(self) -> list[str]:
        return list(self._revisions)

    async def holder(self, key: str) -> str | None:
        try:
            entry = await self.kv.get(key)
        except KeyNotFoundError:
            return None
        return entry.value.decode() if entry.value else None

    async def acquire(self, key: str) -> bool:
        """Take the lease if it is free (or already ours, renewing it); False if someone else
        holds it. A lease held under this ``owner`` name by an earlier process (this replica
        before it crashed and restarted under the same name) is taken back at once."""
        async with self._lock(key):
            return await self._acquire(key)

    async def _acquire(self, key: str) -> bool:
        if key in self._revisions:
            try:
                await self._renew(key)
                return True
            except LeaseLost:
                pass
        revision = None
        sent = time.monotonic()
        for _ in range(2):
            try:
                self.writes += 1
                revision = await self.kv.create(key, self.owner.encode())
                break
            except NoStreamResponseError as exc:
                with contextlib.suppress(LeaseLost):
                    await self._gone(exc)
                continue  # once more, on the buckets made again
            except KeyWrongLastSequenceError:
                return await self._reclaim(key)
            except KeyNotFoundError:
                # nats-py: the entry expired between create's conflict and its check of the
                # entry; the lease is free now, so try once more.
                continue
        if revision is None:
            return False
        self._revisions[key] = revision
        self._renewed_at[key] = sent
        return True

    async def _reclaim(self, key: str) -> bool:
        """Take back a lease held under our own name by a process that is gone."""
        try:
            entry = await self.kv.get(key)
        except KeyNotFoundError:
            return False
        if entry.value is None or entry.value.decode() != self.owner or entry.revision is None:
            return False
        try:
            self.writes += 1
            revision = await self.kv.update(key, self.owner.encode(), last=entry.revision)
        except (KeyWrongLastSequenceError, KeyNotFoundError):
            return False
        self._revisions[key] = revision
        self._renewed_at[key] = time.monotonic()
        return True

    async def renew(self, key: str) -> None:
        async with self._lock(key):
            await self._renew(key)

    async def _renew(self, key: str) -> None:
        revision = self._revisions.get(key)
        if revision is None:
            raise LeaseLost(key)
        sent = time.monotonic()  # the entry's lifetime starts before its acknowledgement
        try:
            self.writes += 1
            self._revisions[key] = await self.kv.update(key, self.owner.encode(), last=revision)
            self._renewed_at[key] = sent
        except (KeyWrongLastSequenceError, KeyNotFoundError) as exc:
            self._forget(key)
            raise LeaseLost(key) from exc
        except NoStreamResponseError as exc:
            await self._gone(exc)

    def fresh(self, key: str) -> bool:
        """True while our last renewal is recent enough that the lease cannot have expired."""
        renewed = self._renewed_at.get(key)
        return renewed is not None and time.monotonic() - renewed < self.ttl * 0.8

    async def renew_all(self) -> list[str]:
        """Renew every lease we hold, all at once (a round takes one round trip, not one per
        lease: one after another, 64 renewals on a loaded server outlasted the TTL); return
        the keys whose lease was lost."""

        async def renewed(key: str) -> bool:
            try:
                await self.renew(key)
            except LeaseLost:
                return False
            return True

        keys = list(self._revisions)
        results = await asyncio.gather(*(renewed(key) for key in keys))
        return [key for key, ok in zip(keys, results, strict=True) if not ok]

    async def release(self, key: str) -> None:
        async with self._lock(key):
            revision = self._revisions.get(key)
            self._forget(key)
            if revision is not None:
                self.writes += 1
                with contextlib.suppress(KeyWrongLastSequenceError, KeyNotFoundError):
                    await self.kv.delete(key, last=revision)

    def _forget(self, key: str) -> None:
        self._revisions.pop(key, None)
        self._renewed_at.pop(key, None)
