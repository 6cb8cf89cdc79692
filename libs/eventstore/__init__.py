"""Persistence for event-sourced aggregates: an append-only event store with optimistic
concurrency (JetStream, or in memory), a snapshot store (Redis, or in memory) and the generic
repository that loads an aggregate as "latest snapshot + the commits after it", and projections
published after each commit, complete and in order (``projection``).

Stores deal in opaque commit payloads (bytes): what a commit holds is the caller's business.
"""

from .memory import InMemoryEventStore, InMemoryProjection, InMemorySnapshotStore
from .projection import Projected, Projection, ProjectionConflict
from .projector import Projectable, Projector
from .repository import Loaded, Repository
from .snapshot_cache import SnapshotCache
from .store import (
    AppendResult,
    Commit,
    ConcurrencyConflict,
    CorruptSnapshot,
    EventStore,
    Snapshot,
    SnapshotStore,
    StoreError,
    StoreUnavailable,
)

__all__ = [
    "AppendResult",
    "Commit",
    "ConcurrencyConflict",
    "CorruptSnapshot",
    "EventStore",
    "InMemoryEventStore",
    "InMemoryProjection",
    "InMemorySnapshotStore",
    "Loaded",
    "Projectable",
    "Projected",
    "Projection",
    "ProjectionConflict",
    "Projector",
    "Repository",
    "Snapshot",
    "SnapshotCache",
    "SnapshotStore",
    "StoreError",
    "StoreUnavailable",
]
