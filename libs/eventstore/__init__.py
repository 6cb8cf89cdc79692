"""Persistence for event-sourced aggregates: an append-only event store with optimistic
concurrency (JetStream, or in memory), a snapshot store (Redis, or in memory) and the generic
repository that loads an aggregate as "latest snapshot + the commits after it".

Stores deal in opaque commit payloads (bytes): what a commit holds is the caller's business.
"""

from .memory import InMemoryEventStore, InMemorySnapshotStore
from .repository import Loaded, Repository
from .store import (
    AppendResult,
    Commit,
    ConcurrencyConflict,
    EventStore,
    Snapshot,
    SnapshotStore,
    StoreError,
)

__all__ = [
    "AppendResult",
    "Commit",
    "ConcurrencyConflict",
    "EventStore",
    "InMemoryEventStore",
    "InMemorySnapshotStore",
    "Loaded",
    "Repository",
    "Snapshot",
    "SnapshotStore",
    "StoreError",
]
