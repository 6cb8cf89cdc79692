"""What runs at a table with no player deciding it: deals, reveals, the next hand, bots' turns
and the action clock. ``libs.table.automation`` says what is due, ``Automation`` turns it into a
command, the table app's command path commits it; ``Driver`` keeps doing so while something is
due: inline for a command's first steps (``drive_now``), in one background task per table for
the rest (``drive_later``), and from the clock's tick (time-outs, and tables that stood due with
nothing driving them). The tick looks only at tables that may need it: one whose state
changed (``wake``), one whose action clock runs out (a heap of deadlines), and every table once
every ``SWEEP_TICKS`` ticks (a share of them each tick); a table where nothing is due
sleeps, so an idle table costs the tick nothing. A table that stood idle (no hand in play,
nothing due, no change) for ``unload_after`` seconds is unloaded: it costs no memory until its
next command loads it again from its snapshot.
"""

from __future__ import annotations

import asyncio
import heapq
from collections import Counter
from collections.abc import Callable
from typing import Protocol

import structlog

from libs.platform.tasks import hold_until_done, honour_cancel, stop_tasks
from libs.poker.errors import PokerError
from libs.table import commands as tc
from libs.table.automation import (
    BlindsDue,
    BombPotClockDue,
    ClockDue,
    HandDue,
    RunItClockDue,
    next_due,
)
from libs.table.timing import wake_at
from services.table.ahead import WorkAhead
from services.table.automation import Automation
from services.table.commits import Conflict, Decided, LoadedTable, TableStream
from services.table.idempotency import Outcome
from services.table.ownership import NotOwner

log = structlog.get_logger("table")

INLINE_STEPS = 50  # automatic steps run before a call is answered; the rest in the background
# A background drive that fails (NATS failing over to another node, Redis restarting) tries again
# after these pauses, growing to the last; it stops only when this replica loses the table.
DRIVE_RETRY_PAUSES = (0.1, 0.25, 0.5, 1.0)
# Every this many ticks the tick looks at every table held (a safety net for a change that
# woke nothing); in between only at tables woken by a change or a deadline.
SWEEP_TICKS = 40


class Driven(Protocol):
    """What the driver needs of the table app (``app.TableApp``)."""

    #: the tables this replica holds, loaded
    tables: dict[str, LoadedTable]
    #: whether a hand starts by itself when one may (else a StartHand command starts it)
    auto_start: bool

    async def table(self, table_id: str) -> LoadedTable: ...

    def forget(self, table_id: str) -> None: ...

    async def commit(
        self,
        table_id: str,
        command: tc.TableCommand,
        key: str,
        automatic: bool = False,
        based_on: int | None = None,
        decided: Decided | None = None,
    ) -> Outcome | None: ...


