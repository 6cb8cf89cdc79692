"""In-memory backends: the same contracts as JetStream and Redis, for unit tests and tools."""

from __future__ import annotations

import asyncio

from .projection import Projected, ProjectionConflict, Published
from .store import AppendResult, Commit, ConcurrencyConflict, Snapshot


class InMemoryEventStore:
    """One global sequence across streams, like a JetStream stream holding every subject."""

    def __init__(self) -> None:
        self._commits: dict[str, list[Commit]] = {}
        self._sequence = 0
        self._lock = asyncio.Lock()

    async def append(
        self,
        stream_id: str,
        data: bytes,
        *,
        expected_last: int,
        msg_id: str,
        headers: dict[str, str] | None = None,
    ) -> AppendResult:
        async with self._lock:
            commits = self._commits.setdefault(stream_id, [])
            last = commits[-1].sequence if commits else 0
            if last != expected_last:
                if commits and commits[-1].msg_id == msg_id:
                    return AppendResult(last, duplicate=True)
                raise ConcurrencyConflict(stream_id, expected_last, last)
            self._sequence += 1
            commits.append(Commit(stream_id, self._sequence, msg_id, data, dict(headers or {})))
            return AppendResult(self._sequence)

    async def read(self, stream_id: str, after: int = 0) -> list[Commit]:
        return [c for c in self._commits.get(stream_id, []) if c.sequence > after]

    async def last_sequence(self, stream_id: str) -> int:
        commits = self._commits.get(stream_id)
        return commits[-1].sequence if commits else 0


class InMemorySnapshotStore:
    def __init__(self) -> None:
        self._snapshots: dict[str, Snapshot] = {}

    async def save(self, key: str, sequence: int, data: bytes) -> bool:
        current = self._snapshots.get(key)
        if current is not None and current.sequence >= sequence:
            return False
        self._snapshots[key] = Snapshot(key, sequence, data)
        return True

    async def load(self, key: str) -> Snapshot | None:
        return self._snapshots.get(key)

    async def delete(self, key: str) -> None:
        self._snapshots.pop(key, None)


class InMemoryProjection:
    """The ``Projection`` contract in memory: one position counter across subjects, like one
    JetStream stream holding every aggregate's projection."""

    def __init__(self) -> None:
        self._messages: dict[str, list[Projected]] = {}
        self._position = 0

    async def last(self, stream_id: str) -> Projected | None:
        messages = self._messages.get(stream_id)
        return messages[-1] if messages else None

    async def publish(
        self, stream_id: str, sequence: int, previous: int, data: bytes, *, expected_position: int
    ) -> int:
        return self._publish(stream_id, sequence, previous, data, expected_position)

    def _publish(
        self, stream_id: str, sequence: int, previous: int, data: bytes, expected_position: int
    ) -> int:
        messages = self._messages.setdefault(stream_id, [])
        if (messages[-1].position if messages else 0) != expected_position or any(
            m.sequence == sequence for m in messages
        ):
            raise ProjectionConflict(stream_id, expected_position)
        self._position += 1
        messages.append(Projected(stream_id, sequence, previous, data, self._position))
        return self._position

    def publish_nowait(
        self,
        stream_id: str,
        sequence: int,
        previous: int,
        data: bytes,
        *,
        expected_position: int,
        callback: Published,
    ) -> bool:
        """``publish`` at once, its answer handed to ``callback`` on the loop's next turn (as an
        acknowledgement comes back from a server)."""
        result: int | BaseException
        try:
            result = self._publish(stream_id, sequence, previous, data, expected_position)
        except ProjectionConflict as exc:
            result = exc
        asyncio.get_running_loop().call_soon(callback, result)
        return True

    async def read(self, stream_id: str, after: int = 0, limit: int = 0) -> list[Projected]:
        found = [m for m in self._messages.get(stream_id, []) if m.sequence > after]
        return found[:limit] if limit else found
