"""One poll loop per tournament in a gateway, shared by every WatchTournament stream of it
(docs/gateway.md, "Tournaments").

The tournament service publishes nothing a gateway could subscribe to, so a watched tournament is
read (``GetTournament``) every ``interval`` seconds - once, whatever the number of its watchers:
the first watcher of a tournament starts its loop, each read is handed to every watcher (the
latest read only: a slow watcher skips to the newest, which is the whole tournament anyway), and
the loop stops when the last watcher leaves, or after the read that shows the tournament over.
A read that fails ends the loop and every watcher's stream with that error (the next watcher
starts a new loop). At most ``limit`` tournaments are fed at once in one gateway: a watcher of
one more is refused RESOURCE_EXHAUSTED.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Awaitable, Callable

from holdem.tournament.v1 import tournament_pb2 as tpb

from libs.errors import ResourceExhausted

TOO_MANY_TOURNAMENTS = "TOO_MANY_WATCHED_TOURNAMENTS"
OVER = frozenset({"finished", "cancelled"})
#: Tournaments one gateway feeds at once (each one poll loop).
MAX_FED_TOURNAMENTS = 1000


class _Feed:
    """One tournament's loop and what it read last."""

    def __init__(self) -> None:
        self.latest: tpb.Tournament | None = None
        self.version = 0
        self.error: BaseException | None = None
        self.done = False
        self.watchers = 0
        self.changed = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def publish(self) -> None:
        self.version += 1
        changed, self.changed = self.changed, asyncio.Event()
        changed.set()


class TournamentFeeds:
    """The gateway's tournament loops: ``watch(id)`` yields the tournament at each read."""

    def __init__(
        self,
        read: Callable[[str], Awaitable[tpb.Tournament]],
        interval: Callable[[], float],
        limit: int = MAX_FED_TOURNAMENTS,
    ) -> None:
        self._read = read
        self._interval = interval
        self._limit = limit
        self._feeds: dict[str, _Feed] = {}

    @property
    def loops(self) -> int:
        """Poll loops running now (one per tournament watched)."""
        return sum(1 for f in self._feeds.values() if f.task is not None and not f.task.done())

    async def watch(self, tournament_id: str) -> AsyncGenerator[tpb.Tournament, None]:
        """The tournament at every read from now on, until it is over (the read showing it
        over is the last); a failed read raises its error."""
        feed = self._feeds.get(tournament_id)
        if feed is None:
            if len(self._feeds) >= self._limit:
                raise ResourceExhausted(
                    TOO_MANY_TOURNAMENTS,
                    f"this gateway feeds at most {self._limit} tournaments at once: try again",
                )
            feed = self._feeds[tournament_id] = _Feed()
            feed.task = asyncio.create_task(self._loop(tournament_id, feed))
        feed.watchers += 1
        seen = 0
        try:
            while True:
                if feed.version > seen and feed.latest is not None:
                    seen = feed.version
                    yield feed.latest
                    continue
                if feed.error is not None:
                    raise feed.error
                if feed.done:
                    return
                await feed.changed.wait()
        finally:
            feed.watchers -= 1
            if feed.watchers == 0:
                await self._stop(tournament_id, feed)

    async def _loop(self, tournament_id: str, feed: _Feed) -> None:
        try:
            while True:
                feed.latest = await self._read(tournament_id)
                if feed.latest.summary.status in OVER:
                    feed.done = True
                feed.publish()
                if feed.done:
                    return
                await asyncio.sleep(self._interval())
        except asyncio.CancelledError:
            raise
        except Exception as error:  # every watcher's stream ends with it
            feed.error = error
            feed.done = True
            feed.publish()
        finally:
            if self._feeds.get(tournament_id) is feed and feed.done:
                del self._feeds[tournament_id]  # the next watcher starts afresh

    async def _stop(self, tournament_id: str, feed: _Feed) -> None:
        if self._feeds.get(tournament_id) is feed:
            del self._feeds[tournament_id]
        task = feed.task
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
