"""A table's commits: loading it (the latest Redis snapshot plus the JetStream commits after it,
through libs.eventstore's ``Repository``), and ``commit``, the one call that makes a decided
command the table's: append its events as ONE guarded commit, make the new state the table's,
keep the registry of open tables, publish the public projection (``HOLDEM_PUBLIC``, one message
per commit, through libs.eventstore's ``Projector``: in order, each exactly once; a load first
projects the commits a dead owner appended but never published) and snapshot when due.

Appends carry the expected last sequence (the one the cached state was built from) and the
command's idempotency key as message id: a ``ConcurrencyConflict`` means another writer got
there first (a replica that took the table over, or a dying owner's last append); ``commit``
then reloads the table before raising it, and the caller decides again or drops the step.
Each commit also names the replica that appended it (``WRITER_HEADER``), for whoever reads
the stream later (an operator, ``holdem nemesis``'s checker).
How a load folds the stream into a table is ``folding``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol

import structlog

from libs.eventstore import (
    AppendResult,
    ConcurrencyConflict,
    EventStore,
    Projection,
    Projector,
    Repository,
    SnapshotStore,
)
from libs.eventstore.store import CONCURRENCY_CONFLICT
from libs.platform.metrics import table as metrics
from libs.platform.tasks import hold_until_done
from libs.poker.events import HandEnded, HandVoided
from libs.table import TableState, codec
from libs.table import commands as tc
from libs.table.events import Event
from libs.tableproto.envelope import Record, encode_commit, encode_public, encode_records
from services.table.folding import Folded, TableCodec, public_projection
from services.table.idempotency import DEFAULT_WINDOW_SECONDS, Outcome, RecentCommits

log = structlog.get_logger("table")

#: the header naming the replica (``HOLDEM_TABLE_REPLICA_ID``) that appended a commit
WRITER_HEADER = "Holdem-Writer"


class Conflict(Exception):
    """The table kept moving under a player's command (answered ABORTED: retry)."""

    code = CONCURRENCY_CONFLICT
    kind = "aborted"

    def __init__(self, table_id: str) -> None:
        self.message = f"table {table_id} kept changing under this command: retry"
        super().__init__(self.message)


@dataclass
class LoadedTable:
    """A table as this process holds it: its state, the sequence that state reflects, commits
    since the last snapshot, its idempotency window, and the lock its commands run under."""

    state: TableState
    sequence: int
    since_snapshot: int
    recent: RecentCommits = field(default_factory=RecentCommits)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # the next automatic step, worked out on the state a commit in flight proposes (``state``
    # once it lands): taken when that state is the table's, else dropped (``ahead``)
    ahead: Ahead | None = None


@dataclass
class Ahead:
    """An automatic step worked out ahead: on ``state``, the step ``task`` gives (its command
    and what deciding it gives), or None when none was worked out."""

    state: TableState
    task: asyncio.Task[Stepped | None]


#: A command and what deciding it gave: (command, (state, events)).
Stepped = tuple[tc.TableCommand, tuple[TableState, list[Event]]]
#: A command decided already: the state it was decided on, and what deciding it gave.
Decided = tuple[TableState, tuple[TableState, list[Event]]]


@dataclass(frozen=True)
class Proposal:
    """A command decided: the table's next ``state`` and the ``events`` that make it so, to be
    committed under the command's idempotency ``key`` at ``at`` (the table clock's time).
    ``automatic``: a step no player decided (its key is not kept in the window)."""

    key: str
    command_type: str
    state: TableState
    events: list[Event]
    at: float
    automatic: bool = False


@dataclass(frozen=True)
class _Appended:
    """A commit the store took, with what its public projection is made from: the records of
    its events and the stored payload (the projection reuses both rather than encode again)."""

    result: AppendResult
    records: list[Record]
    payload: bytes


class OpenTables(Protocol):
    """The registry of open tables as commits change it (``ownership.Ownership``)."""

    async def note_commit(self, table_id: str, events: Iterable[Event]) -> None:
        """A commit landed (a table that opened joins the registry)."""
        ...

    async def closed(self, table_id: str) -> None:
        """The table's closing commit is public: it leaves the registry."""
        ...


