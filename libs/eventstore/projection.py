"""Projections: one message per commit of an aggregate, published after the commit to a stream
that others may read (the table's public projection on ``HOLDEM_PUBLIC``), in commit order and
each exactly once, with what a consumer needs to prove it missed nothing.

Each projected message carries ``Nats-Msg-Id = "<aggregate id>:<commit sequence>"``, the header
``Holdem-Sequence`` (the commit's sequence in the aggregate's own stream) and ``Holdem-Previous``
(the aggregate's commit before it, i.e. the expected-last of its append; 0 for the first). A
consumer whose last message had sequence S knows it missed something when the next one's
``Holdem-Previous`` is not S.

Exactly once, in order, even with two publishers (a dying owner and the replica that took its
aggregate over): every publish is guarded by ``Nats-Expected-Last-Subject-Sequence`` (the
position, in the projection stream, of the subject's last message as the publisher knows it).
A publisher that is not up to date is refused (``ProjectionConflict``) and looks again
(``Projector``). Commits that were appended but never projected (the owner died in between)
are projected by whoever loads the aggregate next (``Projector.catch_up``).

- ``Projection``: the store protocol; ``JetStreamProjection`` and ``InMemoryProjection``
  (libs.eventstore.memory) implement it; ``read_public`` is the reader for the table's public
  projection (``libs.tableproto.public`` decodes what it returns).
- ``Projector``: keeps one process's projections complete and ordered (a queue per aggregate,
  published in the background so a command never waits for it).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

import structlog
from nats.aio.client import Client as NATS
from nats.js import JetStreamContext
from nats.js.api import (
    AckPolicy,
    ConsumerConfig,
    DeliverPolicy,
    PubAck,
    StorageType,
    StreamConfig,
)
from nats.js.errors import BadRequestError, NotFoundError

from libs.platform.tasks import honour_cancel, stop_tasks

from .jetstream import WRONG_LAST_SEQUENCE_CODES
from .natsheaders import use_fast_headers
from .natsraw import JetStreamPublisher
from .store import Commit, EventStore, StoreError

log = structlog.get_logger("eventstore.projection")

PUBLIC_STREAM = "HOLDEM_PUBLIC"
PUBLIC_SUBJECT_PREFIX = "holdem.public.table"
SEQUENCE_HEADER = "Holdem-Sequence"
PREVIOUS_HEADER = "Holdem-Previous"
DEFAULT_MAX_AGE_SECONDS = 7 * 24 * 3600.0
_READ_BATCH = 512


@dataclass(frozen=True, slots=True)
class Projected:
    """One projected commit: ``sequence`` and ``previous`` are the aggregate's own commit
    sequences; ``position`` is the message's sequence in the projection stream."""

    stream_id: str
    sequence: int
    previous: int
    data: bytes
    position: int


class ProjectionConflict(StoreError):
    """Somebody else published on this aggregate's subject since the position the publisher
    expected: look at the subject's last message again."""

    def __init__(self, stream_id: str, expected_position: int) -> None:
        self.stream_id = stream_id
        self.expected_position = expected_position
        super().__init__(
            f"projection of {stream_id!r} moved past position {expected_position}: look again"
        )


def projection_msg_id(stream_id: str, sequence: int) -> str:
    return f"{stream_id}:{sequence}"


class Projection(Protocol):
    """A projection store. One may also offer ``publish_nowait(stream_id, sequence, previous,
    data, *, expected_position, callback) -> bool``: ``publish``, sent at once, its position
    (or the error ``publish`` would raise) handed to ``callback`` later, never within the call;
    False, and nothing sent, when that is not possible now. ``Projector`` then publishes the
    common case, the next commit of an aggregate, without a task."""

    async def last(self, stream_id: str) -> Projected | None:
        """The subject's last projected message (None: nothing, or everything aged out)."""
        ...

    async def publish(
        self, stream_id: str, sequence: int, previous: int, data: bytes, *, expected_position: int
    ) -> int:
        """Publish the projection of commit ``sequence`` if the subject's last message is at
        ``expected_position`` (0: the subject is empty); its position. ``ProjectionConflict``
        otherwise. Publishing a commit that is already there is a conflict too (or, within the
        duplicate window, answered with the position it already has)."""
        ...

    async def read(self, stream_id: str, after: int = 0, limit: int = 0) -> list[Projected]:
        """Projected commits with a sequence above ``after``, in order (``limit`` > 0: at most
        that many)."""
        ...


