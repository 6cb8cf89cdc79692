"""Table use cases: the command path, the tables this replica holds, and its background loops.

The command path (``execute``, ``act``, and ``commit`` for every command, a player's or
automatic): look the command's idempotency key up (``idempotency``: a retry gets its first
outcome), decide it on the cached state (``ranking``: showdown hands ranked by the evaluator),
reveal the deck's seed in the commit that ends a hand (``automation``), then make it ONE commit
with one call (``commits.TableStream.commit``: the append guarded by the expected sequence, the
new state, the registry of open tables, the public projection, the snapshot). A conflict means
another writer got there first: decide again on the reloaded table (a player's command), or drop
the step (an automatic one: what to do next is worked out again on the newer state). After each
command, what needs no player runs (``driving``): a player's action (``act``) is answered first
and leaves that to a background driver.

Around it: ownership of tables (one replica serves a table at a time: ``ownership``) and three
background loops: the action clock (``Driver.tick``), lease renewal, and adoption of tables
nobody serves.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable

import structlog

from libs.eventstore import ConcurrencyConflict, EventStore, Projection, SnapshotStore
from libs.eventstore.lease import LeaseKeeper
from libs.eventstore.registry import Registry
from libs.eventstore.shards import DEFAULT_SHARDS
from libs.platform.metrics import table as metrics
from libs.platform.tasks import honour_cancel, stop_tasks
from libs.poker.errors import IllegalAction
from libs.table import TableState
from libs.table import commands as tc
from libs.table.errors import NOT_ENOUGH_PLAYERS, TABLE_NOT_FOUND
from libs.table.planning import start_hand_refusal
from services.table.ahead import WorkAhead
from services.table.automation import Automation
from services.table.bots import Bots
from services.table.commits import Conflict, Decided, LoadedTable, Proposal, TableStream
from services.table.dealing import DealerPort
from services.table.driving import Driver
from services.table.idempotency import DEFAULT_WINDOW_SECONDS, Outcome
from services.table.ownership import NotOwner, Ownership
from services.table.ranking import HandRanker, RankedStep

log = structlog.get_logger("table")

COMMIT_ATTEMPTS = 3  # a player's command is decided again this often when the table moves on
CHECKS_AT_ONCE = 32  # a retaken shard's tables checked against their streams at once
DEFAULT_SEED_DISCLOSURE_SECONDS = 86400.0  # HOLDEM_TABLE_SEED_DISCLOSURE_SECONDS


class TableApp:
    def __init__(
        self,
        events: EventStore,
        snapshots: SnapshotStore | None,
        dealer: DealerPort,
        *,
        leases: LeaseKeeper | None = None,
        projection: Projection | None = None,
        public_max_age: float = 7 * 24 * 3600.0,
        snapshot_every: int = 50,
        clock: Callable[[], float] = time.time,
        auto_start: bool = True,
        registry: Registry | None = None,
        shards_in_use: Registry | None = None,
        shards: int = DEFAULT_SHARDS,
        ranker: HandRanker | None = None,
        idempotency_window: float = DEFAULT_WINDOW_SECONDS,
        bots: Bots | None = None,
        seed_disclosure: float = DEFAULT_SEED_DISCLOSURE_SECONDS,
        idle_unload: float = 0.0,
        writer: str = "",
    ) -> None:
        """``seed_disclosure``: seconds after a hand until its deck's seed is public (0: in
        the public projection of the commit that ends it). ``idle_unload``: seconds a table
        stands idle before it leaves memory (0: never; at least the idempotency window, so a
        retried command always finds its table's window loaded or rebuilt from the stream).
        ``writer``: this replica's id, on every commit it appends."""
        self.seed_disclosure = seed_disclosure
        self.events = events
        self.leases = leases
        self.clock = clock
        self.auto_start = auto_start
        self.ownership = Ownership(leases, registry, shards_in_use, shards)
        self.stream = TableStream(
            events,
            snapshots,
            self.ownership,
            snapshot_every=snapshot_every,
            projection=projection,
            public_max_age=public_max_age,
            idempotency_window=idempotency_window,
            public_seeds=seed_disclosure <= 0,
            writer=writer,
        )
        self.automation = Automation(dealer, clock, bots)
        self.step = RankedStep(ranker)
        self.ahead = WorkAhead(self.automation, self.step, clock, lambda: self.auto_start)
        unload_after = max(idle_unload, idempotency_window) if idle_unload > 0 else 0.0
        self.driver = Driver(
            self, self.automation, self.ahead, self.stream, clock, unload_after=unload_after
        )
        self.tables: dict[str, LoadedTable] = {}  # the tables this replica holds, loaded
        self._tasks: list[asyncio.Task[None]] = []
        self._writes_counted = 0  # the lease writes already in the metric

    @property
    def commits(self) -> int:
        """Commits this process appended."""
        return self.stream.commits

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
        """The loops: the action clock; with leases, their renewal and (with a registry)
        adoption of tables nobody serves."""
        metrics.TABLES_HELD.set_function(lambda: len(self.tables))
        self._tasks.append(asyncio.create_task(_every(tick_interval, self.tick, "clock_loop")))
        if self.leases is not None:
            ttl = self.leases.ttl
            self._tasks.append(asyncio.create_task(_every(ttl / 3, self.renew, "lease_loop")))
            if self.ownership.registry is not None:
                self._tasks.append(asyncio.create_task(_every(ttl / 2, self.adopt, "adopt_loop")))

    async def stop(self) -> None:
        await self.driver.stop()
        for table in self.tables.values():
            self.ahead.drop(table)
        tasks, self._tasks = self._tasks, []
        await stop_tasks(tasks)
        await self.stream.stop()

    # ------------------------------------------------------------------ loading

    async def table(self, table_id: str) -> LoadedTable:
        """The table as this replica holds it (loaded on first use); NotOwner when another
        replica serves it."""
        await self._claim(table_id)
        table = self.tables.get(table_id)
        if table is None:
            loaded = await self.stream.load(table_id)
            # Loads of one table may run at once (a drive and a command after the table was
            # taken back): the first to finish is the table, and its holders may have
            # committed on it already; a slower load, older, must not replace it.
            table = self.tables.setdefault(table_id, loaded)
            self.driver.wake(table_id)
            if table is loaded and table.state.closed:  # its closing is public now
                await self.ownership.closed(table_id)
        return table

    async def existing(self, table_id: str) -> LoadedTable:
        """The table for a read: ``TABLE_NOT_FOUND`` when it was never opened (nothing is
        claimed or cached for an unknown id)."""
        cached = self.tables.get(table_id)
        if cached is None and await self.events.last_sequence(table_id) == 0:
            raise IllegalAction(TABLE_NOT_FOUND, "no such table")
        table = await self.table(table_id)
        if table.sequence == 0:
            raise IllegalAction(TABLE_NOT_FOUND, "no such table")
        return table

    async def state(self, table_id: str) -> TableState:
        return (await self.table(table_id)).state

    def forget(self, table_id: str) -> None:
        """Drop the cached state (the next command reloads from the store)."""
        table = self.tables.pop(table_id, None)
        if table is not None:
            self.ahead.drop(table)
        self.driver.forget(table_id)
        self.stream.forget(table_id)

    # ------------------------------------------------------------------ commands

    async def execute(self, table_id: str, command: tc.TableCommand, key: str) -> Outcome:
        """Decide, append and apply one command; then run the automatic steps it enables: the
        first ``INLINE_STEPS`` before answering, the rest (e.g. a table of bots playing on) in
        the background, so a call never waits for a whole game."""
        outcome = await self.commit(table_id, command, key)
        assert outcome is not None
        if outcome.duplicate:
            # A retry is answered at once: were it to drive the table again first, a client
            # whose calls keep being cut off (a crash every few commits) would never get its
            # answer, and would retry until its key left the window.
            self.driver.drive_later(table_id)
            return outcome
        await self.driver.drive_now(table_id)
        return outcome

    async def act(self, table_id: str, command: tc.TableCommand, key: str) -> Outcome:
        """A player's move, answered as soon as its own commit has landed (a retry: at once, with
        its first outcome). What it enables (a deal, the hand's end, the next hand, bots' turns)
        is driven in the background: an Act costs one append, not the appends after it too.
        Players learn what follows from the public projection, as they learn everyone's moves."""
        outcome = await self.commit(table_id, command, key)
        assert outcome is not None
        self.driver.drive_later(table_id)
        return outcome

    async def start_hand(self, table_id: str) -> int:
        """Run what is due at the table (a hand starts when it may); the table's sequence, or
        the reason no hand can start now."""
        if await self.driver.drive_now(table_id) == 0:
            state = await self.state(table_id)
            raise start_hand_refusal(state, self.clock()) or IllegalAction(
                NOT_ENOUGH_PLAYERS, "no hand can start now"
            )
        return (await self.table(table_id)).sequence

    async def commit(
        self,
        table_id: str,
        command: tc.TableCommand,
        key: str,
        automatic: bool = False,
        based_on: int | None = None,
        decided: Decided | None = None,
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
                    self.ahead.start(table_id, table, state)
                kind = type(command).__name__
                proposal = Proposal(key, kind, state, events, self.clock(), automatic)
                try:
                    outcome = await self.stream.commit(table_id, table, proposal)
                    self.driver.wake(table_id)
                    return outcome
                except ConcurrencyConflict:  # another writer got there first: table reloaded
                    self.driver.wake(table_id)
                    if automatic:
                        return None
                    # the writer may be the replica that holds the table now (this one's
                    # lease lapsed while the command waited): decided again, it is appended
                    # only while this replica still serves the table
                    await self._claim(table_id)
                    metrics.RETRIES.inc()
            raise Conflict(table_id)

    async def _claim(self, table_id: str) -> None:
        """This replica serves ``table_id`` (no store round trip while its lease is fresh);
        on NotOwner the table is forgotten and NotOwner raised."""
        try:
            await self.ownership.claim(table_id)
        except NotOwner:
            self.forget(table_id)
            raise

    # ------------------------------------------------------------------ automation

    async def drive(self, table_id: str, limit: int = 1000) -> int:
        """Run the steps no player decides; how many were committed (``Driver.drive``)."""
        return await self.driver.drive(table_id, limit)

    async def tick(self) -> None:
        """The action clock, at every table this process holds (``Driver.tick``)."""
        await self.driver.tick()

    # ------------------------------------------------------------------ ownership

    async def adopt(self) -> list[str]:
        """Take over shards of tables that nobody serves (their owner died), up to a fair
        share, driving each of their tables; hand whole shards back when over it. Return the
        shards taken."""

        def busy(shard: str) -> bool:
            return any(
                table.state.hand_in_progress
                for table_id, table in self.tables.items()
                if self.ownership.shard(table_id) == shard
            )

        async def taken(table_id: str) -> None:
            loaded = self.tables.get(table_id)  # from before a lapse not yet noticed
            if loaded is not None and await self.events.last_sequence(table_id) != loaded.sequence:
                self.forget(table_id)
            with contextlib.suppress(NotOwner):  # the shard moved on again meanwhile
                await self.drive(table_id)

        adopted = await self.ownership.rebalance(busy, self.forget_shard, taken)
        metrics.LEASES_TAKEN_OVER.inc(len(adopted))
        self._count_writes()
        return adopted

    def _count_writes(self) -> None:
        if self.leases is not None:
            metrics.OWNERSHIP_WRITES.inc(self.leases.writes - self._writes_counted)
            self._writes_counted = self.leases.writes

    def forget_shard(self, shard: str) -> None:
        """This replica no longer holds ``shard``: forget its tables."""
        for table_id in [t for t in self.tables if self.ownership.shard(t) == shard]:
            self.forget(table_id)

    async def renew(self) -> None:
        """Renew the shard leases held (kept by a ``LeaseThread``, which renews them itself:
        take the lapses it reported). A lease that lapsed (a starved replica renewed late)
        while nobody took the shard is taken again and its tables kept, each checked against
        its stream (one that moved meanwhile is reloaded on next use); a shard another replica
        holds now has its tables forgotten."""
        for shard in await self.ownership.renew():
            if await self.ownership.retake(shard):
                log.warning("lease_retaken", shard=shard)
                await self._check_tables(shard)
            else:
                log.warning("lease_lost", shard=shard)
                self.forget_shard(shard)
        self._count_writes()

    async def _check_tables(self, shard: str) -> None:
        """Forget every table of ``shard`` whose stream moved past what this replica holds
        (another replica served it while the lease was lapsed); the others stay loaded. One
        read of the stream's last sequence per table, ``CHECKS_AT_ONCE`` at a time. A table
        that commits meanwhile may read as moved and be reloaded: never kept stale, and its
        appends carry the expected sequence whatever this check saw."""
        gate = asyncio.Semaphore(CHECKS_AT_ONCE)

        async def check(table_id: str, table: LoadedTable) -> None:
            async with gate:
                last = await self.events.last_sequence(table_id)
            if last != table.sequence and self.tables.get(table_id) is table:
                log.warning("table_moved_meanwhile", table=table_id)
                self.forget(table_id)

        mine = [(t, table) for t, table in self.tables.items() if self.ownership.shard(t) == shard]
        await asyncio.gather(*(check(t, table) for t, table in mine))


async def _every(interval: float, work: Callable[[], Awaitable[object]], name: str) -> None:
    """Run ``work`` every ``interval`` seconds until cancelled; a failure is logged
    (``<name>_error``) and the loop goes on."""
    while True:
        await asyncio.sleep(interval)
        honour_cancel()
        try:
            await work()
        except Exception:  # keep the loop alive; the error is logged
            log.exception(f"{name}_error")
