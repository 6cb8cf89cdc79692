"""WatchTable's plumbing: one core-NATS subscription per watched table on the public projection's
subject (``holdem.public.table.<id>``; JetStream delivers every stored message to plain
subscribers too), fanned out to each stream's bounded queue, and JetStream reads (``read``) to
catch up and to fill any gap (contract-13 §1).

A stream never slows the table: the subscription's callback only appends to queues and never
waits; a queue that is full marks its stream as fallen behind, and the stream then ends with
ABORTED (``FELL_BEHIND``; the client resumes with ``from_sequence``). A stream also ends, OK,
once its table has closed and it has sent everything (services/gateway/watching.py ``_follow``).

A live message can be missed (published before the subscription reached the server, or dropped
by a slow connection). A stream notices a gap at the next commit (its ``previous`` is not the
last one sent) and fills it from the store; but when the missed commit is the latest one (the
table then waits for a player to act on it), no next commit comes. So each watched table is
checked when it has been quiet for :data:`QUIET_CHECK_SECONDS`: if the store holds a newer public
commit than the subscription delivered, it is offered to every stream, which fills the gap."""

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

#: A watched table that delivered nothing for this long is asked for its latest public commit.
QUIET_CHECK_SECONDS = 3.0


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

    def drain(self) -> None:
        """Forget what is queued (a listener used only to be woken by commits)."""
        self.pending.clear()
        self.behind = False

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
        self.latest = 0  # the highest sequence offered to the listeners
        self.heard = 0.0  # when (loop time) a live commit last arrived
        self.checker: asyncio.Task[None] | None = None


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
                feed.heard = asyncio.get_running_loop().time()
                feed.checker = asyncio.create_task(self._check_when_quiet(table_id, feed))
                # the new subscription is active on the server before the stream reads the
                # store (a commit published in between reaches the queue, not only the store)
                with contextlib.suppress(Exception):
                    await self.nc.flush(timeout=2)
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
                if feed.checker is not None:
                    feed.checker.cancel()
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
            feed.heard = asyncio.get_running_loop().time()
            feed.latest = max(feed.latest, commit.sequence)
            for listener in tuple(feed.listeners):
                listener.offer(commit)

        return deliver

    async def _check_when_quiet(self, table_id: str, feed: _Feed) -> None:
        """While ``feed`` is watched: when it has been quiet for QUIET_CHECK_SECONDS, offer its
        listeners the table's latest public commit if the subscription never delivered it."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(max(0.0, feed.heard + QUIET_CHECK_SECONDS - loop.time()))
            if loop.time() - feed.heard < QUIET_CHECK_SECONDS:
                continue  # something arrived meanwhile
            feed.heard = loop.time()
            try:
                newest = await self.projection.last(table_id)
            except Exception as exc:  # NATS away: the next quiet period asks again
                log.debug("quiet_check_failed", table_id=table_id, error=str(exc)[:200])
                continue
            if newest is None or newest.sequence <= feed.latest:
                continue
            if feed.latest:
                log.info("missed_public_commit", table_id=table_id, sequence=newest.sequence)
            feed.latest = newest.sequence
            for listener in tuple(feed.listeners):
                listener.offer(newest)

    async def read(self, table_id: str, after: int, limit: int) -> list[Projected]:
        """Stored public commits after ``after`` (at most ``limit``), in order."""
        return await self.projection.read(table_id, after, limit)

    def watched_tables(self) -> int:
        return len(self._feeds)
