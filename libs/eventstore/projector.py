"""Keeping projections complete: ``Projector`` publishes one message per commit of each aggregate
this process serves, in commit order and each exactly once, through a ``Projection``
(libs.eventstore.projection, which says what each message carries and how a publish is
guarded), in the background so a command never waits for it; and, on load, the commits a dead
owner appended but never projected (``catch_up``).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import structlog

from libs.platform.tasks import honour_cancel, stop_tasks

from .projection import DEFAULT_MAX_AGE_SECONDS, Projection, ProjectionConflict
from .store import Commit, EventStore, StoreError

log = structlog.get_logger("eventstore.projection")

Project = Callable[[Commit], "Projectable"]


@dataclass(frozen=True, slots=True)
class Projectable:
    """What a commit looks like projected (``data``), and when it was recorded (seconds since
    the epoch), which decides whether it is still worth projecting after a long outage."""

    data: bytes
    recorded_at: float


_Then = Callable[[], Awaitable[None]]


@dataclass(slots=True)
class _Pending:
    sequence: int
    previous: int
    data: bytes
    then: _Then | None = None


class _Subject:
    """One aggregate's publishing state: what is known to be projected, and the queue."""

    def __init__(self) -> None:
        self.position: int | None = None  # None: to be looked up
        self.through = 0  # the last commit sequence known to be projected
        self.queue: deque[_Pending] = deque()
        self.worker: asyncio.Task[None] | None = None
        self.in_flight = False  # the head of the queue was sent (``publish_nowait``), unanswered
        self.idle = asyncio.Event()
        self.idle.set()

    @property
    def busy(self) -> bool:
        """Somebody publishes this queue now: a publish in flight, or the worker."""
        return self.in_flight or (self.worker is not None and not self.worker.done())


