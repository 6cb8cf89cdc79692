"""Table use cases: load a table (Redis snapshot + JetStream tail), decide a command, append the
commit with the expected sequence, evolve the cached state, snapshot, publish the public
projection, then run what needs no player (dealing, revealing the seed, starting the next hand,
bot decisions, the action clock).

One process owns a table at a time (a lease in NATS KV); every append also carries the expected
stream sequence, so even two owners could never both commit. A command repeated with the same
idempotency key returns its first outcome and is never appended twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import structlog

from libs.eventstore import ConcurrencyConflict, EventStore, SnapshotStore
from libs.eventstore.lease import LeaseLost, Leases
from libs.eventstore.registry import Registry
from libs.platform.errors import ErrorKind, ErrorMapper
from libs.poker.errors import IllegalAction
from libs.poker.events import HandEnded, HandVoided
from libs.poker.known_values import HandValueNeeded, KnownValues
from libs.table import TableState, codec, step_table
from libs.table import apply as apply_table_event
from libs.table import commands as tc
from libs.table.automation import ClockDue, next_due
from libs.table.errors import NOT_ENOUGH_PLAYERS
from libs.table.events import Event, TableClosed, TableOpened
from libs.table.planning import start_hand_refusal
from libs.tableproto.envelope import decode_commit, encode_commit, encode_public
from services.table.automation import Automation
from services.table.dealing import DealerPort
from services.table.ranking import EvaluatorUnavailable, HandRanker, values_for_showdown

log = structlog.get_logger("table")

#: The rules engine's errors (libs.poker.errors), mapped by class name so this service does not
#: depend on the engine's module layout for status codes. Engine errors also carry ``kind``
#: ("failed_precondition" / "invalid_argument"), which the mapper honours.
ENGINE_ERROR_TYPES: dict[str, ErrorKind] = {
    "IllegalAction": ErrorKind.PRECONDITION,
    "InvalidCommand": ErrorKind.INVALID_ARGUMENT,
    "PokerError": ErrorKind.PRECONDITION,
}
ENGINE_ERROR_CODES: dict[str, ErrorKind] = {
    "TABLE_NOT_OPEN": ErrorKind.NOT_FOUND,
    "NOT_OWNER": ErrorKind.UNAVAILABLE,
    "CONCURRENCY_CONFLICT": ErrorKind.CONFLICT,
}
RECENT_KEYS = 2048
INLINE_STEPS = 50  # automatic steps run before a call is answered; the rest in the background


def error_mapper() -> ErrorMapper:
    mapper = ErrorMapper()
    mapper.register_types(ENGINE_ERROR_TYPES)
    mapper.register_codes(ENGINE_ERROR_CODES)
    return mapper


class NotOwner(Exception):
    code = "NOT_OWNER"
    kind = "unavailable"

    def __init__(self, table_id: str, holder: str | None) -> None:
        self.message = f"table {table_id} is served by {holder or 'another replica'}: retry"
        super().__init__(self.message)


class Conflict(Exception):
    code = "CONCURRENCY_CONFLICT"
    kind = "aborted"

    def __init__(self, table_id: str) -> None:
        self.message = f"table {table_id} kept changing under this command: retry"
        super().__init__(self.message)


@dataclass(frozen=True)
class Outcome:
    sequence: int
    events: list[Event]
    duplicate: bool = False


@dataclass
class _Table:
    state: TableState
    sequence: int
    since_snapshot: int
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    recent: OrderedDict[str, Outcome] = field(default_factory=OrderedDict)


class TableApp:
    def __init__(
        self,
        events: EventStore,
        snapshots: SnapshotStore | None,
        dealer: DealerPort,
        *,
        leases: Leases | None = None,
        publish: Callable[[str, bytes], Awaitable[None]] | None = None,
        snapshot_every: int = 50,
        clock: Callable[[], float] = time.time,
        auto_start: bool = True,
        registry: Registry | None = None,
        ranker: HandRanker | None = None,
    ) -> None:
        self.events = events
        self.snapshots = snapshots
        self.dealer = dealer
        self.leases = leases
        self.publish = publish
        self.snapshot_every = snapshot_every
        self.clock = clock
        self.auto_start = auto_start
        self.registry = registry
        self.ranker = ranker
        self.automation = Automation(dealer, clock)
        self.ranking_fallbacks = 0
        self._tables: dict[str, _Table] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._drivers: dict[str, asyncio.Task[None]] = {}
        self.commits = 0

    # ------------------------------------------------------------------ lifecycle

    async def start_background(self, tick_interval: float = 0.25) -> None:
        self._tasks.append(asyncio.create_task(self._clock_loop(tick_interval)))
        if self.leases is not None:
            self._tasks.append(asyncio.create_task(self._lease_loop()))
            if self.registry is not None:
                self._tasks.append(asyncio.create_task(self._adopt_loop()))

    async def stop(self) -> None:
        for task in self._drivers.values():
            task.cancel()
        for task in self._drivers.values():
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._drivers.clear()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks.clear()

    # ------------------------------------------------------------------ loading

    async def _own(self, table_id: str) -> None:
        if self.leases is None or self.leases.fresh(table_id):
            return
        if not await self.leases.acquire(table_id):
            self._tables.pop(table_id, None)
            raise NotOwner(table_id, await self.leases.holder(table_id))

    async def _load(self, table_id: str) -> _Table:
        table = _Table(TableState(), 0, 0)
        if self.snapshots is not None:
            snapshot = await self.snapshots.load(table_id)
            if snapshot is not None:
                table = _decode_snapshot(snapshot.data, snapshot.sequence)
        for commit in await self.events.read(table_id, after=table.sequence):
            _, events = decode_commit(commit.data)
            for event in events:
                apply_table_event(table.state, event)
            table.sequence = commit.sequence
            table.since_snapshot += 1
            table.recent[commit.msg_id] = Outcome(commit.sequence, events)
        return table

    async def table(self, table_id: str) -> _Table:
        await self._own(table_id)
        table = self._tables.get(table_id)
        if table is None:
            table = self._tables[table_id] = await self._load(table_id)
        return table

    async def state(self, table_id: str) -> TableState:
        return (await self.table(table_id)).state

    def forget(self, table_id: str) -> None:
        """Drop the cached state (the next command reloads from the store)."""
        self._tables.pop(table_id, None)

    # ------------------------------------------------------------------ commands

    async def execute(self, table_id: str, command: tc.TableCommand, key: str) -> Outcome:
        """Decide, append and apply one command; then run the automatic steps it enables: the
        first ``INLINE_STEPS`` before answering, the rest (e.g. a table of bots playing on) in
        the background, so a call never waits for a whole game."""
        outcome = await self._execute(table_id, command, key)
        assert outcome is not None
        await self._drive_now(table_id)
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

    async def _drive_now(self, table_id: str) -> int:
        done = await self.drive(table_id, limit=INLINE_STEPS)
        if done >= INLINE_STEPS:
            self._drive_later(table_id)
        return done

    def _drive_later(self, table_id: str) -> None:
        running = self._drivers.get(table_id)
        if running is not None and not running.done():
            return

        async def rest() -> None:
            try:
                while await self.drive(table_id, limit=200) >= 200:
                    pass
            except Exception as exc:  # lease lost, store down: the next call or tick resumes
                log.warning("background_drive_stopped", table_id=table_id, error=str(exc))

        self._drivers[table_id] = asyncio.create_task(rest())

    async def _execute(
        self,
        table_id: str,
        command: tc.TableCommand,
        key: str,
        automatic: bool = False,
        based_on: int | None = None,
    ) -> Outcome | None:
        """Decide, append, apply. A player's command that meets a newer state is decided again
        on it; an ``automatic`` one (deal, bot, next hand) is dropped instead (None), since what
        to do next must be worked out again from the newer state."""
        table = await self.table(table_id)
        async with table.lock:
            if automatic and based_on is not None and table.sequence != based_on:
                return None  # worked out from a state that has moved on (another step ran)
            for _ in range(3):
                if key in table.recent:
                    first = table.recent[key]
                    return Outcome(first.sequence, first.events, duplicate=True)
                # domain errors propagate
                new_state, events = await self._step(table.state, command)
                if not events:
                    return Outcome(table.sequence, [])
                new_state, events = await self.automation.reveal_at_hand_end(new_state, events)
                now = self.clock()
                payload = encode_commit(table_id, events, key, type(command).__name__, now)
                try:
                    result = await self.events.append(
                        table_id, payload, expected_last=table.sequence, msg_id=key
                    )
                except ConcurrencyConflict:
                    # Another writer got there first (e.g. a dying owner's last append landed).
                    await self._refresh(table_id, table)
                    if automatic:
                        return None
                    continue
                if result.duplicate:
                    await self._refresh(table_id, table)
                    continue
                table.state, table.sequence = new_state, result.sequence
                table.since_snapshot += 1
                self.commits += 1
                outcome = Outcome(result.sequence, events)
                table.recent[key] = outcome
                while len(table.recent) > RECENT_KEYS:
                    table.recent.popitem(last=False)
                if self.registry is not None:
                    if any(isinstance(e, TableOpened) for e in events):
                        await self.registry.add(table_id)
                    if any(isinstance(e, TableClosed) for e in events):
                        await self.registry.remove(table_id)
                hand_over = any(isinstance(e, (HandEnded, HandVoided)) for e in events)
                if self.snapshots is not None and (
                    hand_over or table.since_snapshot >= self.snapshot_every
                ):
                    await self.snapshots.save(table_id, table.sequence, _encode_snapshot(table))
                    table.since_snapshot = 0
                if self.publish is not None:
                    await self.publish(
                        table_id,
                        encode_public(
                            table_id, result.sequence, events, key, type(command).__name__, now
                        ),
                    )
                return outcome
            raise Conflict(table_id)

    async def _step(
        self, state: TableState, command: tc.TableCommand
    ) -> tuple[TableState, list[Event]]:
        """``step_table`` with the hands of a showdown ranked by ``ranker`` (the evaluator service):
        a step that reaches a showdown stops, asks for every live hand's value in one call, and
        runs again. If the service cannot answer, the same evaluator runs in-process (ranking is
        a pure function; the hand goes on) and the fallback is logged."""
        if self.ranker is None:
            return step_table(state, command)
        known = KnownValues()
        for _ in range(3):
            try:
                return step_table(state, command, known)
            except HandValueNeeded as need:
                assert state.config is not None
                try:
                    await values_for_showdown(
                        self.ranker, state.config.variant, state.hand, need, known
                    )
                except EvaluatorUnavailable as exc:
                    self.ranking_fallbacks += 1
                    log.warning("evaluator_unavailable", error=str(exc), fallback="in-process")
                    return step_table(state, command)
        raise RuntimeError("the evaluator's values do not cover the showdown")

    async def _refresh(self, table_id: str, table: _Table) -> None:
        fresh = await self._load(table_id)
        table.state, table.sequence = fresh.state, fresh.sequence
        table.since_snapshot = fresh.since_snapshot
        table.recent.update(fresh.recent)

    async def drive(self, table_id: str, limit: int = 1000) -> int:
        """Run the steps no player decides (deal, reveal, next hand, bots); return how many."""
        done = 0
        for _ in range(3 * limit):  # a step lost to a newer state is worked out again
            if done >= limit:
                break
            table = await self.table(table_id)
            based_on, state = table.sequence, table.state  # read together: no await between
            command = await self.automation.next_command(
                table_id, state, start_hands=self.auto_start
            )
            if command is None:
                if table.sequence != based_on:
                    continue  # something else moved the table meanwhile: look again
                return done
            key = f"{table_id}:{based_on}:{type(command).__name__}"
            if (
                await self._execute(table_id, command, key, automatic=True, based_on=based_on)
                is not None
            ):
                done += 1
        return done

    # ------------------------------------------------------------------ background

    async def tick(self) -> None:
        """Let the clock act for players whose time ran out, at every table this process owns."""
        now = self.clock()
        for table_id, table in list(self._tables.items()):
            if isinstance(next_due(table.state, now), ClockDue):
                try:
                    await self._drive_now(table_id)
                except (NotOwner, Conflict) as exc:
                    log.warning("tick_failed", table_id=table_id, error=str(exc))

    async def _clock_loop(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            try:
                await self.tick()
            except Exception:  # keep the clock alive; the error is logged
                log.exception("clock_loop_error")

    async def adopt(self) -> list[str]:
        """Take over tables that nobody serves (their owner died), up to a fair share: the
        registered tables divided by the replicas currently holding some. Return the taken."""
        if self.leases is None or self.registry is None:
            return []
        await self.leases.announce()
        tables = await self.registry.all()
        held = set(self.leases.held())
        holders: dict[str, str | None] = {}
        for table_id in tables:
            if table_id not in held:
                holders[table_id] = await self.leases.holder(table_id)
        replicas = (
            {h for h in holders.values() if h is not None}
            | set(await self.leases.members())
            | {self.leases.owner}
        )
        share = -(-len(tables) // len(replicas))
        # Over our share while others are alive: hand idle tables back (between hands only).
        for table_id in sorted(held):
            if len(held) <= share:
                break
            cached = self._tables.get(table_id)
            if cached is not None and cached.state.hand_in_progress:
                continue
            await self.leases.release(table_id)
            self.forget(table_id)
            held.discard(table_id)
            log.info("table_released", table_id=table_id, share=share)
        taken = []
        for table_id, holder in holders.items():
            if holder is not None or len(held) >= share:
                continue
            if await self.leases.acquire(table_id):
                held.add(table_id)
                taken.append(table_id)
                log.info("table_adopted", table_id=table_id)
                await self.drive(table_id)
        return taken

    async def _adopt_loop(self) -> None:
        assert self.leases is not None
        while True:
            await asyncio.sleep(self.leases.ttl / 2)
            try:
                await self.adopt()
            except Exception:
                log.exception("adopt_loop_error")

    async def _lease_loop(self) -> None:
        assert self.leases is not None
        while True:
            await asyncio.sleep(self.leases.ttl / 3)
            try:
                for table_id in await self.leases.renew_all():
                    log.warning("lease_lost", table_id=table_id)
                    self.forget(table_id)
            except LeaseLost:
                pass
            except Exception:
                log.exception("lease_loop_error")


SNAPSHOT_KEYS = 512


def _encode_snapshot(table: _Table) -> bytes:
    keys = [(key, outcome.sequence) for key, outcome in table.recent.items()][-SNAPSHOT_KEYS:]
    return codec.snapshot_dumps(table.state, keys)


def _decode_snapshot(payload: bytes, sequence: int) -> _Table:
    state, keys = codec.snapshot_loads(payload)
    table = _Table(state, sequence, 0)
    for key, seq in keys:
        table.recent[key] = Outcome(seq, [])
    return table
