"""The contracts every backend honours (see tests/eventstore for the shared contract tests)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


class StoreError(Exception):
    """The store could not do what was asked (unreachable, misconfigured)."""


CONCURRENCY_CONFLICT = "CONCURRENCY_CONFLICT"
STORE_UNAVAILABLE = "STORE_UNAVAILABLE"


class StoreUnavailable(StoreError):
    """The store did not answer in time (a NATS node failing over, Redis restarting): nothing
    is known to have happened, so the caller retries (with the same idempotency key)."""

    code = STORE_UNAVAILABLE
    kind = "unavailable"

    def __init__(self, what: str) -> None:
        self.message = f"the event store is not answering ({what}): retry"
        super().__init__(self.message)


class CorruptSnapshot(StoreError):
    """A stored snapshot cannot be what was saved (e.g. its sequence is not a number): the
    repository discards it and folds the stream instead."""


class ConcurrencyConflict(StoreError):
    """Another writer appended first: ``expected`` was not the stream's last sequence."""

    code = CONCURRENCY_CONFLICT
    kind = "aborted"

    def __init__(self, stream_id: str, expected: int, actual: int) -> None:
        self.stream_id = stream_id
        self.expected = expected
        self.actual = actual
        self.message = (
            f"stream {stream_id!r} is at sequence {actual}, not {expected}: reload and retry"
        )
        super().__init__(self.message)


@dataclass(frozen=True, slots=True)
class Commit:
    """One appended message: ``sequence`` orders commits of a stream (not necessarily 1, 2, 3)."""

    stream_id: str
    sequence: int
    msg_id: str
    data: bytes
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AppendResult:
    sequence: int
    duplicate: bool = False  # the same msg_id was already appended: nothing new was written


class EventStore(Protocol):
    async def append(
        self,
        stream_id: str,
        data: bytes,
        *,
        expected_last: int,
        msg_id: str,
        headers: dict[str, str] | None = None,
    ) -> AppendResult:
        """Append one commit if the stream's last sequence is ``expected_last`` (0: empty).

        A retry of the commit that was last appended (same ``msg_id``) returns the original
        sequence with ``duplicate=True``. Otherwise a mismatch raises ``ConcurrencyConflict``.
        """
        ...

    async def read(self, stream_id: str, after: int = 0) -> list[Commit]:
        """Every commit of the stream with a sequence above ``after``, in order."""
        ...

    async def last_sequence(self, stream_id: str) -> int:
        """Sequence of the stream's last commit, 0 if it has none."""
        ...


@dataclass(frozen=True, slots=True)
class Snapshot:
    key: str
    sequence: int
    data: bytes


class SnapshotStore(Protocol):
    async def save(self, key: str, sequence: int, data: bytes) -> bool:
        """Store the snapshot only if it is newer than the stored one; True if written."""
        ...

    async def load(self, key: str) -> Snapshot | None: ...

    async def delete(self, key: str) -> None: ...
