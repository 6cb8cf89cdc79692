"""A player's aggregate: profile and wallet (stream ``holdem.lobby.player.<player_id>``).

Money moves in three ways, each an idempotent step of a saga (services/lobby/sagas.py):
- ``Reserved``: a buy-in or top-up takes chips from the balance (ledger BUY_IN / TOP_UP) and
  holds them for the saga; ``Confirmed`` (the table seated the player) moves them to the table,
  ``Released`` (the table refused) gives them back (ledger REFUND). Deciding either for a saga
  that is not open decides nothing, so a retried step is harmless.
- ``CashedOut``: chips back from a table (PlayerLeft or TableClosed), keyed by the table commit
  ``<table>:<seq>``: the same commit is never credited twice. A player the table sat out with no
  chips (busted) gets one of 0 (``bust``): that buy-in is closed, nothing is left on the table.
- ``Granted``: the starting grant of a new player; for a house AI (``bot_level`` set), also a
  refill when its wallet cannot cover an AI seat's buy-in (``house_grant``): the audit counts it
  as a grant like any other.

``balance`` + the open reservations + what the tables hold for this player is what the player
owns; the audit (libs/lobby/audit.py) sums it over every player against the grants.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from libs.lobby.codec import decode_events, decode_state, encode_events, encode_state
from libs.platform.errors import NotFound, PreconditionFailed

PLAYER_NOT_FOUND = "PLAYER_NOT_FOUND"
NOT_ENOUGH_CHIPS = "NOT_ENOUGH_CHIPS"
ALREADY_REGISTERED = "ALREADY_REGISTERED"

BUY_IN = "buy_in"
TOP_UP = "top_up"
SAGA_KINDS = (BUY_IN, TOP_UP)

# Ledger entry kinds (the proto's LedgerEntryKind without its prefix).
GRANT = "GRANT"
LEDGER_BUY_IN = "BUY_IN"
CASH_OUT = "CASH_OUT"
LEDGER_TOP_UP = "TOP_UP"
REFUND = "REFUND"

MAX_LEDGER = 100_000  # entries kept (the oldest are dropped from the state, never the stream)


# ---- events ----


@dataclass(frozen=True)
class Registered:
    username: str
    display_name: str
    guest: bool
    bot: bool
    at: float
    level: str = ""  # a house AI's level (easy, normal, hard): the table plays its seats so


@dataclass(frozen=True)
class Granted:
    amount: int
    at: float


@dataclass(frozen=True)
class Reserved:
    saga: str
    kind: str  # BUY_IN or TOP_UP
    table_id: str
    amount: int
    seat: int | None
    wait_for_big_blind: bool
    at: float


@dataclass(frozen=True)
class Confirmed:
    saga: str
    seat: int
    stack: int
    sequence: int  # the table commit that seated the player (or added the chips)
    at: float


@dataclass(frozen=True)
class Released:
    saga: str
    code: str  # why the table refused (its error code)
    status: str  # the gRPC status name the refusal had
    message: str
    at: float


@dataclass(frozen=True)
class CashedOut:
    ref: str  # "<table>:<seq>" of the table commit
    table_id: str
    sequence: int
    amount: int
    at: float


Event = Registered | Granted | Reserved | Confirmed | Released | CashedOut
EVENT_TYPES: dict[str, type[Event]] = {
    t.__name__: t for t in (Registered, Granted, Reserved, Confirmed, Released, CashedOut)
}


# ---- state ----


@dataclass(frozen=True)
class Reservation:
    kind: str
    table_id: str
    amount: int
    seat: int | None
    wait_for_big_blind: bool
    at: float


@dataclass(frozen=True)
class Outcome:
    """How a finished saga ended: seated (``code`` empty) or refused (``code``, ``status``)."""

    kind: str
    table_id: str
    amount: int
    seat: int = 0
    stack: int = 0
    sequence: int = 0
    code: str = ""
    status: str = ""
    message: str = ""


@dataclass(frozen=True)
class Seating:
    """Chips this player brought to a table since commit ``since`` (buy-in and top-ups)."""

    since: int
    amount: int


@dataclass(frozen=True)
class Entry:
    index: int
    kind: str
    amount: int
    balance_after: int
    table_id: str
    reference: str
    at: float


@dataclass
class Wallet:
    player_id: str
    username: str = ""
    display_name: str = ""
    guest: bool = False
    bot: bool = False
    bot_level: str = ""  # house AIs (seated by CreateTable with bots): their level
    created_at: float = 0.0
    granted: int = 0
    balance: int = 0
    reservations: dict[str, Reservation] = field(default_factory=dict)
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    seatings: dict[str, Seating] = field(default_factory=dict)  # by table id
    credited: list[str] = field(default_factory=list)  # refs of credited table commits
    ledger: list[Entry] = field(default_factory=list)
    entries: int = 0  # ledger entries ever written (the next index - 1)

    @property
    def registered(self) -> bool:
        return bool(self.username)

    @property
    def reserved(self) -> int:
        return sum(r.amount for r in self.reservations.values())

    @property
    def on_tables(self) -> int:
        return sum(s.amount for s in self.seatings.values())


def initial(player_id: str) -> Wallet:
    return Wallet(player_id)


def _entry(w: Wallet, kind: str, amount: int, table_id: str, ref: str, at: float) -> None:
    w.entries += 1
    w.ledger.append(Entry(w.entries, kind, amount, w.balance, table_id, ref, at))
    if len(w.ledger) > MAX_LEDGER:
        del w.ledger[: len(w.ledger) - MAX_LEDGER]


def evolve(state: Wallet, event: Event) -> Wallet:
    """The state after ``event`` (``state`` is not changed)."""
    w = replace(
        state,
        reservations=dict(state.reservations),
        outcomes=dict(state.outcomes),
        seatings=dict(state.seatings),
        credited=list(state.credited),
        ledger=list(state.ledger),
    )
    match event:
        case Registered():
            w.username, w.display_name = event.username, event.display_name
            w.guest, w.bot, w.created_at = event.guest, event.bot, event.at
            w.bot_level = event.level
        case Granted():
            w.granted += event.amount
            w.balance += event.amount
            _entry(w, GRANT, event.amount, "", "grant", event.at)
        case Reserved():
            w.balance -= event.amount
            w.reservations[event.saga] = Reservation(
                event.kind,
                event.table_id,
                event.amount,
                event.seat,
                event.wait_for_big_blind,
                event.at,
            )
            kind = LEDGER_BUY_IN if event.kind == BUY_IN else LEDGER_TOP_UP
            _entry(w, kind, -event.amount, event.table_id, event.saga, event.at)
        case Confirmed():
            held = w.reservations.pop(event.saga)
            seating = w.seatings.get(held.table_id)
            if _cashed_out_after(w, held.table_id, event.sequence):
                # the table paid these chips back (a cash-out commit after the seat's own, e.g.
                # the room limit closed the table) before this saga confirmed: they are already
                # in the balance, so they are on no table
                pass
            elif held.kind == BUY_IN or seating is None:
                w.seatings[held.table_id] = Seating(event.sequence, held.amount)
            else:
                w.seatings[held.table_id] = Seating(seating.since, seating.amount + held.amount)
            w.outcomes[event.saga] = Outcome(
                held.kind, held.table_id, held.amount, event.seat, event.stack, event.sequence
            )
        case Released():
            held = w.reservations.pop(event.saga)
            w.balance += held.amount
            w.outcomes[event.saga] = Outcome(
                held.kind,
                held.table_id,
                held.amount,
                code=event.code,
                status=event.status,
                message=event.message,
            )
            _entry(w, REFUND, held.amount, held.table_id, event.saga, event.at)
        case CashedOut():
            w.balance += event.amount
            w.credited.append(event.ref)
            seating = w.seatings.get(event.table_id)
            if seating is not None and seating.since < event.sequence:
                del w.seatings[event.table_id]
            _entry(w, CASH_OUT, event.amount, event.table_id, event.ref, event.at)
    return w


def _cashed_out_after(w: Wallet, table_id: str, sequence: int) -> bool:
    """Whether a cash-out from ``table_id`` at a commit after ``sequence`` was credited."""
    for ref in w.credited:
        table, _, credited = ref.rpartition(":")
        if table == table_id and credited.isdigit() and int(credited) > sequence:
            return True
    return False


# ---- decisions ----


def _require(w: Wallet) -> None:
    if not w.registered:
        raise NotFound(PLAYER_NOT_FOUND, f"no player {w.player_id[:64]!r}")


def register(
    w: Wallet,
    username: str,
    display_name: str,
    guest: bool,
    bot: bool,
    grant: int,
    now: float,
    level: str = "",
) -> list[Event]:
    if w.registered:
        if w.username == username:
            return []  # a retry of the same registration
        raise PreconditionFailed(ALREADY_REGISTERED, "this player id is taken")
    events: list[Event] = [Registered(username, display_name, guest, bot, now, level)]
    if grant > 0:
        events.append(Granted(grant, now))
    return events


def house_grant(w: Wallet, needed: int, grant: int, now: float) -> list[Event]:
    """A house AI about to buy in ``needed`` chips: a grant when its balance is short (at least
    ``grant``); nothing for anyone else or when the balance covers it (so a retry grants once)."""
    _require(w)
    if not w.bot_level or w.balance >= needed:
        return []
    return [Granted(max(grant, needed - w.balance), now)]


def reserve(
    w: Wallet,
    saga: str,
    kind: str,
    table_id: str,
    amount: int,
    seat: int | None,
    wait_for_big_blind: bool,
    now: float,
) -> list[Event]:
    """Hold ``amount`` for saga ``saga``; nothing if the saga already reserved or finished."""
    _require(w)
    if saga in w.reservations or saga in w.outcomes:
        return []
    if amount > w.balance:
        raise PreconditionFailed(
            NOT_ENOUGH_CHIPS, f"the wallet holds {w.balance} chips, {amount} were asked"
        )
    return [Reserved(saga, kind, table_id, amount, seat, wait_for_big_blind, now)]


def confirm(w: Wallet, saga: str, seat: int, stack: int, sequence: int, now: float) -> list[Event]:
    if saga not in w.reservations:
        return []
    return [Confirmed(saga, seat, stack, sequence, now)]


def release(w: Wallet, saga: str, code: str, status: str, message: str, now: float) -> list[Event]:
    if saga not in w.reservations:
        return []
    return [Released(saga, code, status, message[:200], now)]


def credit(w: Wallet, table_id: str, sequence: int, amount: int, now: float) -> list[Event]:
    """Chips back from table commit ``sequence``; nothing if that commit was credited."""
    ref = f"{table_id}:{sequence}"
    if not w.registered or ref in w.credited:
        return []
    return [CashedOut(ref, table_id, sequence, amount, now)]


def bust(w: Wallet, table_id: str, sequence: int, now: float) -> list[Event]:
    """The player lost every chip at ``table_id`` (commit ``sequence`` sat them out): their
    buy-in there is closed with a cash-out of 0 (ledger CASH_OUT 0, nothing on that table any
    more). Nothing when no buy-in there is open (already closed, or a retry)."""
    seating = w.seatings.get(table_id)
    if seating is None or seating.since >= sequence or f"{table_id}:{sequence}" in w.credited:
        return []
    return [CashedOut(f"{table_id}:{sequence}", table_id, sequence, 0, now)]


# ---- storage ----


def encode(events: list[Event]) -> bytes:
    return encode_events(events)


def decode(data: bytes) -> list[Event]:
    return decode_events(data, EVENT_TYPES)


def encode_wallet(w: Wallet) -> bytes:
    return encode_state(w)


def decode_wallet(data: bytes) -> Wallet:
    w = decode_state(
        data,
        Wallet,
        {
            "reservations": Reservation,
            "outcomes": Outcome,
            "seatings": Seating,
            "ledger": Entry,
        },
    )
    return w
