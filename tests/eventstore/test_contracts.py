"""Contract tests: the same tests for every backend (in memory; real JetStream and Redis).

Each backend class only says how to build its stores; the tests are inherited unchanged.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import pytest

from libs.eventstore import (
    Commit,
    ConcurrencyConflict,
    EventStore,
    InMemoryEventStore,
    InMemoryProjection,
    InMemorySnapshotStore,
    Projectable,
    Projection,
    ProjectionConflict,
    Projector,
    Repository,
    SnapshotStore,
)


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


class ProjectionContract:
    """Subclasses provide ``projections()``: an async context manager yielding a Projection."""

    def projections(self) -> AbstractAsyncContextManager[Projection]:
        raise NotImplementedError

    def run_projection(self, body: Callable[[Projection], Awaitable[None]]) -> None:
        async def main() -> None:
            async with self.projections() as projection:
                await body(projection)

        asyncio.run(main())

    def test_a_publish_guarded_by_the_last_position_lands_and_a_stale_one_is_refused(
        self,
    ) -> None:
        async def body(projection: Projection) -> None:
            assert await projection.last("a") is None
            first = await projection.publish("a", 3, 0, b"three", expected_position=0)
            with pytest.raises(ProjectionConflict):
                await projection.publish("a", 5, 3, b"five", expected_position=0)
            second = await projection.publish("a", 5, 3, b"five", expected_position=first)
            last = await projection.last("a")
            assert last is not None
            assert (last.sequence, last.previous, last.data, last.position) == (
                5,
                3,
                b"five",
                second,
            )
            with pytest.raises(ProjectionConflict):  # the same commit again: never twice
                await projection.publish("a", 5, 3, b"five", expected_position=second)
            assert [p.sequence for p in await projection.read("a")] == [3, 5]

        self.run_projection(body)

    def test_reading_after_a_sequence_finds_it_among_other_subjects(self) -> None:
        async def body(projection: Projection) -> None:
            positions = {"x": 0, "y": 0}
            for sequence in range(1, 120):
                stream_id = "x" if sequence % 3 else "y"
                previous = sequence - 1 if stream_id == "x" and sequence % 3 != 1 else 0
                positions[stream_id] = await projection.publish(
                    stream_id,
                    sequence,
                    previous,
                    str(sequence).encode(),
                    expected_position=positions[stream_id],
                )
            x = [s for s in range(1, 120) if s % 3]
            for after in (0, 1, 2, 3, 50, 58, 117, 118, 119, 500):
                found = await projection.read("x", after=after)
                assert [p.sequence for p in found] == [s for s in x if s > after]
            assert [p.sequence for p in await projection.read("x", after=4, limit=3)] == [5, 7, 8]
            assert await projection.read("nobody") == []

        self.run_projection(body)


class ProjectorContract:
    """``Projector`` over a backend's event store and projection (``projector_stores()``):
    every commit projected once, in order, whoever else publishes; the common case (the next
    commit of an aggregate) without a task where the projection can (``publish_nowait``)."""

    def projector_stores(self) -> AbstractAsyncContextManager[tuple[EventStore, Projection]]:
        raise NotImplementedError

    def run_projector(self, body: Callable[[EventStore, Projection], Awaitable[None]]) -> None:
        async def main() -> None:
            async with self.projector_stores() as (events, projection):
                await body(events, projection)

        asyncio.run(main())

    @staticmethod
    async def _append(events: EventStore, stream_id: str, count: int) -> list[Commit]:
        last = first = await events.last_sequence(stream_id)
        for i in range(count):
            key = f"{first}-{i}"
            last = (
                await events.append(stream_id, f"c{key}".encode(), expected_last=last, msg_id=key)
            ).sequence
        return await events.read(stream_id)

    @staticmethod
    def _projector(events: EventStore, projection: Projection) -> Projector:
        return Projector(events, projection, lambda c: Projectable(c.data, time.time()))

    @staticmethod
    async def _assert_projected_once_in_order(
        projection: Projection, stream_id: str, commits: list[Commit]
    ) -> None:
        found = await projection.read(stream_id)
        assert [p.sequence for p in found] == [c.sequence for c in commits]
        assert [p.previous for p in found] == [0, *(c.sequence for c in commits[:-1])]
        assert [p.data for p in found] == [c.data for c in commits]

    def test_commits_submitted_faster_than_they_publish_are_projected_once_in_order(
        self,
    ) -> None:
        async def body(events: EventStore, projection: Projection) -> None:
            commits = await self._append(events, "a", 40)
            projector = self._projector(events, projection)
            await projector.catch_up("a", 0)
            ran: list[int] = []
            previous = 0
            for commit in commits:  # all queued at once: each waits for the one before
                seq = commit.sequence

                async def then(seq: int = seq) -> None:
                    ran.append(seq)

                projector.submit(
                    "a", seq, previous, commit.data, then=then if seq % 10 == 0 else None
                )
                previous = seq
            await projector.flush("a")
            assert projector.pending() == 0
            await self._assert_projected_once_in_order(projection, "a", commits)
            assert ran == [c.sequence for c in commits if c.sequence % 10 == 0]
            await projector.stop()

        self.run_projector(body)

    def test_a_rival_publisher_never_makes_a_commit_public_twice_or_out_of_order(self) -> None:
        """A dying owner and the replica that took over both project the same commits."""

        async def body(events: EventStore, projection: Projection) -> None:
            commits = await self._append(events, "a", 30)
            mine, rival = self._projector(events, projection), self._projector(events, projection)
            await mine.catch_up("a", 0)
            await rival.catch_up("a", 0)
            previous = 0
            for commit in commits:
                for projector in (mine, rival) if commit.sequence % 3 else (rival, mine):
                    projector.submit("a", commit.sequence, previous, commit.data)
                previous = commit.sequence
                if commit.sequence % 7 == 0:
                    await asyncio.sleep(0)
            await asyncio.gather(mine.flush("a"), rival.flush("a"))
            await self._assert_projected_once_in_order(projection, "a", commits)
            await mine.stop()
            await rival.stop()

        self.run_projector(body)

    def test_commits_an_owner_appended_but_never_projected_are_projected_by_the_next(
        self,
    ) -> None:
        async def body(events: EventStore, projection: Projection) -> None:
            commits = await self._append(events, "a", 12)
            dying = self._projector(events, projection)
            await dying.catch_up("a", 0)
            previous = 0
            for commit in commits[:5]:
                dying.submit("a", commit.sequence, previous, commit.data)
                previous = commit.sequence
            dying.forget("a")  # it died with publishes in flight or queued
            await asyncio.sleep(0.05)
            heir = self._projector(events, projection)
            assert await heir.catch_up("a", commits[-1].sequence) >= len(commits) - 5
            await self._assert_projected_once_in_order(projection, "a", commits)
            more = await self._append(events, "a", 3)
            for commit in more[len(commits) :]:
                heir.submit("a", commit.sequence, previous_of(more, commit), commit.data)
            await heir.flush("a")
            await self._assert_projected_once_in_order(projection, "a", more)
            await heir.stop()

        self.run_projector(body)

    def test_the_next_commit_of_an_aggregate_is_published_without_a_task(self) -> None:
        """Both projections offer ``publish_nowait``: a run of commits that each follow the
        last starts no worker task (the retrying worker is for gaps and failures)."""

        async def body(events: EventStore, projection: Projection) -> None:
            commits = await self._append(events, "a", 20)
            projector = self._projector(events, projection)
            await projector.catch_up("a", 0)
            workers = 0
            start = projector._start_worker

            def counting(*args: Any) -> None:
                nonlocal workers
                workers += 1
                start(*args)

            projector._start_worker = counting  # type: ignore[method-assign,assignment]
            previous = 0
            for commit in commits:
                if commit is commits[1]:
                    workers = 0  # the first publish may subscribe the answers' inbox first
                projector.submit("a", commit.sequence, previous, commit.data)
                previous = commit.sequence
                await projector.flush("a")
            await self._assert_projected_once_in_order(projection, "a", commits)
            assert workers == 0
            await projector.stop()

        self.run_projector(body)


def previous_of(commits: list[Commit], commit: Commit) -> int:
    index = commits.index(commit)
    return commits[index - 1].sequence if index else 0


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


class TestInMemory(
    RepositoryContract, SnapshotStoreContract, ProjectionContract, ProjectorContract
):
    @asynccontextmanager
    async def stores(self) -> AsyncIterator[EventStore]:
        yield InMemoryEventStore()

    @asynccontextmanager
    async def projections(self) -> AsyncIterator[Projection]:
        yield InMemoryProjection()

    @asynccontextmanager
    async def snapshots(self) -> AsyncIterator[SnapshotStore]:
        yield InMemorySnapshotStore()

    @asynccontextmanager
    async def both(self) -> AsyncIterator[tuple[EventStore, SnapshotStore]]:
        yield InMemoryEventStore(), InMemorySnapshotStore()

    @asynccontextmanager
    async def projector_stores(self) -> AsyncIterator[tuple[EventStore, Projection]]:
        yield InMemoryEventStore(), InMemoryProjection()


@asynccontextmanager
async def jetstream_store(nats_url: str) -> AsyncIterator[EventStore]:
    """A JetStream event store on a stream of its own, deleted afterwards."""
    import nats

    from libs.eventstore.jetstream import JetStreamEventStore

    nc = await nats.connect(nats_url)
    name = f"T{uuid.uuid4().hex[:12]}"
    store = JetStreamEventStore(nc, stream=name, subject_prefix=f"test.{name}")
    await store.ensure_stream()
    try:
        yield store
    finally:
        await nc.jetstream().delete_stream(name)
        await nc.close()


@asynccontextmanager
async def jetstream_projection(nats_url: str, prefix: str) -> AsyncIterator[Projection]:
    """A JetStream projection on a stream of its own (subjects ``<prefix>.<stream>.*``),
    deleted afterwards."""
    import nats

    from libs.eventstore.projection import JetStreamProjection

    nc = await nats.connect(nats_url)
    name = f"P{uuid.uuid4().hex[:12]}"
    projection = JetStreamProjection(nc, stream=name, subject_prefix=f"{prefix}.{name}")
    await projection.ensure_stream()
    try:
        yield projection
    finally:
        await nc.jetstream().delete_stream(name)
        await nc.close()


@pytest.mark.integration
class TestRealNatsAndRedis(
    RepositoryContract, SnapshotStoreContract, ProjectionContract, ProjectorContract
):
    @pytest.fixture(autouse=True)
    def _urls(self, nats_url: str, redis_url: str) -> None:
        self.nats_url = nats_url
        self.redis_url = redis_url

    def stores(self) -> AbstractAsyncContextManager[EventStore]:
        return jetstream_store(self.nats_url)

    @asynccontextmanager
    async def snapshots(self) -> AsyncIterator[SnapshotStore]:
        from redis.asyncio import Redis

        from libs.eventstore.redis_snapshots import RedisSnapshotStore

        redis = Redis.from_url(self.redis_url)
        try:
            yield RedisSnapshotStore(redis, prefix=f"test:{uuid.uuid4().hex}:")
        finally:
            await redis.aclose()

    @asynccontextmanager
    async def both(self) -> AsyncIterator[tuple[EventStore, SnapshotStore]]:
        async with self.stores() as events, self.snapshots() as snaps:
            yield events, snaps

    def projections(self) -> AbstractAsyncContextManager[Projection]:
        return jetstream_projection(self.nats_url, "testpub")

    @asynccontextmanager
    async def projector_stores(self) -> AsyncIterator[tuple[EventStore, Projection]]:
        async with self.stores() as events, self.projections() as projection:
            yield events, projection