#: What ``publish_nowait`` hands its callback: the position, or what ``publish`` would raise.
Published = Callable[[int | BaseException], None]


class JetStreamProjection:
    """Projections of aggregate ``X`` on subject ``<prefix>.X`` of JetStream stream ``stream``
    (by default the table's public projection: ``HOLDEM_PUBLIC``, ``holdem.public.table.X``)."""

    def __init__(
        self,
        nc: NATS,
        stream: str = PUBLIC_STREAM,
        subject_prefix: str = PUBLIC_SUBJECT_PREFIX,
        timeout: float = 5.0,
    ) -> None:
        use_fast_headers(nc)
        self._js: JetStreamContext = nc.jetstream(timeout=timeout)
        # publishes whose acknowledgement a raw handler takes (nats-py's way without the hook),
        # set up at the first publish: a connection that only reads gets no hook
        self._publisher = JetStreamPublisher(nc, timeout)
        self.stream = stream
        self.prefix = subject_prefix

    def subject(self, stream_id: str) -> str:
        if not stream_id or any(c in stream_id for c in ".*> \t"):
            raise ValueError(f"not a valid stream id: {stream_id!r}")
        return f"{self.prefix}.{stream_id}"

    async def ensure_stream(
        self,
        *,
        max_age: float = DEFAULT_MAX_AGE_SECONDS,
        max_per_subject: int = 0,
        replicas: int = 1,
        storage: StorageType = StorageType.FILE,
    ) -> None:
        """Create the stream (limits retention: ``max_age`` seconds, at most ``max_per_subject``
        messages per aggregate, 0 = no limit), or bring an existing one's limits in line."""
        config = StreamConfig(
            name=self.stream,
            subjects=[f"{self.prefix}.>"],
            storage=storage,
            num_replicas=replicas,
            max_age=max_age,
            max_msgs_per_subject=max_per_subject or -1,
            duplicate_window=120.0,
            allow_direct=True,  # direct gets: the last message of a subject, the next after a seq
        )
        try:
            info = await self._js.stream_info(self.stream)
        except NotFoundError:
            await self._js.add_stream(config)
            return
        current = info.config
        if (current.max_age or 0) != max_age or (current.max_msgs_per_subject or -1) != (
            max_per_subject or -1
        ):
            current.max_age = max_age
            current.max_msgs_per_subject = max_per_subject or -1
            current.allow_direct = True
            await self._js.update_stream(current)

    async def last(self, stream_id: str) -> Projected | None:
        try:
            raw = await self._js.get_msg(self.stream, subject=self.subject(stream_id), direct=True)
        except NotFoundError:
            return None
        return self._projected(stream_id, raw.seq, raw.headers, raw.data)

    @staticmethod
    def _headers(
        stream_id: str, sequence: int, previous: int, expected_position: int
    ) -> dict[str, str]:
        return {
            "Nats-Msg-Id": projection_msg_id(stream_id, sequence),
            "Nats-Expected-Last-Subject-Sequence": str(expected_position),
            SEQUENCE_HEADER: str(sequence),
            PREVIOUS_HEADER: str(previous),
        }

    @staticmethod
    def _position(stream_id: str, expected_position: int, ack: PubAck) -> int:
        if ack.duplicate:  # already there (published by someone else): its position is not news
            raise ProjectionConflict(stream_id, expected_position)
        return int(ack.seq)

    @staticmethod
    def _refusal(stream_id: str, expected_position: int, exc: BadRequestError) -> StoreError:
        if exc.err_code in WRONG_LAST_SEQUENCE_CODES:
            return ProjectionConflict(stream_id, expected_position)
        return StoreError(f"projection of {stream_id!r} refused: {exc}")

    async def publish(
        self, stream_id: str, sequence: int, previous: int, data: bytes, *, expected_position: int
    ) -> int:
        headers = self._headers(stream_id, sequence, previous, expected_position)
        subject = self.subject(stream_id)
        try:
            ack = await self._publisher.publish(subject, data, stream=self.stream, headers=headers)
        except BadRequestError as exc:
            raise self._refusal(stream_id, expected_position, exc) from exc
        return self._position(stream_id, expected_position, ack)

    def publish_nowait(
        self,
        stream_id: str,
        sequence: int,
        previous: int,
        data: bytes,
        *,
        expected_position: int,
        callback: Published,
    ) -> bool:
        def acknowledged(result: PubAck | BaseException) -> None:
            if isinstance(result, BadRequestError):
                result = self._refusal(stream_id, expected_position, result)
            if isinstance(result, BaseException):
                callback(result)
                return
            try:
                position = self._position(stream_id, expected_position, result)
            except ProjectionConflict as exc:
                callback(exc)
                return
            callback(position)

        headers = self._headers(stream_id, sequence, previous, expected_position)
        return self._publisher.publish_nowait(
            self.subject(stream_id),
            data,
            stream=self.stream,
            headers=headers,
            callback=acknowledged,
        )

    async def _next_at(self, stream_id: str, position: int) -> Projected | None:
        """The subject's first message at or after ``position`` in the stream."""
        try:
            raw = await self._js.get_msg(
                self.stream, seq=position, subject=self.subject(stream_id), next=True, direct=True
            )
        except NotFoundError:
            return None
        return self._projected(stream_id, raw.seq, raw.headers, raw.data)

    async def _first_after(self, stream_id: str, after: int) -> Projected | None:
        """The subject's first message whose commit sequence is above ``after``: a binary
        search over stream positions with direct gets (positions and commit sequences grow
        together on one subject), so a reader never scans a table's whole history."""
        if after <= 0:
            return await self._next_at(stream_id, 1)
        last = await self.last(stream_id)
        if last is None or last.sequence <= after:
            return None
        info = await self._js.stream_info(self.stream)
        # The smallest position whose next message on the subject is past ``after``.
        low, high = max(int(info.state.first_seq), 1), last.position
        found: dict[int, Projected] = {high: last}
        while low < high:
            middle = (low + high) // 2
            probe = await self._next_at(stream_id, middle)
            if probe is not None and probe.sequence > after:
                high = middle
                found[middle] = probe
            else:  # nothing of the subject between middle and the probe: skip past it
                low = middle + 1 if probe is None else max(probe.position + 1, middle + 1)
        return found.get(low) or await self._next_at(stream_id, low)

    async def read(self, stream_id: str, after: int = 0, limit: int = 0) -> list[Projected]:
        first = await self._first_after(stream_id, after)
        if first is None:
            return []
        last = await self.last(stream_id)
        end = last.position if last is not None else first.position
        if first.position == end or limit == 1:
            return [first]
        config = ConsumerConfig(
            deliver_policy=DeliverPolicy.BY_START_SEQUENCE,
            opt_start_seq=first.position,
            ack_policy=AckPolicy.NONE,
            inactive_threshold=30.0,
            mem_storage=True,
        )
        sub = await self._js.pull_subscribe(
            self.subject(stream_id), stream=self.stream, config=config
        )
        found: list[Projected] = []
        try:
            while not found or found[-1].position < end:
                if limit and len(found) >= limit:
                    break
                for msg in await sub.fetch(_READ_BATCH, timeout=5.0):
                    found.append(
                        self._projected(
                            stream_id, msg.metadata.sequence.stream, msg.headers, msg.data
                        )
                    )
        finally:
            await sub.unsubscribe()
        found = [p for p in found if p.position <= end]
        return found[:limit] if limit else found

    @staticmethod
    def _projected(
        stream_id: str, position: int | None, headers: dict[str, str] | None, data: bytes | None
    ) -> Projected:
        headers = headers or {}
        return Projected(
            stream_id,
            int(headers.get(SEQUENCE_HEADER, 0)),
            int(headers.get(PREVIOUS_HEADER, 0)),
            data or b"",
            int(position or 0),
        )


async def read_public(
    nc: NATS, table_id: str, after_sequence: int = 0, *, limit: int = 0
) -> list[Projected]:
    """The public projection of table ``table_id``'s commits after table sequence
    ``after_sequence``, in order (decode each with ``libs.tableproto.public.decode_public``).
    A gap shows as a ``previous`` that is not the sequence before it (e.g. aged out)."""
    return await JetStreamProjection(nc).read(table_id, after_sequence, limit)


# ---- keeping projections complete -------------------------------------------------------------

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
