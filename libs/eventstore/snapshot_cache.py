"""Snapshots are a cache: a ``SnapshotStore`` that never fails its caller.

Losing a snapshot loses nothing (the aggregate is replayed from its stream), so a snapshot store
that cannot be reached (Redis down, restarting, a timeout) must not fail a command or a read:
a load that fails is a miss, a save that fails is skipped. ``SnapshotCache`` wraps a store that
way and remembers whether its last round trip failed (``reachable``), so a health check can
still tell that the cache is down. Every failure is logged once per outage, not per call. A
snapshot the store holds but that is corrupt (``CorruptSnapshot``) is no outage: it reaches the
repository, which discards it.
"""

from __future__ import annotations

import structlog

from .store import CorruptSnapshot, Snapshot, SnapshotStore

log = structlog.get_logger("eventstore")


class SnapshotCache:
    """``SnapshotStore`` over ``inner``: errors become misses (load: None; save: False)."""

    def __init__(self, inner: SnapshotStore) -> None:
        self.inner = inner
        self.reachable = True
        self.failures = 0

    def _failed(self, what: str, exc: Exception) -> None:
        self.failures += 1
        if self.reachable:
            log.warning("snapshot_store_unreachable", operation=what, error=str(exc)[:200])
        self.reachable = False

    def _ok(self) -> None:
        if not self.reachable:
            log.info("snapshot_store_reachable")
        self.reachable = True

    async def save(self, key: str, sequence: int, data: bytes) -> bool:
        try:
            written = await self.inner.save(key, sequence, data)
        except Exception as exc:  # a cache: any failure is a skipped write
            self._failed("save", exc)
            return False
        self._ok()
        return written

    async def load(self, key: str) -> Snapshot | None:
        try:
            snapshot = await self.inner.load(key)
        except CorruptSnapshot:  # the store answered: what it holds is the repository's problem
            self._ok()
            raise
        except Exception as exc:  # a cache: any failure is a miss
            self._failed("load", exc)
            return None
        self._ok()
        return snapshot

    async def delete(self, key: str) -> None:
        try:
            await self.inner.delete(key)
        except Exception as exc:
            self._failed("delete", exc)
            return
        self._ok()
