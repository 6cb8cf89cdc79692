"""The event store on NATS JetStream: one stream, one subject per aggregate.

Appends are guarded by ``Nats-Expected-Last-Subject-Sequence`` (so two writers can never both
commit on top of the same state) and carry ``Nats-Msg-Id`` (so JetStream drops a resent copy).
nats-py notes: ``publish_async`` never resolves on an expected-sequence conflict, so appends use
``await js.publish``; a conflict is ``BadRequestError`` 10071 (or 10164). A retry of a commit
that did land also gets 10071, so after a conflict we compare the subject's last message id.
"""

from __future__ import annotations

import asyncio
import contextlib
import json

from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy, StorageType, StreamConfig
from nats.js.errors import BadRequestError, NotFoundError

from . import pull
from .jspublish import JetStreamPublisher
from .natsheaders import headers_of_block, status_of_block, use_fast_headers
from .natsraw import raw_handlers, stream_sequence
from .pull import position_of, pull_read
from .store import AppendResult, Commit, ConcurrencyConflict, StoreError

WRONG_LAST_SEQUENCE_CODES = frozenset({10071, 10164})
#: The statuses that end a pull request which is worth making again: 503, nobody answered it
#: (a consumer just made whose leader is not elected yet); 409, its consumer went away mid-read
#: (a leader change).
ASK_AGAIN_STATUSES = frozenset({"503", "409"})


class _AskAgain(Exception):
    """A read's pull request ended by a status worth asking again (``ASK_AGAIN_STATUSES``)."""


#: The stream that holds every table's commits by default (the table service's
#: ``HOLDEM_TABLE_STREAM``; subjects ``holdem.table.<id>``).
TABLE_STREAM = "HOLDEM_TABLES"


