"""A table's commits: loading it (the latest Redis snapshot plus the JetStream commits after it,
through libs.eventstore's ``Repository``), appending one command's events as one guarded commit,
snapshotting, and publishing the public projection.

Appends carry the expected last sequence (the one the cached state was built from) and the
command's idempotency key as message id: a ``ConcurrencyConflict`` means another writer got
there first (a replica that took the table over, or a dying owner's last append), and the
caller reloads with ``refresh`` before deciding again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from libs.eventstore import AppendResult, Commit, EventStore, Repository, SnapshotStore
from libs.poker.events import HandEnded, HandVoided
from libs.table import TableState, codec
from libs.table import apply as apply_table_event
from libs.table.events import Event
from libs.tableproto.envelope import decode_commit, encode_commit, encode_public
from services.table.idempotency import Outcome, RecentCommits

Publish = Callable[[str, bytes], Awaitable[None]]


@dataclass
class LoadedTable:
    """A table as this process holds it: its state, the sequence that state reflects, commits
    since the last snapshot, its idempotency window, and the lock its commands run under."""

    state: TableState
    sequence: int
    since_snapshot: int
    recent: RecentCommits = field(default_factory=RecentCommits)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


@dataclass
class _Folded:
    """What the repository rebuilds: the state and the window of keys seen on the way."""

    state: TableState
    recent: RecentCommits


def _initial(table_id: str) -> _Folded:
    return _Folded(TableState(), RecentCommits())


def _fold(folded: _Folded, commit: Commit) -> _Folded:
    _, events = decode_commit(commit.data)
    for event in events:
        apply_table_event(folded.state, event)  # in place: the folded state is ours alone
    folded.recent.record(commit.msg_id, Outcome(commit.sequence, events))
    return folded


def _encode(folded: _Folded) -> bytes:
    return codec.snapshot_dumps(folded.state, folded.recent.snapshot_keys())


def _decode(payload: bytes) -> _Folded:
    state, keys = codec.snapshot_loads(payload)
    return _Folded(state, RecentCommits.from_snapshot_keys(keys))


class TableStream:
    def __init__(
        self,
        events: EventStore,
        snapshots: SnapshotStore | None,
        *,
        snapshot_every: int,
        publish: Publish | None,
    ) -> None:
        self.repository: Repository[_Folded] = Repository(
            events,
            snapshots,
            initial=_initial,
            fold=_fold,
            encode=_encode,
            decode=_decode,
            snapshot_every=snapshot_every,
        )
        self.publish = publish

    async def load(self, table_id: str) -> LoadedTable:
        loaded = await self.repository.load(table_id)
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
    ) -> AppendResult:
        """Append ``events`` as one commit on top of ``table.sequence``; raises
        ``ConcurrencyConflict`` when the stream moved on."""
        payload = encode_commit(table_id, events, key, command_type, now)
        return await self.repository.append(
            table_id, payload, expected_last=table.sequence, msg_id=key
        )

    def record(self, table: LoadedTable, key: str, state: TableState, outcome: Outcome) -> None:
        """The commit of ``key`` landed: ``state`` is the table now."""
        table.state, table.sequence = state, outcome.sequence
        table.since_snapshot += 1
        table.recent.record(key, outcome)

    async def snapshot_if_due(self, table_id: str, table: LoadedTable, events: list[Event]) -> None:
        """Snapshot every ``snapshot_every`` commits and at every hand end."""
        if self.repository.snapshots is None:
            return
        hand_over = any(isinstance(e, (HandEnded, HandVoided)) for e in events)
        if hand_over or self.repository.snapshot_due(table.since_snapshot):
            await self.repository.snapshot(
                table_id, _Folded(table.state, table.recent), table.sequence
            )
            table.since_snapshot = 0

    async def publish_public(
        self, table_id: str, outcome: Outcome, key: str, command_type: str, now: float
    ) -> None:
        """The commit's public projection (no hidden cards) for clients."""
        if self.publish is not None:
            payload = encode_public(
                table_id, outcome.sequence, outcome.events, key, command_type, now
            )
            await self.publish(table_id, payload)
