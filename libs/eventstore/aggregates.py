"""Event-sourced aggregates on the event store, the one way every service keeps them (the
lobby's wallets, accounts and catalogue; the tournaments): every change is one commit appended
with the expected last sequence and a message id, states are snapshotted every
``snapshot_every`` commits, and a load is "snapshot + the commits after it". A process keeps the
states it loaded in a cache, but never trusts it: other replicas write the same streams, so
every read first catches the cached state up with the commits appended since (one read of the
subject's last sequence when there are none), and every decision is appended with the expected
last sequence: a replica that lost the race reloads and decides again (``Aggregates.execute``).
In-process locks only keep one process from racing itself; they are not what makes two
replicas safe. ``Index``: which ids of a kind exist (a NATS KV bucket), written before the
first commit, so a restarted service finds every aggregate.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from nats.aio.client import Client as NATS
from nats.js.api import KeyValueConfig, StorageType
from nats.js.errors import KeyNotFoundError
from nats.js.kv import KeyValue

from .kv import open_bucket
from .kvkeys import all_keys
from .repository import Repository
from .store import Commit, ConcurrencyConflict, EventStore, SnapshotStore

S = TypeVar("S")
E = TypeVar("E")

_ATTEMPTS = 12  # conflicting replicas decide again; each retry waits a little longer


@dataclass(frozen=True)
class Kind(Generic[S, E]):
    """How one aggregate kind is started, changed and stored."""

    name: str
    initial: Callable[[str], S]
    evolve: Callable[[S, E], S]
    encode_events: Callable[[list[E]], bytes]
    decode_events: Callable[[bytes], list[E]]
    encode_state: Callable[[S], bytes]
    decode_state: Callable[[bytes], S]


@dataclass
class _Cached(Generic[S]):
    state: S
    sequence: int
    since_snapshot: int


class Aggregates(Generic[S, E]):
    """Load, decide and append for one aggregate kind; one decision at a time per id."""

    def __init__(
        self,
        kind: Kind[S, E],
        events: EventStore,
        snapshots: SnapshotStore | None,
        snapshot_every: int = 50,
    ) -> None:
        self.kind = kind

        def fold(state: S, commit: Commit) -> S:
            for event in kind.decode_events(commit.data):
                state = kind.evolve(state, event)
            return state

        self.repository: Repository[S] = Repository(
            events,
            snapshots,
            initial=kind.initial,
            fold=fold,
            encode=kind.encode_state,
            decode=kind.decode_state,
            snapshot_every=snapshot_every,
        )
        self._cache: dict[str, _Cached[S]] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def _lock(self, key: str) -> asyncio.Lock:
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        return lock

    async def _load(self, key: str) -> _Cached[S]:
        """The aggregate as of its last commit: the cached state caught up with whatever other
        replicas appended since, or a load (snapshot + commits after it)."""
        cached = self._cache.get(key)
        if cached is None:
            # a snapshot this version cannot read is discarded by the repository (the stream
            # has every commit)
            loaded = await self.repository.load(key)
            cached = _Cached(loaded.state, loaded.sequence, loaded.commits_since_snapshot)
            self._cache[key] = cached
            return cached
        state, sequence, folded = await self.repository.catch_up(key, cached.state, cached.sequence)
        if folded:
            cached = _Cached(state, sequence, cached.since_snapshot + folded)
            self._cache[key] = cached
        return cached

    async def get(self, key: str) -> S:
        async with self._lock(key):
            return (await self._load(key)).state

    def forget(self, key: str) -> None:
        self._cache.pop(key, None)

    async def execute(self, key: str, decide: Callable[[S], list[E]], msg_id: str) -> S:
        """Decide on the current state and append the events (if any) as one commit with
        message id ``msg_id``; the state after it. ``decide`` may raise a refusal.

        Optimistic: the first decision is made on the cached state without asking the stream
        (the append's expected sequence catches a stale one); only a refusal or a decision to
        do nothing, which the stream would not contradict, is checked against it first."""
        async with self._lock(key):
            cached = self._cache.get(key)
            checked = cached is None  # a state just loaded is the stream's
            if cached is None:
                cached = await self._load(key)
            for attempt in range(_ATTEMPTS):
                try:
                    events: list[E] | None = decide(cached.state)
                except Exception:
                    if checked:
                        raise
                    events = None  # refused on the cache: the stream's state may differ
                if not events:
                    if checked:
                        return cached.state
                    cached, checked = await self._load(key), True
                    continue
                try:
                    result = await self.repository.append(
                        key,
                        self.kind.encode_events(events),
                        expected_last=cached.sequence,
                        msg_id=msg_id,
                    )
                except ConcurrencyConflict:  # another replica appended first: catch up with
                    await asyncio.sleep(random.uniform(0, 0.005 * attempt))  # what won, again
                    cached, checked = await self._load(key), True
                    continue
                except BaseException:
                    self.forget(key)  # unknown whether it landed: load again next time
                    raise
                if result.duplicate:  # the same step landed before (a retry, or another
                    return (await self._load(key)).state  # replica): the state after it
                state = cached.state
                for event in events:
                    state = self.kind.evolve(state, event)
                cached = _Cached(state, result.sequence, cached.since_snapshot + 1)
                self._cache[key] = cached
                if self.repository.snapshot_due(cached.since_snapshot):
                    with contextlib.suppress(Exception):  # a snapshot is an optimisation
                        await self.repository.snapshot(key, cached.state, cached.sequence)
                        cached.since_snapshot = 0
                return state
            raise ConcurrencyConflict(key, -1, -1)


class Index:
    """Ids of one aggregate kind that exist (a NATS KV bucket; the value is free text)."""

    def __init__(self, nc: NATS, bucket: str) -> None:
        self._nc = nc
        self.bucket = bucket
        self._kv: KeyValue | None = None

    async def start(self) -> None:
        self._kv = await open_bucket(
            self._nc.jetstream(),
            KeyValueConfig(bucket=self.bucket, history=1, storage=StorageType.FILE),
        )

    @property
    def kv(self) -> KeyValue:
        if self._kv is None:
            raise RuntimeError("Index.start() was not called")
        return self._kv

    async def put(self, key: str, value: str = "1") -> None:
        await self.kv.put(key, value.encode())

    async def get(self, key: str) -> str | None:
        try:
            entry = await self.kv.get(key)
        except KeyNotFoundError:
            return None
        return entry.value.decode() if entry.value else None

    async def remove(self, key: str) -> None:
        with contextlib.suppress(KeyNotFoundError):
            await self.kv.delete(key)

    async def keys(self) -> list[str]:
        return await all_keys(self._nc, self.bucket)
