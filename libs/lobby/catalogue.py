"""One listed table (stream ``holdem.lobby.table.<table_id>``): its name and settings (the
TableConfig as protobuf bytes, base64), who created it, and what the lobby learnt from the
table's public commits: players seated, rake taken, closed. ``Activity`` events carry the table
commit they come from and are applied in order once (``last_sequence``)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

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
    # a private table (privacy.py): not listed; entered with its password or invite code
    private: bool = False
    password_hash: str = ""
    invite_code: str = ""
    approve_seats: bool = False


@dataclass(frozen=True)
class SeatRequested:
    """A player asked to sit at a table whose creator approves who sits."""

    player_id: str
    at: float


@dataclass(frozen=True)
class SeatDecided:
    player_id: str
    approved: bool
    at: float


@dataclass(frozen=True)
class WaitlistJoined:
    """A player waits for a seat at a full table of ``seats`` seats (waitlist.py)."""

    player_id: str
    seats: int
    at: float


@dataclass(frozen=True)
class WaitlistLeft:
    """A player left the waiting list: ``seated`` (took the seat offered) or gave up."""

    player_id: str
    seated: bool
    at: float


@dataclass(frozen=True)
class Activity:
    sequence: int  # the table commit
    seated_delta: int
    rake: int
    closed_reason: str  # "" = still open
    at: float


Event = TableListed | Activity | SeatRequested | SeatDecided | WaitlistJoined | WaitlistLeft
EVENT_TYPES: dict[str, type[Event]] = {
    "TableListed": TableListed,
    "Activity": Activity,
    "SeatRequested": SeatRequested,
    "SeatDecided": SeatDecided,
    "WaitlistJoined": WaitlistJoined,
    "WaitlistLeft": WaitlistLeft,
}


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
    private: bool = False
    password_hash: str = ""
    invite_code: str = ""
    approve_seats: bool = False
    requests: list[str] = field(default_factory=list)  # waiting for the creator, in order
    approved: list[str] = field(default_factory=list)
    # the waiting list (waitlist.py): in order; the table's seats; when a seat came free for it
    waiting: list[str] = field(default_factory=list)
    capacity: int = 0
    offer_started: float = 0.0

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
                private=event.private,
                password_hash=event.password_hash,
                invite_code=event.invite_code,
                approve_seats=event.approve_seats,
            )
        case SeatRequested():
            return replace(state, requests=[*state.requests, event.player_id])
        case SeatDecided():
            approved = [p for p in state.approved if p != event.player_id]
            return replace(
                state,
                requests=[p for p in state.requests if p != event.player_id],
                approved=[*approved, event.player_id] if event.approved else approved,
            )
        case WaitlistJoined():
            return replace(state, waiting=[*state.waiting, event.player_id], capacity=event.seats)
        case WaitlistLeft():
            waiting = [p for p in state.waiting if p != event.player_id]
            # a seat taken ends the offer; one who gave up restarts the clock for the rest
            restart = event.at if state.offer_started and not event.seated else 0.0
            return replace(state, waiting=waiting, offer_started=restart if waiting else 0.0)
        case Activity():
            closed = bool(event.closed_reason)
            seated = 0 if closed else max(0, state.seated + event.seated_delta)
            freed = state.capacity and state.seated >= state.capacity > seated
            offer = event.at if freed and state.waiting else state.offer_started
            return replace(
                state,
                offer_started=offer,
                seated=seated,
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


def list_table(
    state: Listing,
    name: str,
    config: str,
    created_by: str,
    now: float,
    privacy: TableListed | None = None,
) -> list[Event]:
    """``privacy``: a private table's settings (privacy.py ``private_listing``)."""
    if state.exists:
        return []  # a retry
    if privacy is not None:
        return [replace(privacy, name=name, config=config, created_by=created_by, at=now)]
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
