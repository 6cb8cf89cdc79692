"""Who is connected, as this gateway sees it, told to the tables (disconnect protection,
docs/table-features.md): a seated player whose last WatchTable stream of a table closed here,
and who made no call for ``grace`` seconds since, is marked disconnected at that table
(``MarkConnection``, connected = false); opening a stream of the table, or any seat call there,
marks them connected again when they were marked off.

Limits (docs/gateway.md, "Connections"): each gateway instance knows its own streams only. A
player with streams on two instances is marked off by one whose last stream closed while the
other still serves them; the other's next stream open (or this one's next call) marks them
back. A gateway that crashes tells nobody: its players stay marked connected (the table's own
clock then sits them out after repeated time-outs) until they reconnect elsewhere. The table
never waits on the gateway: a mark that fails (the table unreachable, the player not seated) is
logged and dropped. A gateway shutting down (``stop``) marks nobody off either: its clients
resume at another instance."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import structlog

log = structlog.get_logger("gateway.presence")

#: mark(player_id, table_id, connected): send MarkConnection to the table (never raises).
Mark = Callable[[str, str, bool], Awaitable[None]]


class Presence:
    def __init__(self, mark: Mark, grace: float, clock: Callable[[], float]) -> None:
        self.mark = mark
        self.grace = grace
        self.clock = clock
        self.streams: dict[tuple[str, str], int] = {}  # (player, table) -> streams open here
        self.last_call: dict[tuple[str, str], float] = {}  # while a grace period runs
        self.marked_off: set[tuple[str, str]] = set()
        self.timers: dict[tuple[str, str], asyncio.Task[None]] = {}
        self.stopped = False

    def stop(self) -> None:
        """The gateway is shutting down: its streams closing are no players leaving (they
        resume at another instance), so nobody is marked off from now on."""
        self.stopped = True
        for timer in self.timers.values():
            timer.cancel()
        self.timers.clear()

    async def opened(self, player: str, table: str, marked_off: bool) -> None:
        """A stream of ``table`` opened for ``player``; ``marked_off``: the table shows them
        disconnected (maybe by another gateway)."""
        key = (player, table)
        self.streams[key] = self.streams.get(key, 0) + 1
        timer = self.timers.pop(key, None)
        if timer is not None:
            timer.cancel()
        if marked_off or key in self.marked_off:
            self.marked_off.discard(key)
            await self.mark(player, table, True)

    def closed(self, player: str, table: str) -> None:
        """A stream of ``table`` closed for ``player``: the last one starts the grace period."""
        key = (player, table)
        left = self.streams.get(key, 1) - 1
        if left > 0:
            self.streams[key] = left
            return
        self.streams.pop(key, None)
        if key not in self.timers and not self.stopped:
            self.timers[key] = asyncio.create_task(self._after_grace(key, self.clock()))

    async def called(self, player: str, table: str) -> None:
        """``player`` made a seat call at ``table`` (or is about to): they are here."""
        key = (player, table)
        if key in self.timers:
            self.last_call[key] = self.clock()
        if key in self.marked_off:
            self.marked_off.discard(key)
            await self.mark(player, table, True)

    async def _after_grace(self, key: tuple[str, str], since: float) -> None:
        player, table = key
        try:
            while True:
                seen = max(since, self.last_call.get(key, since))
                wait = seen + self.grace - self.clock()
                if wait <= 0:
                    break
                await asyncio.sleep(wait)
            if key in self.streams:
                return  # back meanwhile
            self.marked_off.add(key)
            await self.mark(player, table, False)
        finally:
            if self.timers.get(key) is asyncio.current_task():
                del self.timers[key]
                self.last_call.pop(key, None)
