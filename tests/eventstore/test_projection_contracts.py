"""Contract tests of projections: the same tests for every backend (in memory; real JetStream).
A ``Projection`` publishes guarded by the subject's last position and reads back by commit
sequence; a ``Projector`` over it projects every commit once, in order, whoever else publishes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import pytest

from libs.eventstore import (
    Commit,
    EventStore,
    InMemoryEventStore,
    InMemoryProjection,
    Projectable,
    Projection,
    ProjectionConflict,
    Projector,
)
from tests.eventstore.backends import jetstream_projection, jetstream_store


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


class TestInMemory(ProjectionContract, ProjectorContract):
    @asynccontextmanager
    async def projections(self) -> AsyncIterator[Projection]:
        yield InMemoryProjection()

    @asynccontextmanager
    async def projector_stores(self) -> AsyncIterator[tuple[EventStore, Projection]]:
        yield InMemoryEventStore(), InMemoryProjection()


@pytest.mark.integration
class TestRealNats(ProjectionContract, ProjectorContract):
    @pytest.fixture(autouse=True)
    def _urls(self, nats_url: str) -> None:
        self.nats_url = nats_url

    def projections(self) -> AbstractAsyncContextManager[Projection]:
        return jetstream_projection(self.nats_url, "testpub")

    @asynccontextmanager
    async def projector_stores(self) -> AsyncIterator[tuple[EventStore, Projection]]:
        async with jetstream_store(self.nats_url) as events, self.projections() as projection:
            yield events, projection
