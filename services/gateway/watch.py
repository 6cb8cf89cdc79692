"""WatchTable's plumbing: one core-NATS subscription per watched table on the public projection's
subject (``holdem.public.table.<id>``; JetStream delivers every stored message to plain
subscribers too), fanned out to each stream's bounded queue, and JetStream reads (``read``) to
catch up and to fill any gap (contract-13 §1).

A stream never slows the table: the subscription's callback only appends to queues and never
waits; a queue that is full marks its stream as fallen behind, and the stream then ends with
RESOURCE_EXHAUSTED (the client resumes with ``from_sequence``)."""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable

import structlog
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from libs.eventstore.projection import (
    PREVIOUS_HEADER,
    SEQUENCE_HEADER,
    JetStreamProjection,
    Projected,
)

log = structlog.get_logger("gateway.watch")


class Listener:
    """One stream's queue of live commits (at most ``limit``; past it, ``behind`` is set)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.pending: deque[Projected] = deque()
        self.behind = False
        self._wake = asyncio.Event()

    def offer(self, commit: Projected) -> None:
        if len(self.pending) >= self.limit:
            self.behind = True
        else:
            self.pending.append(commit)
        self._wake.set()

    async def next(self) -> Projected | None:
        """The next live commit (None: this stream fell behind)."""
        while not self.pending and not self.behind:
            self._wake.clear()
            await self._wake.wait()
        if self.behind:
            return None
        return self.pending.popleft()

    def idle(self) -> bool:
        return not self.pending

    def idle_after(self, sequence: int) -> bool:
        """No live commit after ``sequence`` is waiting. Commits at or below it (already sent:
        a commit published while a resumed stream read its backlog arrives both ways) are
        dropped first, so they cannot keep the update of ``sequence`` from carrying the view."""
        while self.pending and self.pending[0].sequence <= sequence:
            self.pending.popleft()
        return not self.pending


class _Feed:
    def __init__(self) -> None:
        self.listeners: set[Listener] = set()
        self.subscription: Subscription | None = None


class TableFeeds:
    """Live public commits per table, shared by every stream watching it."""

    def __init__(self, nc: NATS, projection: JetStreamProjection) -> None:
        self.nc = nc
        self.projection = projection
        self._feeds: dict[str, _Feed] = {}
        self._lock = asyncio.Lock()

    async def listen(self, table_id: str, limit: int) -> Listener:
        listener = Listener(limit)
        async with self._lock:
            feed = self._feeds.get(table_id)
            if feed is None:
                feed = self._feeds[table_id] = _Feed()
                feed.subscription = await self.nc.subscribe(
                    self.projection.subject(table_id), cb=self._deliver(table_id, feed)
                )
            feed.listeners.add(listener)
        return listener

    async def leave(self, table_id: str, listener: Listener) -> None:
        async with self._lock:
            feed = self._feeds.get(table_id)
            if feed is None:
                return
            feed.listeners.discard(listener)
            if not feed.listeners:
                del self._feeds[table_id]
                if feed.subscription is not None:
                    with contextlib.suppress(Exception):
                        await feed.subscription.unsubscribe()

    def _deliver(self, table_id: str, feed: _Feed) -> Callable[[Msg], Awaitable[None]]:
        async def deliver(msg: Msg) -> None:
            headers = msg.headers or {}
            try:
                commit = Projected(
                    table_id,
                    int(headers.get(SEQUENCE_HEADER, 0)),
                    int(headers.get(PREVIOUS_HEADER, 0)),
                    msg.data or b"",
                    0,
                )
            except ValueError:
                log.warning("unreadable_public_commit", table_id=table_id)
                return
            for listener in tuple(feed.listeners):
                listener.offer(commit)

        return deliver

    async def read(self, table_id: str, after: int, limit: int) -> list[Projected]:
        """Stored public commits after ``after`` (at most ``limit``), in order."""
        return await self.projection.read(table_id, after, limit)

    def watched_tables(self) -> int:
        return len(self._feeds)