class Projector:
    """Keeps the projections of one process's aggregates complete and in order.

    ``submit`` queues a commit's projection right after its append (the command does not wait);
    a worker per aggregate publishes the queue in order, each publish guarded by the position
    of the subject's last message. ``catch_up`` (on load, before the aggregate serves commands)
    projects every commit after the subject's last projected one: those of an owner that died
    between append and publish. Commits recorded more than ``max_age`` ago are not projected
    again when the subject is empty (their projection would have aged out already).
    """

    def __init__(
        self,
        events: EventStore,
        projection: Projection,
        project: Project,
        *,
        max_age: float = DEFAULT_MAX_AGE_SECONDS,
        clock: Callable[[], float] = time.time,
        retry_delay: float = 0.2,
    ) -> None:
        self.events = events
        self.projection = projection
        self.project = project
        self.max_age = max_age
        self.clock = clock
        self.retry_delay = retry_delay
        self._subjects: dict[str, _Subject] = {}

    def _subject(self, stream_id: str) -> _Subject:
        subject = self._subjects.get(stream_id)
        if subject is None:
            subject = self._subjects[stream_id] = _Subject()
        return subject

    async def catch_up(self, stream_id: str, through: int) -> int:
        """Make the projection hold every commit up to ``through`` (the sequence the loaded
        aggregate reflects); return how many were projected now."""
        subject = self._subject(stream_id)
        await subject.idle.wait()  # a queue of an earlier load goes first
        last = await self.projection.last(stream_id)
        subject.position = last.position if last is not None else 0
        done = last.sequence if last is not None else 0
        subject.through = max(subject.through, done)
        if done >= through:
            return 0
        commits = await self.events.read(stream_id, after=done)
        oldest = self.clock() - self.max_age
        published = 0
        previous = done
        for commit in commits:
            if commit.sequence > through:
                break
            projectable = self.project(commit)
            if last is None and projectable.recorded_at < oldest:
                previous = commit.sequence  # would have aged out: not projected again
                continue
            await self._publish(stream_id, _Pending(commit.sequence, previous, projectable.data))
            previous = commit.sequence
            published += 1
        subject.through = max(subject.through, previous)
        if published:
            log.info("projection_caught_up", stream_id=stream_id, commits=published)
        return published

    def submit(
        self,
        stream_id: str,
        sequence: int,
        previous: int,
        data: bytes,
        *,
        then: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        """Queue the projection of the commit just appended at ``sequence`` on ``previous``;
        ``then`` runs once it is published (by this process)."""
        subject = self._subject(stream_id)
        subject.queue.append(_Pending(sequence, previous, data, then))
        if subject.busy:
            return  # whoever publishes now takes it in its turn
        subject.idle.clear()
        if not self._send_now(stream_id, subject):
            self._start_worker(stream_id, subject)

    def _start_worker(self, stream_id: str, subject: _Subject, then: _Then | None = None) -> None:
        subject.worker = asyncio.create_task(self._drain(stream_id, subject, then))

    def _send_now(self, stream_id: str, subject: _Subject) -> bool:
        """Publish the head of the queue without a task (``publish_nowait``): when the
        projection can, and the head is simply the next one (the subject's position known,
        the commit before it projected). Its answer goes to ``_answered``. False: nothing was
        sent, the worker must take the queue (it looks things up, fills gaps and retries)."""
        publish_nowait = getattr(self.projection, "publish_nowait", None)
        pending = subject.queue[0]
        if (
            publish_nowait is None
            or subject.position is None
            or subject.through != pending.previous
        ):
            return False

        def answered(result: int | BaseException) -> None:
            self._answered(stream_id, subject, pending, result)

        try:
            sent: bool = publish_nowait(
                stream_id,
                pending.sequence,
                pending.previous,
                pending.data,
                expected_position=subject.position,
                callback=answered,
            )
        except Exception:  # e.g. the connection closed: the worker tries again, and logs it
            return False
        subject.in_flight = sent
        return sent

    def _answered(
        self, stream_id: str, subject: _Subject, pending: _Pending, result: int | BaseException
    ) -> None:
        """The answer to the head of ``subject``'s queue, sent by ``_send_now``."""
        subject.in_flight = False
        if self._subjects.get(stream_id) is not subject or not subject.queue:
            return  # forgotten or stopped meanwhile: whoever serves the aggregate projects it
        if subject.queue[0] is not pending:
            return  # not ours to settle (cannot happen: one publish of a queue at a time)
        if isinstance(result, BaseException):
            # a conflict, a refusal, no answer in time (it may still land): the worker looks
            # the subject up and goes on from what is there
            subject.position = None
            self._start_worker(stream_id, subject)
            return
        subject.position = result
        subject.through = pending.sequence
        subject.queue.popleft()
        if pending.then is not None:
            self._start_worker(stream_id, subject, pending.then)
        elif not subject.queue:
            subject.idle.set()
        elif not self._send_now(stream_id, subject):
            self._start_worker(stream_id, subject)

    def pending(self, stream_id: str | None = None) -> int:
        """Projections queued and not yet published."""
        subjects = [self._subjects.get(stream_id)] if stream_id else self._subjects.values()
        return sum(len(s.queue) for s in subjects if s is not None)

    async def flush(self, stream_id: str | None = None) -> None:
        """Wait until what was submitted (for ``stream_id``, or every aggregate) is published."""
        subjects = [self._subjects.get(stream_id)] if stream_id else list(self._subjects.values())
        for subject in subjects:
            if subject is not None:
                await subject.idle.wait()

    def forget(self, stream_id: str) -> None:
        """Stop publishing ``stream_id`` (another process serves it now; whoever loads it
        projects what this one did not)."""
        subject = self._subjects.pop(stream_id, None)
        if subject is not None and subject.worker is not None:
            subject.worker.cancel()
            subject.idle.set()

    async def stop(self) -> None:
        subjects, self._subjects = self._subjects, {}
        await stop_tasks(subject.worker for subject in subjects.values())

    async def _drain(self, stream_id: str, subject: _Subject, then: _Then | None = None) -> None:
        """Publish the queue in order (``then``: what the projection published last asked to
        run once it was public)."""
        try:
            if then is not None:
                await self._then(stream_id, then)
            while subject.queue:
                pending = subject.queue[0]
                try:
                    await self._publish(stream_id, pending)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # NATS unreachable: keep the order, try again
                    honour_cancel()  # asked to stop, even if the publish swallowed it
                    log.warning("projection_retry", stream_id=stream_id, error=str(exc))
                    subject.position = None
                    await asyncio.sleep(self.retry_delay)
                    continue
                subject.queue.popleft()
                if pending.then is not None:
                    await self._then(stream_id, pending.then)
        finally:
            subject.idle.set()

    @staticmethod
    async def _then(stream_id: str, then: _Then) -> None:
        try:
            await then()
        except Exception as exc:
            log.warning("projection_then_failed", stream_id=stream_id, error=str(exc))

    async def _publish(self, stream_id: str, pending: _Pending) -> None:
        """Publish one projection in its place: skipped when it is there already; the commits
        between the subject's last projection and it first, when some are missing."""
        subject = self._subject(stream_id)
        for _ in range(100):
            if subject.position is None:
                last = await self.projection.last(stream_id)
                subject.position = last.position if last is not None else 0
                if last is not None:
                    subject.through = last.sequence
            if subject.through >= pending.sequence:
                return  # projected already (by us before a retry, or by another process)
            if subject.through < pending.previous and subject.through > 0:
                await self._fill(stream_id, subject, pending.previous)
                continue
            try:
                subject.position = await self.projection.publish(
                    stream_id,
                    pending.sequence,
                    pending.previous,
                    pending.data,
                    expected_position=subject.position,
                )
                subject.through = pending.sequence
                return
            except ProjectionConflict:
                subject.position = None  # look again
        raise StoreError(f"projection of {stream_id!r} kept moving")

    async def _fill(self, stream_id: str, subject: _Subject, upto: int) -> None:
        """Project the commits after ``subject.through`` up to ``upto`` (missing in between)."""
        previous = subject.through
        for commit in await self.events.read(stream_id, after=subject.through):
            if commit.sequence > upto:
                break
            data = self.project(commit).data
            assert subject.position is not None
            try:
                subject.position = await self.projection.publish(
                    stream_id, commit.sequence, previous, data, expected_position=subject.position
                )
            except ProjectionConflict:
                subject.position = None
                return
            subject.through = previous = commit.sequence