class JetStreamEventStore:
    """Commits of stream ``X`` live on subject ``<prefix>.X`` of JetStream stream ``stream``."""

    def __init__(
        self,
        nc: NATS,
        stream: str = TABLE_STREAM,
        subject_prefix: str = "holdem.table",
        timeout: float = 5.0,
    ) -> None:
        use_fast_headers(nc)  # a replay parses one header block per commit
        self._nc = nc
        self._js: JetStreamContext = nc.jetstream(timeout=timeout)
        self._timeout = timeout
        self.timeout = timeout
        self.stream = stream
        self.prefix = subject_prefix
        # appends take their acknowledgements through the parser hook (about a fifth less CPU
        # per append than nats-py's publish)
        self._publisher = JetStreamPublisher(nc, timeout)

    @property
    def connection(self) -> NATS:
        return self._nc

    def subject(self, stream_id: str) -> str:
        if not stream_id or any(c in stream_id for c in ".*> \t"):
            raise ValueError(f"not a valid stream id: {stream_id!r}")
        return f"{self.prefix}.{stream_id}"

    async def ensure_stream(
        self,
        replicas: int = 1,
        storage: StorageType = StorageType.FILE,
        duplicate_window: float = 120.0,
        allow_atomic: bool = False,
    ) -> None:
        """Create the JetStream stream if it does not exist (idempotent); an existing one with
        fewer ``replicas`` is scaled up (a cluster grown from one node to three).
        ``duplicate_window``: how long JetStream itself drops a resent message id.
        ``allow_atomic``: it takes atomic batches (``jsbatch``; turned on in an existing one)."""
        config = StreamConfig(
            name=self.stream,
            subjects=[f"{self.prefix}.>"],
            storage=storage,
            num_replicas=replicas,
            duplicate_window=duplicate_window,
            allow_atomic=allow_atomic or None,
        )
        try:
            info = await self._js.stream_info(self.stream)
        except NotFoundError:
            await self._js.add_stream(config)
            return
        grow = (info.config.num_replicas or 1) < replicas
        atomic = allow_atomic and not info.config.allow_atomic
        if grow or atomic:
            info.config.num_replicas = max(replicas, info.config.num_replicas or 1)
            if atomic:
                info.config.allow_atomic = True
            await self._js.update_stream(info.config)

    def append_headers(self, stream_id: str, msg_id: str, expected_last: int) -> dict[str, str]:
        """The headers that make an append of ``stream_id`` guarded and deduplicated."""
        return {
            "Nats-Msg-Id": self._scoped(stream_id, msg_id),
            "Nats-Expected-Last-Subject-Sequence": str(expected_last),
        }

    async def append(
        self,
        stream_id: str,
        data: bytes,
        *,
        expected_last: int,
        msg_id: str,
        headers: dict[str, str] | None = None,
    ) -> AppendResult:
        subject = self.subject(stream_id)
        all_headers = dict(headers or {})
        all_headers.update(self.append_headers(stream_id, msg_id, expected_last))
        try:
            ack = await self._publisher.publish(
                subject, data, stream=self.stream, headers=all_headers
            )
        except BadRequestError as exc:
            if exc.err_code not in WRONG_LAST_SEQUENCE_CODES:
                raise StoreError(f"append to {subject} refused: {exc}") from exc
            last = await self.last_commit(stream_id)
            if last is not None and last.msg_id == msg_id:
                return AppendResult(last.sequence, duplicate=True)
            raise ConcurrencyConflict(
                stream_id, expected_last, last.sequence if last else 0
            ) from exc
        return AppendResult(ack.seq, duplicate=bool(ack.duplicate))

    async def request(self, subject: str, data: bytes, headers: dict[str, str]) -> bytes:
        """A plain request on the store's connection, within its timeout: the answer's payload
        (``JetStreamPublisher.request``: fails at once when the connection drops)."""
        return await self._publisher.request(subject, data, headers)

    @staticmethod
    def _scoped(stream_id: str, msg_id: str) -> str:
        """JetStream deduplicates message ids per stream, ours are per aggregate: scope them."""
        return f"{stream_id}/{msg_id}"

    @staticmethod
    def _unscoped(stream_id: str, header: str) -> str:
        prefix = f"{stream_id}/"
        return header[len(prefix) :] if header.startswith(prefix) else header

    async def last_commit(self, stream_id: str) -> Commit | None:
        """``stream_id``'s last commit (None: it has none), read directly (no consumer)."""
        try:
            raw = await self._js.get_last_msg(self.stream, self.subject(stream_id))
        except NotFoundError:
            return None
        headers = dict(raw.headers or {})
        assert raw.seq is not None
        msg_id = self._unscoped(stream_id, headers.get("Nats-Msg-Id", ""))
        return Commit(stream_id, raw.seq, msg_id, raw.data or b"", headers)

    async def last_sequence(self, stream_id: str) -> int:
        last = await self.last_commit(stream_id)
        return last.sequence if last else 0

    async def read(self, stream_id: str, after: int = 0) -> list[Commit]:
        """One pull request for everything after ``after`` up to the last commit, each message
        taken by a raw handler in the parser's own call (``natsraw``), or by a subscription
        callback where nats-py has no hook for it (nats-py's ``fetch`` costs a task and a timer
        per message: most of a replay).

        A request nobody answered (503: the consumer just made has no leader yet, as in a
        cluster whose nodes restart) or one its consumer dropped (409: a leader changed) is
        made again, on a new consumer from the last commit taken, as ``pull.ASK_AGAIN_TIMES``
        says; any other status ends the read with ``StoreError``."""
        last = await self.last_sequence(stream_id)
        if last <= after:
            return []
        subject = self.subject(stream_id)
        commits: list[Commit] = []
        for attempt in range(1, pull.ASK_AGAIN_TIMES + 1):
            taken = commits[-1].sequence if commits else after
            try:
                await self._read_into(commits, stream_id, taken, last)
                break
            except _AskAgain as again:
                if attempt == pull.ASK_AGAIN_TIMES:
                    raise StoreError(
                        f"read of {subject} ended early {attempt} times: {again}"
                    ) from None
                await asyncio.sleep(pull.ASK_AGAIN_SECONDS * attempt)
        return [c for c in commits if c.sequence <= last]

    async def _read_into(
        self, commits: list[Commit], stream_id: str, after: int, last: int
    ) -> None:
        """``read``'s one pull request (on a consumer of its own) for the commits after
        ``after`` through ``last``, appended to ``commits``."""
        subject = self.subject(stream_id)
        config = ConsumerConfig(
            deliver_policy=DeliverPolicy.BY_START_SEQUENCE,
            opt_start_seq=after + 1,
            ack_policy=AckPolicy.NONE,
            inactive_threshold=30.0,
            mem_storage=True,
            filter_subject=subject,
        )
        consumer = await self._js.add_consumer(self.stream, config)
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        scoped = f"{stream_id}/"

        def take(sequence: int, data: bytes, headers: dict[str, str]) -> None:
            msg_id = headers.get("Nats-Msg-Id", "")
            commits.append(
                Commit(
                    stream_id,
                    sequence,
                    msg_id[len(scoped) :] if msg_id.startswith(scoped) else msg_id,
                    data,
                    headers,
                )
            )
            if sequence >= last:
                done.set_result(None)

        def ended(status: str, said: object) -> None:
            if status in ASK_AGAIN_STATUSES:
                done.set_exception(_AskAgain(f"{status}: {said!r}"))
            else:
                done.set_exception(StoreError(f"read of {subject} ended early: {said!r}"))

        def on_raw(subject_: bytes, reply: bytes, data: bytes, block: bytes | None) -> None:
            if done.done():
                return
            if not reply:  # a status: no (more) messages for this request
                ended(status_of_block(block), block)
                return
            try:
                take(stream_sequence(reply), data, headers_of_block(block))
            except ValueError as exc:
                done.set_exception(StoreError(f"read of {subject}: {exc}"))

        async def on_msg(msg: Msg) -> None:
            if done.done():
                return
            if not msg.reply:  # a status: no (more) messages for this request
                ended((msg.headers or {}).get("Status", ""), msg.headers)
                return
            take(msg.metadata.sequence.stream, msg.data, msg.headers or {})

        inbox = self._nc.new_inbox()
        handlers = raw_handlers(self._nc)
        if handlers is None:
            sub = await self._nc.subscribe(inbox, cb=on_msg, pending_msgs_limit=-1)
        else:
            sub = await self._nc.subscribe(inbox)  # no callback: nats-py starts no task for it
            handlers[sub._id] = on_raw
        try:
            # stream sequences after ``after`` up to ``last``: at least this subject's commits
            request = {"batch": last - after, "no_wait": True}
            await self._nc.publish(
                f"$JS.API.CONSUMER.MSG.NEXT.{self.stream}.{consumer.name}",
                json.dumps(request).encode(),
                reply=inbox,
            )
            while True:  # as long as messages keep coming
                seen = len(commits)
                try:
                    await asyncio.wait_for(asyncio.shield(done), self._timeout)
                    break
                except TimeoutError:
                    if len(commits) == seen:
                        raise StoreError(f"read of {subject} stalled at {seen} commits") from None
        finally:
            if handlers is not None:
                handlers.pop(sub._id, None)
            await sub.unsubscribe()
            with contextlib.suppress(Exception):
                await self._js.delete_consumer(self.stream, consumer.name)

    async def read_with_fetch(self, stream_id: str, after: int = 0) -> list[Commit]:
        """``read`` through nats-py's pull ``fetch`` (what ``read`` did before; kept for the
        benchmark that compares the two)."""
        last = await self.last_sequence(stream_id)
        if last <= after:
            return []
        config = ConsumerConfig(
            deliver_policy=DeliverPolicy.BY_START_SEQUENCE,
            opt_start_seq=after + 1,
            ack_policy=AckPolicy.NONE,
            inactive_threshold=30.0,
            mem_storage=True,
        )
        messages = await pull_read(
            self._js, self.subject(stream_id), stream=self.stream, config=config, through=last
        )
        commits = []
        for msg in messages:
            headers = dict(msg.headers or {})
            msg_id = self._unscoped(stream_id, headers.get("Nats-Msg-Id", ""))
            commits.append(Commit(stream_id, position_of(msg), msg_id, msg.data, headers))
        return commits
