"""Group commit for JetStream with ``sync_interval: always``: the appends of several aggregates
that arrive while one is being written go together as ONE atomic batch (one flush for all), each
message still guarded by its own expected last subject sequence and message id.

JetStream fsyncs each message on its own under ``always`` (no group commit of its own), so
appends from many tables at once are bounded by the disk's fsync rate. An atomic batch (stream
``allow_atomic``; headers ``Nats-Batch-Id``, ``Nats-Batch-Sequence``, ``Nats-Batch-Commit`` on
the last) is stored all or nothing: one message whose expectation fails (another writer got
there first), or one whose id is already in the stream (a retry), voids the whole batch, and the
answer does not say which. So a refused batch is never an answer for its appends: each is then
appended on its own (``JetStreamEventStore.append``), which gives each its own outcome (landed,
a duplicate of what landed, or ``ConcurrencyConflict``): a conflict of one table never fails
another's commit. A batch that got no answer in time may or may not have landed; the appends on
their own find out (a landed one is a duplicate: its id is its subject's last).

``BatchingAppender`` is an ``EventStore`` over a ``JetStreamEventStore``: reads go to it, and
``append`` joins the batch being gathered. Atomic batches are JetStream 2.12's: ``check`` reads
whether the stream takes them (an older server ignores ``allow_atomic``), and where it does not
every append goes alone, as through the store itself. One batch is in flight at a time; while
it is, the next gathers (at most ``max_batch`` appends, one per aggregate: a second append of
the same aggregate waits for the next batch, as its expectation depends on the first). Fewer
than ``min_batch`` gathered are sent alone, side by side (an atomic batch has a fixed cost: a
small one is slower than its appends alone), so an append that finds nothing in flight is sent
at once (no wait at low load).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from dataclasses import dataclass, field

import orjson
from nats.aio.client import Client as NATS

from .jetstream import JetStreamEventStore
from .store import AppendResult, Commit, StoreError

__all__ = ["BatchRefused", "BatchStats", "BatchingAppender"]

BATCH_ID = "Nats-Batch-Id"
BATCH_SEQUENCE = "Nats-Batch-Sequence"
BATCH_COMMIT = "Nats-Batch-Commit"
#: JetStream's own limit is 1,000 messages per atomic batch
MAX_BATCH = 64
#: fewer appends than this are sent alone, side by side: an atomic batch has a fixed cost (about
#: ten fsyncs' worth on the development machine, `make bench` durability), so a small one loses
MIN_BATCH = 8


class BatchRefused(Exception):
    """JetStream refused a batch as a whole (its answer, or none in time)."""


@dataclass
class _Append:
    stream_id: str
    data: bytes
    expected_last: int
    msg_id: str
    headers: dict[str, str]
    future: asyncio.Future[AppendResult] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


@dataclass
class BatchStats:
    """What the appender did: batches sent, appends in them, appends sent alone, and batches
    refused."""

    batches: int = 0
    batched: int = 0
    alone: int = 0
    refused: int = 0


def _retrieved(future: asyncio.Future[AppendResult]) -> None:
    if not future.cancelled():
        future.exception()


class BatchingAppender:
    """``EventStore`` whose appends are group-committed as atomic batches (module docstring).
    The stream must allow atomic batches (``ensure_stream(allow_atomic=True)``)."""

    def __init__(
        self, store: JetStreamEventStore, max_batch: int = MAX_BATCH, min_batch: int = MIN_BATCH
    ) -> None:
        if not 2 <= min_batch <= max_batch <= 1000:
            raise ValueError("2 <= min_batch <= max_batch <= 1000 (JetStream's limit)")
        self.store = store
        self.max_batch = max_batch
        self.min_batch = min_batch
        self.batching = True  # ``check`` says whether the stream takes atomic batches
        self.stats = BatchStats()
        self._gathering: list[_Append] = []
        self._writer: asyncio.Task[None] | None = None

    @property
    def _nc(self) -> NATS:
        return self.store.connection

    async def check(self) -> bool:
        """Whether the stream takes atomic batches (``allow_atomic``, JetStream 2.12 or later);
        if not, every append goes alone from now on."""
        info = await self.store.connection.jetstream().stream_info(self.store.stream)
        self.batching = bool(info.config.allow_atomic)
        return self.batching

    # -- EventStore ---------------------------------------------------------------------------

    async def read(self, stream_id: str, after: int = 0) -> list[Commit]:
        return await self.store.read(stream_id, after)

    async def last_sequence(self, stream_id: str) -> int:
        return await self.store.last_sequence(stream_id)

    async def append(
        self,
        stream_id: str,
        data: bytes,
        *,
        expected_last: int,
        msg_id: str,
        headers: dict[str, str] | None = None,
    ) -> AppendResult:
        if not self.batching:
            return await self.store.append(
                stream_id, data, expected_last=expected_last, msg_id=msg_id, headers=headers
            )
        self.store.subject(stream_id)  # a bad id fails here, not the batch it would join
        item = _Append(stream_id, data, expected_last, msg_id, dict(headers or {}))
        # a caller that gave up (cancelled) leaves its outcome unread: no "never retrieved" noise
        item.future.add_done_callback(_retrieved)
        self._gathering.append(item)
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write())
        return await asyncio.shield(item.future)

    # -- the writer -----------------------------------------------------------------------------

    def _next_batch(self) -> list[_Append]:
        """Up to ``max_batch`` gathered appends, one per aggregate, in arrival order."""
        batch: list[_Append] = []
        later: list[_Append] = []
        taken: set[str] = set()
        for item in self._gathering:
            if len(batch) < self.max_batch and item.stream_id not in taken:
                taken.add(item.stream_id)
                batch.append(item)
            else:
                later.append(item)
        self._gathering = later
        return batch

    async def _write(self) -> None:
        while self._gathering:
            batch = self._next_batch()
            try:
                await self._commit(batch)
            finally:  # whatever happened (a bug, a cancelled writer), nobody waits forever
                for item in batch:
                    if not item.future.done():
                        item.future.set_exception(StoreError("the group commit was interrupted"))

    async def _commit(self, batch: list[_Append]) -> None:
        """Append ``batch``: alone, side by side, when it is small; else as one atomic batch,
        and alone when JetStream refuses that (each append then gets its own outcome)."""
        if len(batch) < self.min_batch:
            self.stats.alone += len(batch)
            await asyncio.gather(*(self._alone(item) for item in batch))
            return
        try:
            last = await self._send(batch)
        except BatchRefused:
            self.stats.refused += 1
            await asyncio.gather(*(self._alone(item) for item in batch))
            return
        self.stats.batches += 1
        self.stats.batched += len(batch)
        first = last - len(batch) + 1  # a batch is stored in one run, in its order
        for offset, item in enumerate(batch):
            if not item.future.done():
                item.future.set_result(AppendResult(first + offset))

    async def _alone(self, item: _Append) -> None:
        try:
            result = await self.store.append(
                item.stream_id,
                item.data,
                expected_last=item.expected_last,
                msg_id=item.msg_id,
                headers=item.headers,
            )
        except BaseException as exc:
            if not item.future.done():
                item.future.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
            return
        if not item.future.done():
            item.future.set_result(result)

    async def _send(self, batch: list[_Append]) -> int:
        """Publish ``batch`` as one atomic batch; the stream sequence of its last message.
        ``BatchRefused`` when JetStream refused it or did not answer in time."""
        batch_id = uuid.uuid4().hex
        count = len(batch)
        reply = ""
        for index, item in enumerate(batch, 1):
            headers = self.store.append_headers(item.stream_id, item.msg_id, item.expected_last)
            headers.update(item.headers)
            headers[BATCH_ID] = batch_id
            headers[BATCH_SEQUENCE] = str(index)
            subject = self.store.subject(item.stream_id)
            try:
                if index < count:
                    await self._nc.publish(subject, item.data, headers=headers)
                    continue
                headers[BATCH_COMMIT] = "1"
                # through the store's request path: a connection lost (nats-server killed,
                # the network cut) fails it at once, as it does any append in flight; nats-py's
                # own request would keep the whole batch waiting for its timeout
                answer = await self.store.request(subject, item.data, headers)
            except Exception as exc:  # no answer: it may have landed; the appends alone tell
                raise BatchRefused(f"batch {batch_id}: {exc!r}") from exc
            reply = answer.decode(errors="replace")
            with contextlib.suppress(ValueError):
                response = orjson.loads(answer)
                landed = isinstance(response, dict) and "error" not in response
                if landed and int(response.get("count", 0)) == count:
                    return int(response["seq"])
        raise BatchRefused(f"batch {batch_id} refused: {reply[:200]}")
