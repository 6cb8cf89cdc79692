"""A table's commits: loading it (the latest Redis snapshot plus the JetStream commits after it,
through libs.eventstore's ``Repository``), appending one command's events as one guarded commit,
snapshotting, and publishing the public projection (``HOLDEM_PUBLIC``, one message per commit,
through libs.eventstore's ``Projector``: in order, each exactly once; a load first projects the
commits a dead owner appended but never published).

Appends carry the expected last sequence (the one the cached state was built from) and the
command's idempotency key as message id: a ``ConcurrencyConflict`` means another writer got
there first (a replica that took the table over, or a dying owner's last append), and the
caller reloads with ``refresh`` before deciding again.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import structlog

from libs.eventstore import (
    AppendResult,
    Commit,
    EventStore,
    Projectable,
    Projection,
    Projector,
    Repository,
    SnapshotStore,
)
from libs.platform.metrics import table as metrics
from libs.poker.events import HandEnded, HandVoided
from libs.table import TableState, codec
from libs.table import commands as tc
from libs.table.events import Event
from libs.table.settling import Replay
from libs.tableproto.envelope import (
    Record,
    encode_commit,
    encode_public,
    encode_records,
    public_of_stored,
    split_stored,
)
from services.table.idempotency import DEFAULT_WINDOW_SECONDS, Outcome, RecentCommits

log = structlog.get_logger("table")


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
    # once it lands): ``TableApp`` takes it when that state is the table's, else drops it
    ahead: Ahead | None = None


@dataclass
class Ahead:
    """An automatic step worked out ahead: on ``state``, the step ``task`` gives (its command
    and what deciding it gives), or None when none was worked out."""

    state: TableState
    task: asyncio.Task[Stepped | None]


#: A command and what deciding it gave: (command, (state, events)).
Stepped = tuple[tc.TableCommand, tuple[TableState, list[Event]]]


@dataclass
class _Folded:
    """What the repository rebuilds: the state and the window of keys seen on the way."""

    state: TableState
    recent: RecentCommits


class _Codec:
    """How the repository starts, folds and (de)serializes a table with its idempotency window
    (``window`` seconds of client keys)."""

    def __init__(self, window: float) -> None:
        self.window = window

    def initial(self, table_id: str) -> _Folded:
        return _Folded(TableState(), RecentCommits(self.window))

    def fold(self, folded: _Folded, commit: Commit) -> _Folded:
        """One commit: every event applied (a run of one settles no hand)."""
        return self.fold_many(folded, [commit])

    def fold_many(self, folded: _Folded, commits: list[Commit]) -> _Folded:
        """Each commit in turn, in place (the folded state is ours alone), settling the hands
        that are over (libs/table/settling.py): a client's command keeps its events (the answer
        to its retry), the table's own steps only their time."""
        split = [split_stored(commit.data) for commit in commits]
        replay = Replay(folded.state, [kinds for _, _, kinds, _, _ in split])
        recent = folded.recent
        for index, (commit, (at, automatic, kinds, versions, datas)) in enumerate(
            zip(commits, split, strict=True)
        ):
            events = replay.commit(index, kinds, versions, datas, keep=not automatic)
            if automatic:
                recent.passed(at)
            else:
                recent.record(commit.msg_id, Outcome(commit.sequence, events), at)
        return folded

    def encode(self, folded: _Folded) -> bytes:
        return codec.snapshot_dumps(folded.state, folded.recent.snapshot_keys())

    def decode(self, payload: bytes) -> _Folded:
        state, keys = codec.snapshot_loads(payload)
        return _Folded(state, RecentCommits.from_snapshot_keys(keys, self.window))


def _public(seeds: bool) -> Callable[[Commit], Projectable]:
    def project(commit: Commit) -> Projectable:
        return Projectable(*public_of_stored(commit.data, commit.sequence, seeds))

    return project


class TableStream:
    def __init__(
        self,
        events: EventStore,
        snapshots: SnapshotStore | None,
        *,
        snapshot_every: int,
        projection: Projection | None,
        public_max_age: float = 7 * 24 * 3600.0,
        idempotency_window: float = DEFAULT_WINDOW_SECONDS,
        public_seeds: bool = False,
    ) -> None:
        """``public_seeds``: a revealed seed goes out in the public projection at the hand's
        end (else it is public later, by ``GetDecks``)."""
        self.public_seeds = public_seeds
        folding = _Codec(idempotency_window)
        self.repository: Repository[_Folded] = Repository(
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
            else Projector(events, projection, _public(public_seeds), max_age=public_max_age)
        )
        self._snapshot_due: dict[str, tuple[TableState, list[codec.SnapshotKey], int]] = {}
        # each table's last appended events with their records, for its public projection
        self._appended: dict[str, tuple[list[Event], list[Record], bytes]] = {}
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

    async def append(
        self,
        table_id: str,
        table: LoadedTable,
        key: str,
        command_type: str,
        events: list[Event],
        now: float,
        automatic: bool = False,
    ) -> AppendResult:
        """Append ``events`` as one commit on top of ``table.sequence``; raises
        ``ConcurrencyConflict`` when the stream moved on."""
        records = encode_records(events)
        payload = encode_commit(table_id, events, key, command_type, now, automatic, records)
        self._appended[table_id] = (events, records, payload)
        return await self.repository.append(
            table_id, payload, expected_last=table.sequence, msg_id=key
        )

    def record(
        self,
        table: LoadedTable,
        key: str,
        state: TableState,
        outcome: Outcome,
        at: float,
        automatic: bool = False,
    ) -> None:
        """The commit of ``key`` (made at ``at``) landed: ``state`` is the table now."""
        table.state, table.sequence = state, outcome.sequence
        table.since_snapshot += 1
        table.recent.record(key, outcome, at, automatic)

    async def snapshot_if_due(self, table_id: str, table: LoadedTable, events: list[Event]) -> None:
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
            self._snapshot_writers[table_id] = asyncio.create_task(
                self._write_snapshots(table_id, snapshots)
            )

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

    def publish_public(
        self,
        table_id: str,
        outcome: Outcome,
        previous: int,
        key: str,
        command_type: str,
        now: float,
        then: Callable[[], Awaitable[None]] | None = None,
        automatic: bool = False,
    ) -> bool:
        """Queue the commit's public projection (no hidden cards) for clients; ``previous`` is
        the sequence it was appended on; ``then`` runs once it is public. False when there is
        no projection (``then`` was not taken)."""
        if self.projector is None:
            return False
        appended = self._appended.pop(table_id, None)
        # the records and payload of the commit just appended, when these are its events
        records, stored = (
            (appended[1], appended[2])
            if appended is not None and appended[0] is outcome.events
            else (None, None)
        )
        payload = encode_public(
            table_id,
            outcome.sequence,
            outcome.events,
            key,
            command_type,
            now,
            automatic,
            records,
            stored,
            seeds=self.public_seeds,
        )
        self.projector.submit(table_id, outcome.sequence, previous, payload, then=then)
        return True

    def forget(self, table_id: str) -> None:
        """This process no longer serves ``table_id``: stop projecting it."""
        self._appended.pop(table_id, None)
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
