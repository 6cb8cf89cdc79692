"""Table use cases: the command path, and the loops that keep owned tables going.

The command path (``execute``, and ``_commit`` for every command, a player's or automatic):
look the command's idempotency key up (``idempotency``: a retry gets its first outcome), decide
it on the cached state (``ranking``: showdown hands ranked by the evaluator), reveal the deck's
seed in the commit that ends a hand (``automation``), append ONE commit guarded by the expected
sequence (``commits``), then keep the registry of open tables (``ownership``), snapshot and
publish. A conflict means another writer got there first: reload and decide again (a player's
command), or drop the step (an automatic one: what to do next is worked out again on the newer
state). After each command, what needs no player runs (``drive``): ``libs.table.automation``
says what is due, the driver turns it into a command; a player's action (``act``) is answered
first and leaves that to a background driver.

Around it: ownership of tables (one replica serves a table at a time: ``ownership``) and three
background loops: the action clock, lease renewal, and adoption of tables nobody serves.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from collections.abc import Awaitable, Callable

import structlog

from libs.eventstore import ConcurrencyConflict, EventStore, Projection, SnapshotStore
from libs.eventstore.lease import Leases
from libs.eventstore.registry import Registry
from libs.eventstore.store import CONCURRENCY_CONFLICT
from libs.platform.metrics import table as metrics
from libs.platform.tasks import honour_cancel, stop_tasks
from libs.poker.errors import IllegalAction, PokerError
from libs.poker.events import HandEnded, HandVoided
from libs.table import TableState
from libs.table import commands as tc
from libs.table.automation import BoardDue, BotTurn, ClockDue, HandDue, HoleCardsDue, next_due
from libs.table.errors import NOT_ENOUGH_PLAYERS, TABLE_NOT_FOUND
from libs.table.events import Event
from libs.table.planning import start_hand_refusal
from services.table.automation import Automation
from services.table.bots import Bots
from services.table.commits import Ahead, LoadedTable, Stepped, TableStream
from services.table.dealing import DealerPort
from services.table.idempotency import DEFAULT_WINDOW_SECONDS, Outcome
from services.table.ownership import NotOwner, Ownership
from services.table.ranking import HandRanker, RankedStep

log = structlog.get_logger("table")

INLINE_STEPS = 50  # automatic steps run before a call is answered; the rest in the background
# A background drive that fails (NATS failing over to another node, Redis restarting) tries again
# after these pauses, growing to the last; it stops only when this replica loses the table.
DRIVE_RETRY_PAUSES = (0.1, 0.25, 0.5, 1.0)
COMMIT_ATTEMPTS = 3  # a player's command is decided again this often when the table moves on
DEFAULT_SEED_DISCLOSURE_SECONDS = 86400.0  # HOLDEM_TABLE_SEED_DISCLOSURE_SECONDS


class Conflict(Exception):
    """The table kept moving under a player's command (answered ABORTED: retry)."""

    code = CONCURRENCY_CONFLICT
    kind = "aborted"

    def __init__(self, table_id: str) -> None:
        self.message = f"table {table_id} kept changing under this command: retry"
        super().__init__(self.message)


def count_commit(events: list[Event]) -> None:
    """The metrics of one commit: the commit, and the hand it ended or voided."""
    metrics.COMMITS.inc()
    for event in events:
        if isinstance(event, HandEnded):
            metrics.HANDS_COMPLETED.inc()
        elif isinstance(event, HandVoided):
            metrics.HANDS_VOIDED.inc()


