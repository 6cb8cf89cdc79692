"""What the lobby's seating sagas share (sagas.py, leaving.py): a saga's id from the caller's
key (per kind and per player: the table looks the id up as its command's key, so two players'
sagas must never share one), the open-saga index's entries, and how a table's refusal becomes
the caller's error (its code and status kept; ``Pending`` when the table did not answer)."""

from __future__ import annotations

import hashlib
import uuid

from libs.errors import (
    AlreadyExists,
    Conflict,
    DomainError,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    PreconditionFailed,
    Unavailable,
)

TABLE_UNAVAILABLE = "TABLE_UNAVAILABLE"


class Pending(Unavailable):
    """The table did not answer: the saga stays open and completes when it does."""


_REFUSALS: dict[str, type[DomainError]] = {
    "FAILED_PRECONDITION": PreconditionFailed,
    "INVALID_ARGUMENT": InvalidArgument,
    "NOT_FOUND": NotFound,
    "PERMISSION_DENIED": PermissionDenied,
    "ALREADY_EXISTS": AlreadyExists,
    "ABORTED": Conflict,
}


def refusal_error(code: str, status: str, message: str) -> DomainError:
    return _REFUSALS.get(status, PreconditionFailed)(code, message)


def index_entry(player_id: str, at: float) -> str:
    """The open-saga index's value: whose saga, and when it was indexed."""
    return f"{player_id} {at:.3f}"


def parse_index_entry(value: str | None) -> tuple[str, float]:
    """(player id, when indexed); an entry written before the time was kept counts as old."""
    player_id, _, at = (value or "").partition(" ")
    try:
        return player_id, float(at or 0.0)
    except ValueError:
        return player_id, 0.0


def saga_id(kind: str, player_id: str, key: str) -> str:
    """Same caller key for the same player and kind = same saga."""
    key = key or uuid.uuid4().hex
    return hashlib.sha256(f"{kind}\n{player_id}\n{key}".encode()).hexdigest()[:40]