class Driver:
    def __init__(
        self,
        app: Driven,
        automation: Automation,
        ahead: WorkAhead,
        stream: TableStream,
        clock: Callable[[], float],
        unload_after: float = 0.0,
    ) -> None:
        """``unload_after``: seconds a table stands idle before it is unloaded (0: never)."""
        self.app = app
        self.unload_after = unload_after
        self.automation = automation
        self.ahead = ahead
        self.stream = stream
        self.clock = clock
        self._drivers: dict[str, asyncio.Task[None]] = {}
        self._drives: Counter[str] = Counter()  # drives in progress per table, inline or not
        self._again: set[str] = set()  # tables whose background driver must look once more
        self._stood_still: dict[str, int] = {}  # the sequence a tick saw a due table idle at
        self._awake: set[str] = set()  # tables the next tick looks at
        self._deadlines: list[tuple[float, str]] = []  # (action clock's deadline, table), a heap
        self._idle_since: dict[str, tuple[int, float]] = {}  # table -> (sequence, first seen idle)
        self._ticks = 0
        self._sweep: list[str] = []  # the tables the sweep's round has yet to look at
        self._sweep_size = 0  # how many of them each tick of the round looks at
        self.looked = 0  # tables the last tick looked at

    async def drive(self, table_id: str, limit: int = 1000) -> int:
        """Run the steps no player decides (deal, reveal, next hand, bots, the clock); return
        how many were committed. The snapshots they made due are written when it returns
        (each commit only queues its own: ``TableStream.commit``)."""
        self._drives[table_id] += 1
        try:
            return await self._drive(table_id, limit)
        finally:
            self._drives[table_id] -= 1
            if not self._drives[table_id]:
                del self._drives[table_id]  # nothing kept for a table no drive works on
            await self.stream.flush_snapshots(table_id)

    async def _drive(self, table_id: str, limit: int) -> int:
        done = 0
        for _ in range(3 * limit):  # a step lost to a newer state is worked out again
            if done >= limit:
                break
            table = await self.app.table(table_id)
            based_on, state = table.sequence, table.state  # read together: no await between
            ahead = await self.ahead.take(table, state)
            decided: Decided | None = None
            if ahead is not None:
                command, stepped = ahead
                decided = (state, stepped)
            else:
                found = await self.automation.next_command(
                    table_id, state, start_hands=self.app.auto_start
                )
                if found is None:
                    if table.sequence != based_on:
                        continue  # something else moved the table meanwhile: look again
                    return done
                command = found
            key = f"{table_id}:{based_on}:{type(command).__name__}"
            outcome = await self.app.commit(
                table_id, command, key, automatic=True, based_on=based_on, decided=decided
            )
            if outcome is not None:
                done += 1
        return done

    async def drive_now(self, table_id: str) -> int:
        """The first ``INLINE_STEPS`` steps now, the rest in the background."""
        done = await self.drive(table_id, limit=INLINE_STEPS)
        if done >= INLINE_STEPS:
            self.drive_later(table_id)
        return done

    def drive_later(self, table_id: str) -> None:
        """Drive ``table_id`` in the background until nothing is due. Asked while its driver
        runs, that driver looks again before it stops: it may have found nothing due just
        before the command that asked committed (then waited for a snapshot's write), and the
        table would stand still until the tick woke it."""
        running = self._drivers.get(table_id)
        if running is not None and not running.done():
            self._again.add(table_id)
            return

        async def rest() -> None:
            failures = 0
            while True:
                try:
                    while True:
                        honour_cancel()  # asked to stop, even if a step swallowed it
                        self._again.discard(table_id)
                        done = await self.drive(table_id, limit=200)
                        if done < 200 and table_id not in self._again:
                            return
                        failures = 0
                except (NotOwner, PokerError) as exc:  # another replica serves it; a bug
                    log.warning("background_drive_stopped", table_id=table_id, error=str(exc))
                    return
                except Exception as exc:  # store unreachable for a moment: go on after a pause
                    honour_cancel()
                    pause = DRIVE_RETRY_PAUSES[min(failures, len(DRIVE_RETRY_PAUSES) - 1)]
                    failures += 1
                    log.warning(
                        "background_drive_retry",
                        table_id=table_id,
                        error=str(exc) or type(exc).__name__,
                        pause=pause,
                    )
                    await asyncio.sleep(pause)

        hold_until_done(self._drivers, table_id, asyncio.create_task(rest()))

    def wake(self, table_id: str) -> None:
        """``table_id`` changed (a commit, a load): the next tick looks at it."""
        self._awake.add(table_id)

    def _woken(self, now: float) -> list[str]:
        """The tables this tick looks at: woken ones, those whose deadline passed, and this
        tick's share of the sweep."""
        self._ticks += 1
        self._awake.update(self._sweep_share())
        while self._deadlines and self._deadlines[0][0] <= now:
            self._awake.add(heapq.heappop(self._deadlines)[1])
        return list(self._awake)

    def _sweep_share(self) -> list[str]:
        """The sweep looks at every table held once every ``SWEEP_TICKS`` ticks, a share of
        them each tick (the tables held when its round began, over ``SWEEP_TICKS``, rounded
        up): at 10,000 tables looking at all of them in one tick held the loop for about
        0.13 s every 10 s (13 us of ``next_due`` per table), and every call waiting then."""
        if self._ticks % SWEEP_TICKS == 0:
            self._sweep = list(self.app.tables)
            self._sweep_size = -(-len(self._sweep) // SWEEP_TICKS)
        if not self._sweep:
            return []
        share = self._sweep[-self._sweep_size :]
        del self._sweep[-self._sweep_size :]
        return share

    async def tick(self) -> None:
        """Let the clock act for players whose time ran out, at every table this process owns;
        and wake any table whose automatic steps stood due, with nothing driving it, since the
        tick before (its driver stopped while the lease was lost and a read took the lease
        back: nothing else would wake it, and a table of bots would stand still for good).
        A table where nothing is due sleeps until a change wakes it or its clock runs out."""
        now = self.clock()
        woken = self._woken(now)
        self.looked = len(woken)
        for table_id in woken:
            table = self.app.tables.get(table_id)
            if table is None:
                self._awake.discard(table_id)
                continue
            due = next_due(table.state, now)
            if isinstance(due, (ClockDue, RunItClockDue, BombPotClockDue)) or (
                isinstance(due, BlindsDue) and self.app.auto_start
            ):
                try:
                    await self.drive_now(table_id)
                except (NotOwner, Conflict) as exc:
                    log.warning("tick_failed", table_id=table_id, error=str(exc))
            elif (
                due is not None
                and not self.driving(table_id)
                and (self.app.auto_start or not isinstance(due, (HandDue, BlindsDue)))
            ):
                if self._stood_still.get(table_id) == table.sequence:
                    del self._stood_still[table_id]
                    log.warning("table_woken", table_id=table_id, due=type(due).__name__)
                    self.drive_later(table_id)
                else:
                    self._stood_still[table_id] = table.sequence
            else:
                self._stood_still.pop(table_id, None)
                if due is None:
                    self._sleep(table_id, table, now)

    def _sleep(self, table_id: str, table: LoadedTable, now: float) -> None:
        """Nothing is due at ``table_id``: only a change, or its action clock running out (the
        one thing time alone makes due), wakes it."""
        self._awake.discard(table_id)
        state = table.state
        due_at = wake_at(state)
        if due_at is not None and due_at > now:
            heapq.heappush(self._deadlines, (due_at, table_id))
        elif self.unload_after > 0 and not state.hand_in_progress:
            self._unload_if_idle(table_id, table, now)

    def _unload_if_idle(self, table_id: str, table: LoadedTable, now: float) -> None:
        """Unload ``table_id`` when it stood at the same sequence, idle, for ``unload_after``
        seconds (seen by two looks: its first idle one, and a sweep that long after)."""
        seen = self._idle_since.get(table_id)
        if seen is None or seen[0] != table.sequence:
            self._idle_since[table_id] = (table.sequence, now)
        elif (
            now - seen[1] >= self.unload_after
            and not self.driving(table_id)
            and not table.lock.locked()  # no command is working on it
        ):
            log.info("table_unloaded", table_id=table_id, idle_seconds=round(now - seen[1]))
            self.app.forget(table_id)

    def driving(self, table_id: str) -> bool:
        """A drive of ``table_id`` is running (a command's inline steps or a background one)."""
        running = self._drivers.get(table_id)
        return self._drives[table_id] > 0 or (running is not None and not running.done())

    def forget(self, table_id: str) -> None:
        """This process no longer holds ``table_id``."""
        self._stood_still.pop(table_id, None)
        self._idle_since.pop(table_id, None)
        self._awake.discard(table_id)

    async def stop(self) -> None:
        """Stop every background driver."""
        drivers, self._drivers = self._drivers, {}
        await stop_tasks(drivers.values())