class TableApp:
    def __init__(
        self,
        events: EventStore,
        snapshots: SnapshotStore | None,
        dealer: DealerPort,
        *,
        leases: Leases | None = None,
        projection: Projection | None = None,
        public_max_age: float = 7 * 24 * 3600.0,
        snapshot_every: int = 50,
        clock: Callable[[], float] = time.time,
        auto_start: bool = True,
        registry: Registry | None = None,
        ranker: HandRanker | None = None,
        idempotency_window: float = DEFAULT_WINDOW_SECONDS,
        bots: Bots | None = None,
        seed_disclosure: float = DEFAULT_SEED_DISCLOSURE_SECONDS,
    ) -> None:
        """``seed_disclosure``: seconds after a hand until its deck's seed is public (0: in
        the public projection of the commit that ends it)."""
        self.seed_disclosure = seed_disclosure
        self.events = events
        self.leases = leases
        self.clock = clock
        self.auto_start = auto_start
        self.stream = TableStream(
            events,
            snapshots,
            snapshot_every=snapshot_every,
            projection=projection,
            public_max_age=public_max_age,
            idempotency_window=idempotency_window,
            public_seeds=seed_disclosure <= 0,
        )
        self.ownership = Ownership(leases, registry)
        self.automation = Automation(dealer, clock, bots)
        self.step = RankedStep(ranker)
        self.commits = 0
        self._tables: dict[str, LoadedTable] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._drivers: dict[str, asyncio.Task[None]] = {}
        self._drives: Counter[str] = Counter()  # drives in progress per table, inline or not
        self._again: set[str] = set()  # tables whose background driver must look once more
        self._stood_still: dict[str, int] = {}  # the sequence a tick saw a due table idle at

    @property
    def ranking_fallbacks(self) -> int:
        """Showdowns ranked in-process because the evaluator service did not answer."""
        return self.step.fallbacks

    @property
    def ai_fallbacks(self) -> int:
        """Bot decisions taken by the clock rule because the ai service gave no legal answer
        in time."""
        return self.automation.bots.fallbacks

    # ------------------------------------------------------------------ lifecycle

    async def start_background(self, tick_interval: float = 0.25) -> None:
        self._tasks.append(asyncio.create_task(self._clock_loop(tick_interval)))
        if self.leases is not None:
            self._tasks.append(asyncio.create_task(self._lease_loop(self.leases.ttl)))
            if self.ownership.registry is not None:
                self._tasks.append(asyncio.create_task(self._adopt_loop(self.leases.ttl)))

    async def stop(self) -> None:
        drivers, self._drivers = self._drivers, {}
        await stop_tasks(drivers.values())
        for table in self._tables.values():
            self._drop_ahead(table)
        tasks, self._tasks = self._tasks, []
        await stop_tasks(tasks)
        await self.stream.stop()

    # ------------------------------------------------------------------ loading

    async def table(self, table_id: str) -> LoadedTable:
        """The table as this replica holds it (loaded on first use); NotOwner when another
        replica serves it."""
        try:
            await self.ownership.claim(table_id)
        except NotOwner:
            self.forget(table_id)
            raise
        table = self._tables.get(table_id)
        if table is None:
            table = self._tables[table_id] = await self.stream.load(table_id)
            if table.state.closed:  # its closing is public now (the load published it)
                await self.ownership.closed(table_id)
        return table

    async def existing(self, table_id: str) -> LoadedTable:
        """The table for a read: ``TABLE_NOT_FOUND`` when it was never opened (nothing is
        claimed or cached for an unknown id)."""
        cached = self._tables.get(table_id)
        if cached is None and await self.events.last_sequence(table_id) == 0:
            raise IllegalAction(TABLE_NOT_FOUND, "no such table")
        table = await self.table(table_id)
        if table.sequence == 0:
            raise IllegalAction(TABLE_NOT_FOUND, "no such table")
        return table

    def _closed(self, table_id: str) -> Callable[[], Awaitable[None]]:
        async def closed() -> None:
            await self.ownership.closed(table_id)

        return closed

    async def state(self, table_id: str) -> TableState:
        return (await self.table(table_id)).state

    def forget(self, table_id: str) -> None:
        """Drop the cached state (the next command reloads from the store)."""
        table = self._tables.pop(table_id, None)
        if table is not None:
            self._drop_ahead(table)
        self._stood_still.pop(table_id, None)
        self.stream.forget(table_id)

    # ------------------------------------------------------------------ commands

    async def execute(self, table_id: str, command: tc.TableCommand, key: str) -> Outcome:
        """Decide, append and apply one command; then run the automatic steps it enables: the
        first ``INLINE_STEPS`` before answering, the rest (e.g. a table of bots playing on) in
        the background, so a call never waits for a whole game."""
        outcome = await self._commit(table_id, command, key)
        assert outcome is not None
        if outcome.duplicate:
            # A retry is answered at once: were it to drive the table again first, a client
            # whose calls keep being cut off (a crash every few commits) would never get its
            # answer, and would retry until its key left the window.
            self._drive_later(table_id)
            return outcome
        await self._drive_now(table_id)
        return outcome

    async def act(self, table_id: str, command: tc.TableCommand, key: str) -> Outcome:
        """A player's move, answered as soon as its own commit has landed (a retry: at once, with
        its first outcome). What it enables (a deal, the hand's end, the next hand, bots' turns)
        is driven in the background: an Act costs one append, not the appends after it too.
        Players learn what follows from the public projection, as they learn everyone's moves."""
        outcome = await self._commit(table_id, command, key)
        assert outcome is not None
        self._drive_later(table_id)
        return outcome

    async def start_hand(self, table_id: str) -> int:
        """Run what is due at the table (a hand starts when it may); the table's sequence, or
        the reason no hand can start now."""
        if await self._drive_now(table_id) == 0:
            state = await self.state(table_id)
            raise start_hand_refusal(state, self.clock()) or IllegalAction(
                NOT_ENOUGH_PLAYERS, "no hand can start now"
            )
        return (await self.table(table_id)).sequence

    async def _commit(
        self,
        table_id: str,
        command: tc.TableCommand,
        key: str,
        automatic: bool = False,
        based_on: int | None = None,
        decided: tuple[TableState, tuple[TableState, list[Event]]] | None = None,
    ) -> Outcome | None:
        """Decide, append, apply. A player's command that meets a newer state is decided again
        on it; an ``automatic`` one (deal, bot, next hand) is dropped instead (None), since what
        to do next must be worked out again from the newer state. ``decided``: the command
        decided already, on that state (worked out ahead: taken while it is the table's)."""
        table = await self.table(table_id)
        async with table.lock:
            if automatic and based_on is not None and table.sequence != based_on:
                return None  # worked out from a state that has moved on (another step ran)
            for _ in range(COMMIT_ATTEMPTS):
                first = table.recent.first_outcome(key)
                if first is not None:
                    return first
                if decided is not None and decided[0] is table.state:
                    state, events = decided[1]
                else:  # domain errors propagate
                    state, events = await self.step(table.state, command)
                decided = None
                if not events:
                    return Outcome(table.sequence, [])
                state, events = await self.automation.reveal_at_hand_end(state, events)
                if automatic:
                    self._work_ahead(table_id, table, state)
                now = self.clock()
                kind = type(command).__name__
                previous = table.sequence
                try:
                    result = await self.stream.append(
                        table_id, table, key, kind, events, now, automatic
                    )
                except ConcurrencyConflict:
                    # Another writer got there first (e.g. a dying owner's last append landed).
                    metrics.CONFLICTS.inc()
                    await self.stream.refresh(table_id, table)
                    if automatic:
                        return None
                    metrics.RETRIES.inc()
                    continue
                if result.duplicate:  # this very commit landed before: its key is in the stream
                    await self.stream.refresh(table_id, table)
                    first = table.recent.first_outcome(key)
                    return first or Outcome(result.sequence, [], duplicate=True)
                outcome = Outcome(result.sequence, events)
                self.stream.record(table, key, state, outcome, now, automatic)
                self.commits += 1
                count_commit(events)
                await self.ownership.note_commit(table_id, events)
                # A closed table leaves the registry of open tables only once its closing is
                # public: if this process dies first, the replica that adopts it publishes it.
                closing = self._closed(table_id) if state.closed else None
                queued = self.stream.publish_public(
                    table_id, outcome, previous, key, kind, now, then=closing, automatic=automatic
                )
                if closing is not None and not queued:
                    await closing()
                await self.stream.snapshot_if_due(table_id, table, events)
                return outcome
            raise Conflict(table_id)

    # ------------------------------------------------------------------ automation

    async def drive(self, table_id: str, limit: int = 1000) -> int:
        """Run the steps no player decides (deal, reveal, next hand, bots, the clock); return
        how many were committed. The snapshots they made due are written when it returns
        (each commit only queues its own: ``TableStream.snapshot_if_due``)."""
        self._drives[table_id] += 1
        try:
            return await self._drive(table_id, limit)
        finally:
            self._drives[table_id] -= 1
            await self.stream.flush_snapshots(table_id)

    async def _drive(self, table_id: str, limit: int) -> int:
        done = 0
        for _ in range(3 * limit):  # a step lost to a newer state is worked out again
            if done >= limit:
                break
            table = await self.table(table_id)
            based_on, state = table.sequence, table.state  # read together: no await between
            ahead = await self._ahead_of(table, state)
            decided: tuple[TableState, tuple[TableState, list[Event]]] | None = None
            if ahead is not None:
                command, stepped = ahead
                decided = (state, stepped)
            else:
                found = await self.automation.next_command(
                    table_id, state, start_hands=self.auto_start
                )
                if found is None:
                    if table.sequence != based_on:
                        continue  # something else moved the table meanwhile: look again
                    return done
                command = found
            key = f"{table_id}:{based_on}:{type(command).__name__}"
            outcome = await self._commit(
                table_id, command, key, automatic=True, based_on=based_on, decided=decided
            )
            if outcome is not None:
                done += 1
        return done

    #: What is worked out ahead: the steps that need no seed revealed and no new deck (a bot's
    #: decision, a deal), so nothing happens at the dealer that the step in flight may undo.
    _AHEAD_STEPS = (BotTurn, HoleCardsDue, BoardDue)

    def _work_ahead(self, table_id: str, table: LoadedTable, state: TableState) -> None:
        """While the commit that proposes ``state`` is in flight (its append waiting for the
        server's answer), work out the automatic step that will follow it, so that the table's
        own work overlaps the server's: the step is taken only if ``state`` is the table's when
        the driver looks next (the commit landed, nothing else came first)."""
        self._drop_ahead(table)
        due = next_due(state, self.clock())
        if not isinstance(due, self._AHEAD_STEPS):
            return

        async def work() -> Stepped | None:
            command = await self.automation.next_command(
                table_id, state, start_hands=self.auto_start
            )
            if command is None:
                return None
            return command, await self.step(state, command)

        table.ahead = Ahead(state, asyncio.create_task(work()))

    async def _ahead_of(self, table: LoadedTable, state: TableState) -> Stepped | None:
        """The step worked out ahead on ``state``, if there is one (a failed one is none: the
        driver works it out again, and meets the same failure itself if it lasts)."""
        ahead, table.ahead = table.ahead, None
        if ahead is None:
            return None
        if ahead.state is not state:
            self._drop(ahead)
            return None
        try:
            return await ahead.task
        except asyncio.CancelledError:
            honour_cancel()
            return None
        except Exception:
            return None

    def _drop_ahead(self, table: LoadedTable) -> None:
        ahead, table.ahead = table.ahead, None
        if ahead is not None:
            self._drop(ahead)

    @staticmethod
    def _drop(ahead: Ahead) -> None:
        if not ahead.task.done():
            ahead.task.cancel()
        else:
            with contextlib.suppress(BaseException):
                ahead.task.exception()  # retrieved: nobody asks for a step dropped

    async def _drive_now(self, table_id: str) -> int:
        done = await self.drive(table_id, limit=INLINE_STEPS)
        if done >= INLINE_STEPS:
            self._drive_later(table_id)
        return done

    def _drive_later(self, table_id: str) -> None:
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

        self._drivers[table_id] = asyncio.create_task(rest())

    async def tick(self) -> None:
        """Let the clock act for players whose time ran out, at every table this process owns;
        and wake any table whose automatic steps stood due, with nothing driving it, since the
        tick before (its driver stopped while the lease was lost and a read took the lease
        back: nothing else would wake it, and a table of bots would stand still for good)."""
        now = self.clock()
        for table_id, table in list(self._tables.items()):
            due = next_due(table.state, now)
            if isinstance(due, ClockDue):
                try:
                    await self._drive_now(table_id)
                except (NotOwner, Conflict) as exc:
                    log.warning("tick_failed", table_id=table_id, error=str(exc))
            elif (
                due is not None
                and not self._driving(table_id)
                and (self.auto_start or not isinstance(due, HandDue))
            ):
                if self._stood_still.get(table_id) == table.sequence:
                    del self._stood_still[table_id]
                    log.warning("table_woken", table_id=table_id, due=type(due).__name__)
                    self._drive_later(table_id)
                else:
                    self._stood_still[table_id] = table.sequence
            else:
                self._stood_still.pop(table_id, None)

    def _driving(self, table_id: str) -> bool:
        """A drive of ``table_id`` is running (a command's inline steps or a background one)."""
        running = self._drivers.get(table_id)
        return self._drives[table_id] > 0 or (running is not None and not running.done())

    # ------------------------------------------------------------------ ownership

    async def adopt(self) -> list[str]:
        """Take over tables that nobody serves (their owner died), up to a fair share; hand
        idle tables back when over it. Return the tables taken."""

        def busy(table_id: str) -> bool:
            cached = self._tables.get(table_id)
            return cached is not None and cached.state.hand_in_progress

        async def taken(table_id: str) -> None:
            await self.drive(table_id)

        adopted = await self.ownership.rebalance(busy, self.forget, taken)
        metrics.LEASES_TAKEN_OVER.inc(len(adopted))
        return adopted

    # ------------------------------------------------------------------ background

    async def _clock_loop(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            honour_cancel()
            try:
                await self.tick()
            except Exception:  # keep the clock alive; the error is logged
                log.exception("clock_loop_error")

    async def _adopt_loop(self, ttl: float) -> None:
        while True:
            await asyncio.sleep(ttl / 2)
            honour_cancel()
            try:
                await self.adopt()
            except Exception:
                log.exception("adopt_loop_error")

    async def _lease_loop(self, ttl: float) -> None:
        while True:
            await asyncio.sleep(ttl / 3)
            honour_cancel()
            try:
                for table_id in await self.ownership.renew():
                    log.warning("lease_lost", table_id=table_id)
                    self.forget(table_id)
            except Exception:
                log.exception("lease_loop_error")
