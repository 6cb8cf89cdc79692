"""Contract tests of the event store, the snapshot store and the repository: the same tests for
every backend (in memory; real JetStream and Redis). Those of projections are in
test_projection_contracts.py.

Each backend class only says how to build its stores; the tests are inherited unchanged.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import pytest

from libs.eventstore import (
    Commit,
    ConcurrencyConflict,
    CorruptSnapshot,
    EventStore,
    InMemoryEventStore,
    InMemorySnapshotStore,
    Repository,
    SnapshotCache,
    SnapshotStore,
)
from libs.eventstore.redis_snapshots import RedisSnapshotStore
from tests.eventstore.backends import jetstream_store, redis_snapshots


class EventStoreContract:
    """Subclasses provide ``stores()``: an async context manager yielding an EventStore."""

    def stores(self) -> AbstractAsyncContextManager[EventStore]:
        raise NotImplementedError

    def run_events(self, body: Callable[[EventStore], Awaitable[None]]) -> None:
        async def main() -> None:
            async with self.stores() as store:
                await body(store)

        asyncio.run(main())

    def test_an_empty_stream_has_no_commits(self) -> None:
        async def body(store: EventStore) -> None:
            assert await store.last_sequence("empty") == 0
            assert await store.read("empty") == []

        self.run_events(body)

    def test_appends_with_the_expected_sequence_are_read_back_in_order(self) -> None:
        async def body(store: EventStore) -> None:
            last = 0
            for i in range(5):
                result = await store.append(
                    "t1", f"c{i}".encode(), expected_last=last, msg_id=f"m{i}"
                )
                assert result.sequence > last and not result.duplicate
                last = result.sequence
            commits = await store.read("t1")
            assert [c.data for c in commits] == [b"c0", b"c1", b"c2", b"c3", b"c4"]
            assert [c.msg_id for c in commits] == ["m0", "m1", "m2", "m3", "m4"]
            assert await store.last_sequence("t1") == last
            tail = await store.read("t1", after=commits[2].sequence)
            assert [c.data for c in tail] == [b"c3", b"c4"]

        self.run_events(body)

    def test_a_stale_expected_sequence_is_a_conflict_and_appends_nothing(self) -> None:
        async def body(store: EventStore) -> None:
            first = await store.append("t2", b"a", expected_last=0, msg_id="a")
            await store.append("t2", b"b", expected_last=first.sequence, msg_id="b")
            with pytest.raises(ConcurrencyConflict) as err:
                await store.append("t2", b"c", expected_last=first.sequence, msg_id="c")
            assert err.value.expected == first.sequence
            assert [c.data for c in await store.read("t2")] == [b"a", b"b"]

        self.run_events(body)

    def test_of_two_concurrent_writers_only_one_commits(self) -> None:
        async def body(store: EventStore) -> None:
            base = await store.append("t3", b"base", expected_last=0, msg_id="base")

            async def writer(name: str) -> str:
                try:
                    await store.append(
                        "t3", name.encode(), expected_last=base.sequence, msg_id=name
                    )
                    return "ok"
                except ConcurrencyConflict:
                    return "conflict"

            outcomes = await asyncio.gather(*(writer(f"w{i}") for i in range(8)))
            assert sorted(outcomes) == ["conflict"] * 7 + ["ok"]
            assert len(await store.read("t3")) == 2

        self.run_events(body)

    def test_a_retried_commit_returns_its_first_outcome_and_appends_once(self) -> None:
        async def body(store: EventStore) -> None:
            first = await store.append("t4", b"x", expected_last=0, msg_id="cmd-1")
            again = await store.append("t4", b"x", expected_last=0, msg_id="cmd-1")
            assert again.sequence == first.sequence and again.duplicate
            assert len(await store.read("t4")) == 1

        self.run_events(body)

    def test_streams_are_independent(self) -> None:
        async def body(store: EventStore) -> None:
            a = await store.append("ta", b"1", expected_last=0, msg_id="a1")
            b = await store.append("tb", b"1", expected_last=0, msg_id="b1")
            await store.append("ta", b"2", expected_last=a.sequence, msg_id="a2")
            assert [c.data for c in await store.read("tb")] == [b"1"]
            assert await store.last_sequence("tb") == b.sequence

        self.run_events(body)

    def test_the_same_message_id_in_two_streams_is_two_commits(self) -> None:
        async def body(store: EventStore) -> None:
            a = await store.append("s1", b"1", expected_last=0, msg_id="open")
            b = await store.append("s2", b"1", expected_last=0, msg_id="open")
            assert not a.duplicate and not b.duplicate and a.sequence != b.sequence
            assert [c.msg_id for c in await store.read("s2")] == ["open"]

        self.run_events(body)

    def test_headers_are_kept(self) -> None:
        async def body(store: EventStore) -> None:
            await store.append(
                "th", b"1", expected_last=0, msg_id="h1", headers={"Holdem-Schema": "2"}
            )
            (commit,) = await store.read("th")
            assert commit.headers.get("Holdem-Schema") == "2"

        self.run_events(body)

    def test_a_long_stream_reads_back_whole(self) -> None:
        async def body(store: EventStore) -> None:
            last = 0
            for i in range(1200):
                last = (
                    await store.append("long", str(i).encode(), expected_last=last, msg_id=str(i))
                ).sequence
            commits = await store.read("long")
            assert [int(c.data) for c in commits] == list(range(1200))

        self.run_events(body)


class SnapshotStoreContract:
    def snapshots(self) -> AbstractAsyncContextManager[SnapshotStore]:
        raise NotImplementedError

    def run_snapshots(self, body: Callable[[SnapshotStore], Awaitable[None]]) -> None:
        async def main() -> None:
            async with self.snapshots() as store:
                await body(store)

        asyncio.run(main())

    def test_missing_snapshot_is_none(self) -> None:
        async def body(store: SnapshotStore) -> None:
            assert await store.load("nothing") is None

        self.run_snapshots(body)

    def test_only_a_newer_snapshot_replaces_the_stored_one(self) -> None:
        async def body(store: SnapshotStore) -> None:
            assert await store.save("k", 10, b"ten")
            assert not await store.save("k", 5, b"five")
            assert not await store.save("k", 10, b"ten again")
            assert await store.save("k", 11, b"eleven")
            snap = await store.load("k")
            assert snap is not None and (snap.sequence, snap.data) == (11, b"eleven")
            await store.delete("k")
            assert await store.load("k") is None

        self.run_snapshots(body)

    def test_racing_writers_leave_the_newest_snapshot(self) -> None:
        async def body(store: SnapshotStore) -> None:
            await asyncio.gather(*(store.save("race", i, str(i).encode()) for i in range(50)))
            snap = await store.load("race")
            assert snap is not None and snap.sequence == 49 and snap.data == b"49"

        self.run_snapshots(body)


def _fold(state: list[str], commit: Commit) -> list[str]:
    return [*state, commit.data.decode()]


class RepositoryContract(EventStoreContract):
    def both(self) -> AbstractAsyncContextManager[tuple[EventStore, SnapshotStore]]:
        raise NotImplementedError

    def test_snapshot_plus_tail_equals_full_replay(self) -> None:
        async def main() -> None:
            async with self.both() as (events, snaps):
                repo: Repository[list[str]] = Repository(
                    events,
                    snaps,
                    initial=lambda _id: [],
                    fold=_fold,
                    encode=lambda s: "\n".join(s).encode(),
                    decode=lambda b: b.decode().split("\n") if b else [],
                    snapshot_every=7,
                )
                loaded = await repo.load("agg")
                for i in range(30):
                    r = await repo.append(
                        "agg", str(i).encode(), expected_last=loaded.sequence, msg_id=f"agg-{i}"
                    )
                    state = [*loaded.state, str(i)]
                    since = loaded.commits_since_snapshot + 1
                    if repo.snapshot_due(since):
                        await repo.snapshot("agg", state, r.sequence)
                        since = 0
                    loaded = type(loaded)(state, r.sequence, False, 0, since)
                with_snapshot = await repo.load("agg")
                full = await repo.load("agg", use_snapshot=False)
                assert with_snapshot.from_snapshot and with_snapshot.replayed == 30 - 28
                assert with_snapshot.state == full.state == [str(i) for i in range(30)]
                assert with_snapshot.sequence == full.sequence
                await snaps.delete("agg")  # Redis wiped: full replay gives the same state
                assert (await repo.load("agg")).state == full.state

        asyncio.run(main())

    def _repository(self, events: EventStore, snaps: SnapshotStore) -> Repository[list[str]]:
        def decode(data: bytes) -> list[str]:
            if not data.startswith(b"ok:"):
                raise ValueError("not a snapshot of this aggregate")
            return data[3:].decode().split("\n") if data[3:] else []

        return Repository(
            events,
            snaps,
            initial=lambda _id: [],
            fold=_fold,
            encode=lambda s: b"ok:" + "\n".join(s).encode(),
            decode=decode,
        )

    def test_a_corrupt_snapshot_is_discarded_and_the_stream_folded(self) -> None:
        """Garbage where the snapshot was (a corrupted cache): the load folds the stream, the
        snapshot is deleted, and the next snapshot is written."""

        async def main() -> None:
            async with self.both() as (events, snaps):
                repo = self._repository(events, snaps)
                last = 0
                for i in range(5):
                    last = (
                        await repo.append("c", str(i).encode(), expected_last=last, msg_id=str(i))
                    ).sequence
                assert await snaps.save("c", last, b"\x00garbage")
                loaded = await repo.load("c")
                assert loaded.state == ["0", "1", "2", "3", "4"] and not loaded.from_snapshot
                assert repo.discarded == 1 and await snaps.load("c") is None
                assert await repo.snapshot("c", loaded.state, loaded.sequence)
                assert (await repo.load("c")).from_snapshot and repo.discarded == 1

        asyncio.run(main())

    def test_a_snapshot_ahead_of_its_stream_is_discarded(self) -> None:
        """A snapshot of a stream since restored from an older backup: it does not match."""

        async def main() -> None:
            async with self.both() as (events, snaps):
                repo = self._repository(events, snaps)
                first = await repo.append("r", b"a", expected_last=0, msg_id="a")
                assert await repo.snapshot("r", ["a", "b", "c"], first.sequence + 1000)
                loaded = await repo.load("r")
                assert loaded.state == ["a"] and loaded.sequence == first.sequence
                assert repo.discarded == 1 and await snaps.load("r") is None

        asyncio.run(main())


class TestInMemory(RepositoryContract, SnapshotStoreContract):
    @asynccontextmanager
    async def stores(self) -> AsyncIterator[EventStore]:
        yield InMemoryEventStore()

    @asynccontextmanager
    async def snapshots(self) -> AsyncIterator[SnapshotStore]:
        yield InMemorySnapshotStore()

    @asynccontextmanager
    async def both(self) -> AsyncIterator[tuple[EventStore, SnapshotStore]]:
        yield InMemoryEventStore(), InMemorySnapshotStore()


@pytest.mark.integration
class TestRealNatsAndRedis(RepositoryContract, SnapshotStoreContract):
    @pytest.fixture(autouse=True)
    def _urls(self, nats_url: str, redis_url: str) -> None:
        self.nats_url = nats_url
        self.redis_url = redis_url

    def stores(self) -> AbstractAsyncContextManager[EventStore]:
        return jetstream_store(self.nats_url)

    def snapshots(self) -> AbstractAsyncContextManager[SnapshotStore]:
        return redis_snapshots(self.redis_url)

    @asynccontextmanager
    async def both(self) -> AsyncIterator[tuple[EventStore, SnapshotStore]]:
        async with self.stores() as events, self.snapshots() as snaps:
            yield events, snaps

    def test_a_sequence_that_is_no_number_is_discarded_and_replaced(self) -> None:
        """Redis's hash corrupted: the cache still answers (no outage), the load folds the
        stream, and the next snapshot replaces the hash (the compare-and-set takes it)."""

        async def main() -> None:
            async with self.both() as (events, snaps):
                assert isinstance(snaps, RedisSnapshotStore)
                cache = SnapshotCache(snaps)
                repo = self._repository(events, cache)
                first = await repo.append("n", b"a", expected_last=0, msg_id="a")
                await snaps._redis.hset(snaps.prefix + "n", mapping={"seq": "x1", "data": b"?"})
                with pytest.raises(CorruptSnapshot):
                    await snaps.load("n")
                loaded = await repo.load("n")
                assert loaded.state == ["a"] and repo.discarded == 1 and cache.reachable
                await snaps._redis.hset(snaps.prefix + "n", mapping={"seq": "x2", "data": b"?"})
                assert await snaps.save("n", first.sequence, b"ok:a")
                assert (await repo.load("n")).from_snapshot

        asyncio.run(main())
