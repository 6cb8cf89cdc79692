"""Load an aggregate as "latest snapshot + commits after it", append, and snapshot.

A snapshot is a cache of what the stream says: one that cannot be read (corrupt, of a version
this code does not know) or that is ahead of its stream (of a stream since restored or
recreated) is discarded, with a warning (``snapshot_discarded``), deleted from the store (so the
next snapshot can replace it) and the aggregate folded from its stream's first commit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

import structlog

from .store import AppendResult, Commit, CorruptSnapshot, EventStore, SnapshotStore

log = structlog.get_logger("eventstore")

S = TypeVar("S")


@dataclass(frozen=True, slots=True)
class Loaded(Generic[S]):
    state: S
    sequence: int  # the stream sequence ``state`` reflects (0: nothing yet)
    from_snapshot: bool
    replayed: int  # commits folded after the snapshot
    commits_since_snapshot: int


class Repository(Generic[S]):
    """Generic over the aggregate: the caller says how to start, fold and (de)serialize it.

    ``snapshot_every``: write a snapshot after that many commits since the last one (0: never
    automatically); callers may also snapshot at meaningful points (e.g. hand end).
    ``fold_many``: folds a run of commits at once (what folding each in turn gives), for an
    aggregate that replays a run faster than commit by commit.
    """

    def __init__(
        self,
        events: EventStore,
        snapshots: SnapshotStore | None,
        *,
        initial: Callable[[str], S],
        fold: Callable[[S, Commit], S],
        encode: Callable[[S], bytes],
        decode: Callable[[bytes], S],
        snapshot_every: int = 100,
        fold_many: Callable[[S, list[Commit]], S] | None = None,
    ) -> None:
        self.events = events
        self.snapshots = snapshots
        self._initial = initial
        self._fold = fold
        self._encode = encode
        self._decode = decode
        self._fold_many = fold_many
        self.snapshot_every = snapshot_every
        self.discarded = 0  # snapshots discarded by loads (corrupt, or ahead of the stream)

    def _fold_run(self, state: S, commits: list[Commit]) -> S:
        if self._fold_many is not None:
            return self._fold_many(state, commits)
        for commit in commits:
            state = self._fold(state, commit)
        return state

    async def load(self, stream_id: str, use_snapshot: bool = True) -> Loaded[S]:
        snapshot = await self._snapshot(stream_id) if use_snapshot else None
        if snapshot is not None:
            state, sequence = snapshot
        else:
            state, sequence = self._initial(stream_id), 0
        commits = await self.events.read(stream_id, after=sequence)
        if commits:
            state, sequence = self._fold_run(state, commits), commits[-1].sequence
        elif snapshot is not None and sequence > (
            last := await self.events.last_sequence(stream_id)
        ):
            await self._discard(stream_id, f"sequence {sequence} is ahead of the stream's {last}")
            return await self.load(stream_id, use_snapshot=False)
        return Loaded(state, sequence, snapshot is not None, len(commits), len(commits))

    async def _snapshot(self, stream_id: str) -> tuple[S, int] | None:
        """The stored snapshot, decoded, with its sequence; None when there is none or it had
        to be discarded."""
        if self.snapshots is None:
            return None
        try:
            stored = await self.snapshots.load(stream_id)
            if stored is None:
                return None
            return self._decode(stored.data), stored.sequence
        except CorruptSnapshot as exc:
            await self._discard(stream_id, str(exc))
        except Exception as exc:  # what ``decode`` raises for bytes it cannot read
            await self._discard(stream_id, f"{type(exc).__name__}: {exc}")
        return None

    async def _discard(self, stream_id: str, why: str) -> None:
        self.discarded += 1
        log.warning("snapshot_discarded", stream_id=stream_id, reason=why[:300])
        if self.snapshots is not None:
            try:
                await self.snapshots.delete(stream_id)
            except Exception as exc:  # a cache: the next load discards it again
                log.warning("snapshot_delete_failed", stream_id=stream_id, error=str(exc)[:200])

    async def catch_up(self, stream_id: str, state: S, sequence: int) -> tuple[S, int, int]:
        """``state`` (which reflects commits up to ``sequence``) brought up to the stream's
        last commit: the state, its sequence and how many commits were folded (0: it was
        current; one read of the stream's last sequence). For a cache that another writer
        (another replica) may have overtaken."""
        commits = await self.events.read(stream_id, after=sequence)
        if commits:
            state, sequence = self._fold_run(state, commits), commits[-1].sequence
        return state, sequence, len(commits)

    async def append(
        self,
        stream_id: str,
        data: bytes,
        *,
        expected_last: int,
        msg_id: str,
        headers: dict[str, str] | None = None,
    ) -> AppendResult:
        return await self.events.append(
            stream_id, data, expected_last=expected_last, msg_id=msg_id, headers=headers
        )

    async def snapshot(self, stream_id: str, state: S, sequence: int) -> bool:
        if self.snapshots is None:
            return False
        return await self.snapshots.save(stream_id, sequence, self._encode(state))

    def snapshot_due(self, commits_since_snapshot: int) -> bool:
        return self.snapshot_every > 0 and commits_since_snapshot >= self.snapshot_every
