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

This module holds the store side: ``Projection``, the store protocol, which
``JetStreamProjection`` and ``InMemoryProjection`` (libs.eventstore.memory) implement;
``read_public``, the reader for the table's public projection (``libs.tableproto.public``
decodes what it returns). ``libs.eventstore.projector``'s ``Projector`` keeps one process's
projections complete and ordered.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

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

from .jetstream import WRONG_LAST_SEQUENCE_CODES
from .jspublish import JetStreamPublisher
from .natsheaders import use_fast_headers
from .pull import position_of, pull_read
from .store import StoreError

PUBLIC_STREAM = "HOLDEM_PUBLIC"
PUBLIC_SUBJECT_PREFIX = "holdem.public.table"
SEQUENCE_HEADER = "Holdem-Sequence"
PREVIOUS_HEADER = "Holdem-Previous"
DEFAULT_MAX_AGE_SECONDS = 7 * 24 * 3600.0


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
        messages = await pull_read(
            self._js,
            self.subject(stream_id),
            stream=self.stream,
            config=config,
            through=end,
            limit=limit,
        )
        return [
            self._projected(stream_id, position_of(msg), msg.headers, msg.data) for msg in messages
        ]

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
