"""One listed table (stream ``holdem.lobby.table.<table_id>``): its name and settings (the
TableConfig as protobuf bytes, base64), who created it, and what the lobby learnt from the
table's public commits: players seated, rake taken, closed. ``Activity`` events carry the table
commit they come from and are applied in order once (``last_sequence``)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from libs.errors import NotFound, PermissionDenied, echo
from libs.lobby.codec import decode_events, decode_state, encode_events, encode_state
from libs.table.errors import TABLE_NOT_FOUND

NOT_TABLE_OWNER = "NOT_TABLE_OWNER"

OPEN = "open"
CLOSED = "closed"


@dataclass(frozen=True)
class TableListed:
    name: str
    config: str  # base64 of holdem.common.v1.TableConfig
    created_by: str
    at: float


@dataclass(frozen=True)
class Activity:
    sequence: int  # the table commit
    seated_delta: int
    rake: int
    closed_reason: str  # "" = still open
    at: float


Event = TableListed | Activity
EVENT_TYPES: dict[str, type[Event]] = {"TableListed": TableListed, "Activity": Activity}


@dataclass
class Listing:
    table_id: str
    name: str = ""
    config: str = ""
    created_by: str = ""
    created_at: float = 0.0
    status: str = OPEN
    closed_reason: str = ""
    seated: int = 0
    rake: int = 0
    last_sequence: int = 0

    @property
    def exists(self) -> bool:
        return bool(self.created_by)


def initial(table_id: str) -> Listing:
    return Listing(table_id)


def evolve(state: Listing, event: Event) -> Listing:
    match event:
        case TableListed():
            return replace(
                state,
                name=event.name,
                config=event.config,
                created_by=event.created_by,
                created_at=event.at,
            )
        case Activity():
            closed = bool(event.closed_reason)
            return replace(
                state,
                seated=0 if closed else max(0, state.seated + event.seated_delta),
                rake=state.rake + event.rake,
                status=CLOSED if closed else state.status,
                closed_reason=event.closed_reason or state.closed_reason,
                last_sequence=event.sequence,
            )
    return state


def require(state: Listing) -> Listing:
    if not state.exists:
        raise NotFound(TABLE_NOT_FOUND, f"no table {echo(state.table_id)}")
    return state


def list_table(state: Listing, name: str, config: str, created_by: str, now: float) -> list[Event]:
    if state.exists:
        return []  # a retry
    return [TableListed(name, config, created_by, now)]


def record(
    state: Listing, sequence: int, seated_delta: int, rake: int, closed_reason: str, now: float
) -> list[Event]:
    """What table commit ``sequence`` changed; nothing if it was recorded (or nothing changed)."""
    if not state.exists or sequence <= state.last_sequence:
        return []
    if not seated_delta and not rake and not closed_reason:
        return []
    return [Activity(sequence, seated_delta, rake, closed_reason, now)]


def may_close(state: Listing, player_id: str) -> None:
    require(state)
    if player_id and player_id != state.created_by:
        raise PermissionDenied(NOT_TABLE_OWNER, "only the table's creator may close it")


def encode(events: list[Event]) -> bytes:
    return encode_events(events)


def decode(data: bytes) -> list[Event]:
    return decode_events(data, EVENT_TYPES)


def encode_listing(state: Listing) -> bytes:
    return encode_state(state)


def decode_listing(data: bytes) -> Listing:
    return decode_state(data, Listing)
