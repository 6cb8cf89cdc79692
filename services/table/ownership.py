"""Which replica serves which table: tables hash to a fixed number of shards
(``libs.eventstore.shards``) and a replica holds a lease per shard (NATS KV, renewed while
held), so what it pays to hold tables does not grow with their number. Around it: the registry
of open tables, the registry of shards in use, and rebalancing: taking over shards in use that
nobody holds (their owner died) up to a fair share, and handing whole shards back when over it.

Leases decide who does the work; they are not the safety net. Every append carries the expected
stream sequence, so two replicas that both think they own a table can never both commit.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable

import structlog

from libs.eventstore.lease import LeaseKeeper, LeaseLost
from libs.eventstore.registry import Registry
from libs.eventstore.shards import DEFAULT_SHARDS, rank, shard_key, shard_of
from libs.table.events import Event, TableOpened

log = structlog.get_logger("table")

NOT_OWNER = "NOT_OWNER"


class NotOwner(Exception):
    """Another replica serves this table (answered UNAVAILABLE: the client retries, and finds
    the owner, or this replica once the shard is free)."""

    code = NOT_OWNER
    kind = "unavailable"

    def __init__(self, table_id: str, holder: str | None) -> None:
        self.message = f"table {table_id} is served by {holder or 'another replica'}: retry"
        super().__init__(self.message)


def fair_share(shards: int, replicas: int) -> int:
    """Shards each replica should hold: the shards in use over the live replicas, rounded up
    (so every shard has a taker)."""
    return -(-shards // max(replicas, 1))


class Ownership:
    """With no ``leases`` this process serves every table it is asked about (one replica).
    ``shards_in_use`` (a registry of shard keys) says which shards hold tables, so that only
    they are kept held; without it rebalancing reads the registry of tables."""

    def __init__(
        self,
        leases: LeaseKeeper | None,
        registry: Registry | None,
        shards_in_use: Registry | None = None,
        shards: int = DEFAULT_SHARDS,
    ) -> None:
        self.leases = leases
        self.registry = registry
        self.shards_in_use = shards_in_use
        self.shards = shards
        self._marked: set[str] = set()  # shards this process knows are in the registry
        self._released: dict[str, float] = {}  # shard -> when this replica handed it back
        self._seeded = False
        self._claims: dict[str, asyncio.Lock] = {}  # shard -> its claim in progress

    def shard(self, table_id: str) -> str:
        """The key of the shard ``table_id`` belongs to."""
        return shard_key(shard_of(table_id, self.shards))

    def serves(self, table_id: str) -> bool:
        """This replica holds the shard of ``table_id``."""
        return self.leases is None or self.shard(table_id) in self.leases.held()

    def held_shards(self) -> list[str]:
        return [] if self.leases is None else self.leases.held()

    async def claim(self, table_id: str) -> None:
        """Make sure this replica holds the lease of ``table_id``'s shard (taking it if free);
        NotOwner when another replica holds it, or when this one handed it back within the
        last TTL (another replica is taking it: were this one to take it back on the next
        request, a shard could move back and forth)."""
        if self.leases is None:
            return
        key = self.shard(table_id)
        if self.leases.fresh(key):
            return
        lock = self._claims.get(key)
        if lock is None:
            lock = self._claims[key] = asyncio.Lock()
        async with lock:  # a burst of requests for a shard makes one claim
            if not self.leases.fresh(key):
                await self._claim(table_id, key)

    async def _claim(self, table_id: str, key: str) -> None:
        assert self.leases is not None
        released = self._released.get(key)
        if released is not None and time.monotonic() - released < self.leases.ttl:
            raise NotOwner(table_id, None)
        if not await self.leases.acquire(key):
            raise NotOwner(table_id, await self.leases.holder(key))
        await self._mark(key)

    async def _mark(self, key: str) -> None:
        """The shard holds a table: it joins the registry of shards in use (once)."""
        if self.shards_in_use is not None and key not in self._marked:
            await self.shards_in_use.add(key)
            self._marked.add(key)

    async def note_commit(self, table_id: str, events: Iterable[Event]) -> None:
        """A table that opened joins the registry of open tables, and its shard the shards in
        use."""
        if self.registry is None:
            return
        if any(isinstance(event, TableOpened) for event in events):
            await self.registry.add(table_id)
            await self._mark(self.shard(table_id))

    async def closed(self, table_id: str) -> None:
        """A closed table leaves the registry (once its closing commit is public)."""
        if self.registry is not None:
            await self.registry.remove(table_id)

    async def renew(self) -> list[str]:
        """Renew every shard lease held (one write each, whatever the tables in them); the
        shards whose lease was lost."""
        if self.leases is None:
            return []
        try:
            return await self.leases.renew_all()
        except LeaseLost:
            return []

    async def retake(self, key: str) -> bool:
        """Take ``key`` again after its lease was lost; True when nobody else holds it (the
        lease lapsed, nobody claimed it) and it is this replica's again."""
        return self.leases is not None and await self.leases.acquire(key)

    async def _in_use(self) -> set[str]:
        """The shards that hold tables. Read from the shards' registry; the first time (and
        while it is empty) the registry of tables seeds it, so tables opened before shards
        existed, or a lost bucket, are found."""
        assert self.registry is not None
        if self.shards_in_use is None:
            return {self.shard(t) for t in await self.registry.all()}
        in_use = set(await self.shards_in_use.all())
        if not self._seeded or not in_use:
            self._seeded = True
            for table_id in await self.registry.all():
                await self._mark(self.shard(table_id))
            in_use |= self._marked
        return in_use

    async def rebalance(
        self,
        busy: Callable[[str], bool],
        released: Callable[[str], None],
        taken: Callable[[str], Awaitable[None]],
    ) -> list[str]:
        """Take over shards in use that nobody holds, up to a fair share of them among the
        replicas alive; over the share while others are alive, hand whole shards back (idle
        ones first: ``busy(shard)`` false when none of its tables has a hand in play).
        ``released`` is told of each shard handed back, ``taken`` of each table registered in a
        shard taken over; return the shards taken. Its reads and writes are per shard and per
        replica, never per table, except the registry read that finds a taken shard's
        tables."""
        if self.leases is None or self.registry is None:
            return []
        await self.leases.announce()
        held = set(self.leases.held())
        # The shards held count as in use whatever the registry read says: a shard is claimed
        # before its first table's opening commit marks it, and a read can miss keys.
        in_use = sorted(await self._in_use() | held)
        holders: dict[str, str | None] = {}
        for key in in_use:
            if key not in held:
                holders[key] = await self.leases.holder(key)
        # The replicas alive are the ones that announced themselves within the TTL, not every
        # holder of a lease: a replica that died (SIGKILL) still holds its leases for a TTL,
        # and counting it would make the survivors hand their own shards back meanwhile.
        replicas = set(await self.leases.members()) | {self.leases.owner}
        share = fair_share(len(in_use), len(replicas))
        await self._release_over_share(held, share, busy, released)
        now, owner = time.monotonic(), self.leases.owner
        free = [
            key
            for key, holder in holders.items()
            if (holder is None or holder == owner)  # held under our name before a restart
            and now - self._released.get(key, -1e18) >= self.leases.ttl
        ]
        adopted = []
        for key in sorted(free, key=lambda k: rank(k, owner)):
            if len(held) >= share:
                break
            if key in self.leases.held():  # claimed by a request meanwhile
                held.add(key)
                continue
            if await self.leases.acquire(key):
                held.add(key)
                adopted.append(key)
                log.info("shard_adopted", shard=key)
        if adopted:
            tables = [t for t in await self.registry.all() if self.shard(t) in adopted]
            for table_id in tables:
                await taken(table_id)
        return adopted

    async def _release_over_share(
        self,
        held: set[str],
        share: int,
        busy: Callable[[str], bool],
        released: Callable[[str], None],
    ) -> None:
        assert self.leases is not None
        owner = self.leases.owner
        # Idle shards first, then the ones this replica ranks lowest: whole shards move, and a
        # hand in play moves with its shard (the new owner loads the table and plays on).
        by_rank = sorted(held, key=lambda k: rank(k, owner), reverse=True)
        for key in sorted(by_rank, key=busy):
            if len(held) <= share:
                break
            await self.leases.release(key)
            self._released[key] = time.monotonic()
            released(key)
            held.discard(key)
            log.info("shard_released", shard=key, share=share)