def count_commit(events: list[Event]) -> None:
    """The metrics of one commit: the commit, and the hand it ended or voided."""
    metrics.COMMITS.inc()
    for event in events:
        if isinstance(event, HandEnded):
            metrics.HANDS_COMPLETED.inc()
        elif isinstance(event, HandVoided):
            metrics.HANDS_VOIDED.inc()


class TableStream:
    def __init__(
        self,
        events: EventStore,
        snapshots: SnapshotStore | None,
        open_tables: OpenTables,
        *,
        snapshot_every: int,
        projection: Projection | None,
        public_max_age: float = 7 * 24 * 3600.0,
        idempotency_window: float = DEFAULT_WINDOW_SECONDS,
        public_seeds: bool = False,
        writer: str = "",
    ) -> None:
        """``public_seeds``: a revealed seed goes out in the public projection at the hand's
        end (else it is public later, by ``GetDecks``). ``writer``: this replica's id, put on
        every commit it appends (``WRITER_HEADER``; none when empty)."""
        self.public_seeds = public_seeds
        self._headers = {WRITER_HEADER: writer} if writer else None
        self.open_tables = open_tables
        self.commits = 0  # commits this process appended
        folding = TableCodec(idempotency_window)
        self.repository: Repository[Folded] = Repository(
            events,
            snapshots,
            initial=folding.initial,
            fold=folding.fold,
            fold_many=folding.fold_many,
            encode=folding.encode,
            decode=folding.decode,
            snapshot_every=snapshot_every,
        )
        self.projector = (
            None
            if projection is None
            else Projector(
                events, projection, public_projection(public_seeds), max_age=public_max_age
            )
        )
        self._snapshot_due: dict[str, tuple[TableState, list[codec.SnapshotKey], int]] = {}
        self._snapshot_writers: dict[str, asyncio.Task[None]] = {}

    async def load(self, table_id: str) -> LoadedTable:
        """The table from its snapshot and the commits after it; its public projection holds
        every one of those commits when this returns."""
        with metrics.SNAPSHOT_LOAD_SECONDS.time():
            loaded = await self.repository.load(table_id)
        if self.projector is not None:
            await self.projector.catch_up(table_id, loaded.sequence)
        folded = loaded.state
        return LoadedTable(
            folded.state, loaded.sequence, loaded.commits_since_snapshot, folded.recent
        )

    async def refresh(self, table_id: str, table: LoadedTable) -> None:
        """Reload ``table`` in place (its lock stays), keeping the keys it already knew."""
        fresh = await self.load(table_id)
        table.state, table.sequence = fresh.state, fresh.sequence
        table.since_snapshot = fresh.since_snapshot
        table.recent.merge(fresh.recent)

    async def commit(self, table_id: str, table: LoadedTable, proposal: Proposal) -> Outcome:
        """Append ``proposal`` as one commit on top of ``table.sequence`` and make it the
        table's: its state, its key in the window, the registry of open tables, the public
        projection queued (a closed table leaves the registry once its closing is public), a
        snapshot when due. The command's outcome; the first outcome when this very commit had
        landed before (its key was in the stream: ``table`` reloaded). ``ConcurrencyConflict``,
        with ``table`` reloaded, when another writer got there first."""
        previous = table.sequence
        try:
            appended = await self._append(table_id, previous, proposal)
        except ConcurrencyConflict:
            # Another writer got there first (e.g. a dying owner's last append landed).
            metrics.CONFLICTS.inc()
            await self.refresh(table_id, table)
            raise
        if appended.result.duplicate:  # this very commit landed before: its key is in the stream
            await self.refresh(table_id, table)
            first = table.recent.first_outcome(proposal.key)
            return first or Outcome(appended.result.sequence, [], duplicate=True)
        outcome = Outcome(appended.result.sequence, proposal.events)
        self._record(table, proposal, outcome)
        self.commits += 1
        count_commit(proposal.events)
        await self.open_tables.note_commit(table_id, proposal.events)
        # A closed table leaves the registry of open tables only once its closing is public:
        # if this process dies first, the replica that adopts it publishes it.
        closing = self._closed(table_id) if proposal.state.closed else None
        queued = self._publish(table_id, previous, proposal, outcome, appended, then=closing)
        if closing is not None and not queued:
            await closing()
        self._snapshot_if_due(table_id, table, proposal.events)
        return outcome

    async def _append(self, table_id: str, previous: int, proposal: Proposal) -> _Appended:
        """Append ``proposal``'s events as one commit on top of ``previous``; raises
        ``ConcurrencyConflict`` when the stream moved on."""
        records = encode_records(proposal.events)
        payload = encode_commit(
            table_id,
            proposal.events,
            proposal.key,
            proposal.command_type,
            proposal.at,
            proposal.automatic,
            records,
        )
        result = await self.repository.append(
            table_id, payload, expected_last=previous, msg_id=proposal.key, headers=self._headers
        )
        return _Appended(result, records, payload)

    @staticmethod
    def _record(table: LoadedTable, proposal: Proposal, outcome: Outcome) -> None:
        """The commit of ``proposal`` landed: its state is the table now."""
        table.state, table.sequence = proposal.state, outcome.sequence
        table.since_snapshot += 1
        table.recent.record(proposal.key, outcome, proposal.at, proposal.automatic)

    def _closed(self, table_id: str) -> Callable[[], Awaitable[None]]:
        async def closed() -> None:
            await self.open_tables.closed(table_id)

        return closed

    def _snapshot_if_due(self, table_id: str, table: LoadedTable, events: list[Event]) -> None:
        """Snapshot every ``snapshot_every`` commits and at every hand end: in the background
        (the command does not wait for Redis; ``flush_snapshots`` does), the latest one only
        when several are due before the first is written. A state is never changed once
        committed (each command makes a new one), so it is encoded when written."""
        snapshots = self.repository.snapshots
        if snapshots is None:
            return
        hand_over = any(isinstance(e, (HandEnded, HandVoided)) for e in events)
        if not (hand_over or self.repository.snapshot_due(table.since_snapshot)):
            return
        table.since_snapshot = 0
        self._snapshot_due[table_id] = (table.state, table.recent.snapshot_keys(), table.sequence)
        writer = self._snapshot_writers.get(table_id)
        if writer is None or writer.done():
            task = asyncio.create_task(self._write_snapshots(table_id, snapshots))
            hold_until_done(self._snapshot_writers, table_id, task)

    async def _write_snapshots(self, table_id: str, snapshots: SnapshotStore) -> None:
        while (due := self._snapshot_due.pop(table_id, None)) is not None:
            state, keys, sequence = due
            try:  # a snapshot is a cache: one not written costs a longer load, nothing else
                with metrics.SNAPSHOT_SAVE_SECONDS.time():
                    await snapshots.save(table_id, sequence, codec.snapshot_dumps(state, keys))
            except Exception as exc:
                log.warning("snapshot_failed", table_id=table_id, error=str(exc))

    async def flush_snapshots(self, table_id: str | None = None) -> None:
        """Wait until the snapshots due (of ``table_id``, or of every table) are written."""
        writers = (
            [self._snapshot_writers.get(table_id)]
            if table_id is not None
            else list(self._snapshot_writers.values())
        )
        for writer in writers:
            if writer is not None:
                await asyncio.shield(writer)

    def _publish(
        self,
        table_id: str,
        previous: int,
        proposal: Proposal,
        outcome: Outcome,
        appended: _Appended,
        then: Callable[[], Awaitable[None]] | None = None,
    ) -> bool:
        """Queue the commit's public projection (no hidden cards) for clients; ``previous`` is
        the sequence it was appended on; ``then`` runs once it is public. False when there is
        no projection (``then`` was not taken)."""
        if self.projector is None:
            return False
        payload = encode_public(
            table_id,
            outcome.sequence,
            outcome.events,
            proposal.key,
            proposal.command_type,
            proposal.at,
            proposal.automatic,
            appended.records,
            appended.payload,
            seeds=self.public_seeds,
        )
        self.projector.submit(table_id, outcome.sequence, previous, payload, then=then)
        return True

    def forget(self, table_id: str) -> None:
        """This process no longer serves ``table_id``: stop projecting it."""
        if self.projector is not None:
            self.projector.forget(table_id)

    async def stop(self, grace: float = 2.0) -> None:
        """Write the snapshots due and publish what is queued (for up to ``grace`` seconds
        each), then stop projecting."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.flush_snapshots(), grace)
        for writer in self._snapshot_writers.values():
            writer.cancel()
        if self.projector is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.projector.flush(), grace)
            await self.projector.stop()
