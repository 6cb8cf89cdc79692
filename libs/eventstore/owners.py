"""Which replica serves a table, as its callers see it: the table's shard (``shard_of``), the
shard's lease holder (the replica id in the lease bucket), and that replica's announced address
(its entry in ``<bucket>_members``, libs/eventstore/members.py). The shard count is read from
the announcements (every replica uses the same), unless the caller is told it.

Answers are cached: an owner stays until a call to it fails (``forget``), or for ``max_age``
seconds; "nobody holds it" only briefly (the replica that gets the next call adopts the shard).
Any lookup that cannot be made (bucket missing, NATS away, old replicas announcing no address)
answers None: the caller uses its configured address, as it did before routing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import grpc
import structlog
from nats.aio.client import Client as NATS
from nats.js.errors import KeyNotFoundError
from nats.js.kv import KeyValue

from libs.eventstore.kvkeys import all_keys
from libs.eventstore.members import Announcement
from libs.eventstore.shards import shard_key, shard_of
from libs.platform.routing import RoutedChannel

log = structlog.get_logger("eventstore.owners")

LEASE_BUCKET = "holdem_table_leases"
#: The longest an owner lookup may hold a call up (a hung NATS must not eat its deadline).
LOOKUP_SECONDS = 0.5


class _Ask:
    """The owner is not known without asking NATS."""


_ASK = _Ask()


class ShardOwners:
    def __init__(
        self,
        nc: NATS,
        bucket: str = LEASE_BUCKET,
        shards: int | None = None,
        max_age: float = 30.0,
        unheld_age: float = 0.5,
    ) -> None:
        self._nc = nc
        self.bucket = bucket
        self.shards = shards  # None: read from the announcements
        self.max_age = max_age
        self.unheld_age = unheld_age
        self._leases: KeyValue | None = None
        self._members: KeyValue | None = None
        self._cache: dict[str, tuple[str | None, float]] = {}  # shard key -> (address, until)
        self._unknown_until = 0.0  # no bucket or no shard count: not asked again before then
        self.lookups = 0  # lookups made in the buckets (not answered from the cache)

    async def _buckets(self) -> tuple[KeyValue, KeyValue]:
        if self._leases is None or self._members is None:
            js = self._nc.jetstream()
            self._leases = await js.key_value(self.bucket)
            self._members = await js.key_value(f"{self.bucket}_members")
        return self._leases, self._members

    async def _shard_count(self, members: KeyValue) -> int | None:
        if self.shards is not None:
            return self.shards
        for member in await all_keys(self._nc, f"{self.bucket}_members"):
            shards = (await _value(members, member)).shards
            if shards is not None:
                self.shards = shards  # the same on every replica: read once
                return shards
        return None

    async def address(self, table_id: str) -> str | None:
        """The address of the replica holding ``table_id``'s shard; None when nobody holds
        it, its holder announced no address, or it cannot be known now. A lookup NATS does not
        answer within ``LOOKUP_SECONDS`` is given up (the call goes to the configured address,
        which says what is wrong with NATS itself) and not tried again for a while."""
        known = self._known(table_id)
        if not isinstance(known, _Ask):  # from the cache: no task, no timer (every call asks)
            return known
        try:
            return await asyncio.wait_for(self._address(table_id), LOOKUP_SECONDS)
        except TimeoutError:
            log.debug("owner_lookup_timed_out", table_id=table_id)
            self._unknown_until = time.monotonic() + self.max_age / 6
            return None

    def _known(self, table_id: str) -> str | _Ask | None:
        """What ``_address`` would answer without asking NATS: None while lookups are given up,
        the cached owner while it is fresh; ``_ASK`` when NATS must be asked."""
        now = time.monotonic()
        if now < self._unknown_until:
            return None
        if self.shards is None or self._leases is None:
            return _ASK
        cached = self._cache.get(shard_key(shard_of(table_id, self.shards)))
        return cached[0] if cached is not None and now < cached[1] else _ASK

    async def _address(self, table_id: str) -> str | None:
        now = time.monotonic()
        if now < self._unknown_until:  # asked on every call: a miss must cost nothing
            return None
        try:
            leases, members = await self._buckets()
            count = await self._shard_count(members)
        except Exception as exc:  # no bucket yet, NATS away: the configured address meanwhile
            log.debug("owner_lookup_failed", error=str(exc)[:200])
            count = None
        if count is None:  # (or only replicas from before routing, announcing no count)
            self._unknown_until = now + self.max_age / 6
            return None
        key = shard_key(shard_of(table_id, count))
        cached = self._cache.get(key)
        if cached is not None and now < cached[1]:
            return cached[0]
        try:
            held, address = await self._lookup(leases, members, key)
        except Exception as exc:
            log.debug("owner_lookup_failed", shard=key, error=str(exc)[:200])
            return None
        # a shard nobody holds is adopted by the next call's replica: looked up again soon
        self._cache[key] = (address, now + (self.max_age if held else self.unheld_age))
        return address

    async def _lookup(
        self, leases: KeyValue, members: KeyValue, key: str
    ) -> tuple[bool, str | None]:
        """Whether ``key`` is held, and its holder's address (None: unknown)."""
        self.lookups += 1
        try:
            entry = await leases.get(key)
        except KeyNotFoundError:
            return False, None
        if not entry.value:
            return False, None
        return True, (await _value(members, entry.value.decode())).address

    def forget(self, table_id: str) -> None:
        """A call to the owner known for ``table_id`` failed: look it up afresh next time."""
        if self.shards is not None:
            self._cache.pop(shard_key(shard_of(table_id, self.shards)), None)


async def _value(members: KeyValue, replica: str) -> Announcement:
    try:
        entry = await members.get(replica)
    except KeyNotFoundError:
        return Announcement()
    return Announcement.decode(entry.value)


def routed_channel(
    nc: NATS,
    default_address: str,
    connect: Callable[[str], grpc.aio.Channel],
    bucket: str = LEASE_BUCKET,
) -> RoutedChannel:
    """A channel to the table service that sends each table's calls to the replica holding
    it (``connect(address)`` makes the channel to one address, the default one included)."""
    return RoutedChannel(
        connect(default_address), default_address, ShardOwners(nc, bucket), connect
    )
