"""A player's aggregate: profile and wallet (stream ``holdem.lobby.player.<player_id>``): its
events, its state and how each event changes it (``evolve``), bounded; what it allows (the
decisions) is wallet_decide.py, how it is stored wallet_codec.py.

Money moves in three ways, each an idempotent step of a saga (services/lobby/sagas.py):
- ``Reserved``: a buy-in or top-up takes chips from the balance (ledger BUY_IN / TOP_UP) and
  holds them for the saga; ``Confirmed`` (the table seated the player) moves them to the table,
  ``Released`` (the table refused) gives them back (ledger REFUND). Deciding either for a saga
  that is not open decides nothing, so a retried step is harmless.
- ``CashedOut``: chips back from a table (PlayerLeft or TableClosed), keyed by the table commit
  ``<table>:<seq>``: the same commit is never credited twice (``credits``, below). A player the
  table sat out with no chips (busted) gets one of 0 (``bust``): that buy-in is closed, nothing
  is left on the table.
- ``Granted``: the starting grant of a new player; for a house AI (``bot_level`` set), also a
  refill when its wallet cannot cover an AI seat's buy-in (``house_grant``): the audit counts it
  as a grant like any other.

``balance`` + the open reservations + what the tables hold for this player is what the player
owns; the audit (libs/lobby/audit.py) sums it over every player against the grants.

Bounded: a house AI plays for ever, so the state keeps nothing whose size grows with the
wallet's history, and ``evolve`` copies only the (bounded) containers an event changes.

- ``credits``: per table, the last credited commit (high-water mark), not every commit. A
  table's credits reach a wallet in the table's commit order, each commit after every earlier
  one was fully credited: the table projects its commits in order, each once (libs/eventstore/
  projection.py: every publish is guarded by the subject's last position, a commit at or below
  the last projected one is never published again); the one cash-out consumer
  (services/lobby/cashout.py, shared by every replica) is read by one replica at a time (the
  holder of its lease: services/lobby/public_feed.py), a batch at a time, each commit handled
  in order and tried again before the next when it fails; a replica taking the lease first waits
  for the last holder's batch to be acknowledged or its ack wait to be out, and JetStream
  redelivers an expired one before any later one; a commit is acked only after all its
  credits and busts are committed. The one overlap (a holder stalled
  past the ack wait while another replica takes the message over) credits nothing twice: the
  replica that takes over credits the commit fully before it acks it, and the stalled one
  decides again on the state that won (the append carries the expected sequence), in which the
  mark is at or past its commit. So "commit ``s`` of table ``t`` was credited" is exactly
  ``s <= credits[t].sequence``. Marks of tables where the player has no seat and no open
  buy-in are forgotten beyond the ``MAX_LEFT_TABLES`` most recently credited: only a
  redelivery could bring one of their commits again, and a redelivery comes before the next
  message is handed out, so long before ``MAX_LEFT_TABLES`` other tables credit this wallet.
  (Not covered: a consumer made anew after its durable state was lost would hand out the
  public stream from its start again; commits of tables whose marks were forgotten would be
  credited again. Nothing in the lobby deletes the consumer.)
- ``outcomes``: a finished saga's outcome, for a retried step or call (the same idempotency
  key answers the first outcome), kept ``OUTCOME_WINDOW_SECONDS`` after the saga ended and, of
  those, the last ``MAX_OUTCOMES``. Open sagas (``reservations``) are never dropped, and every
  automatic retry (the process manager, a replica racing another, JetStream's duplicate window)
  comes while the saga is open or seconds after it ended; a client call repeating a key after
  the window is a new buy-in (the table forgets the saga's key sooner still:
  services/table/idempotency.py).
- ``ledger``: the last ``LEDGER_WINDOW`` entries (``entries`` counts every one ever written);
  ListLedger reads older pages from the player's stream, which keeps every event
  (``ledger_of`` folds it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from libs.lobby.wallet_events import (
    EVENT_TYPES,
    CashedOut,
    Confirmed,
    Event,
    Granted,
    Registered,
    Released,
    Reserved,
    TournamentCredited,
    TournamentPaid,
)

__all__ = [
    "EVENT_TYPES",
    "CashedOut",
    "Confirmed",
    "Event",
    "Granted",
    "Registered",
    "Released",
    "Reserved",
    "TournamentCredited",
    "TournamentPaid",
]

PLAYER_NOT_FOUND = "PLAYER_NOT_FOUND"

BUY_IN = "buy_in"
TOP_UP = "top_up"
SAGA_KINDS = (BUY_IN, TOP_UP)

# Ledger entry kinds (the proto's LedgerEntryKind without its prefix).
GRANT = "GRANT"
LEDGER_BUY_IN = "BUY_IN"
CASH_OUT = "CASH_OUT"
LEDGER_TOP_UP = "TOP_UP"
REFUND = "REFUND"
TOURNAMENT_BUY_IN = "TOURNAMENT_BUY_IN"
TOURNAMENT_PRIZE = "TOURNAMENT_PRIZE"

#: Ledger entries kept in the state (the oldest are dropped from the state, never the stream):
#: more than a ListLedger page (100), so the latest pages need no stream read.
LEDGER_WINDOW = 256
#: A finished saga's outcome is kept this long after it ended (a retried step or call within it
#: decides nothing and answers the first outcome) ...
OUTCOME_WINDOW_SECONDS = 3600.0
#: ... and, of those, only the last this many.
MAX_OUTCOMES = 256
#: Credit marks kept for tables where the player has no seat and no open buy-in (the most
#: recently credited ones); those of the tables where they have one are always kept.
MAX_LEFT_TABLES = 256


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
    at: float = 0.0  # when the saga ended (snapshots of older lobbies: see ``decode_wallet``)


@dataclass(frozen=True)
class Seating:
    """Chips this player brought to a table since commit ``since`` (buy-in and top-ups)."""

    since: int
    amount: int


@dataclass(frozen=True)
class Credit:
    """The last credited commit of a table (every earlier one is credited too) and what it
    paid (a cash-out, or 0 for a bust)."""

    sequence: int
    amount: int
    at: float


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
    credits: dict[str, Credit] = field(default_factory=dict)  # by table id, last credited last
    ledger: list[Entry] = field(default_factory=list)  # the last LEDGER_WINDOW entries
    entries: int = 0  # ledger entries ever written (the next index - 1)
    # chips paid into tournaments less chips credited from them (the audit's "in tournaments")
    in_tournaments: int = 0
    # tournament payments and credits taken, by key (once each): the last MAX_OUTCOMES
    tournament_keys: dict[str, float] = field(default_factory=dict)

    @property
    def registered(self) -> bool:
        return bool(self.username)

    @property
    def reserved(self) -> int:
        return sum(r.amount for r in self.reservations.values())

    @property
    def on_tables(self) -> int:
        return sum(s.amount for s in self.seatings.values())

    def was_credited(self, table_id: str, sequence: int) -> bool:
        """Whether commit ``sequence`` of ``table_id`` was credited (or closed a bust) here."""
        mark = self.credits.get(table_id)
        return mark is not None and sequence <= mark.sequence


def initial(player_id: str) -> Wallet:
    return Wallet(player_id)


def _entry(w: Wallet, kind: str, amount: int, table_id: str, ref: str, at: float) -> None:
    """Append a ledger entry (to a new list: the old state's is not changed)."""
    w.entries += 1
    entry = Entry(w.entries, kind, amount, w.balance, table_id, ref, at)
    w.ledger = [*w.ledger[max(len(w.ledger) - LEDGER_WINDOW + 1, 0) :], entry]


def _finish(w: Wallet, saga: str, outcome: Outcome, now: float) -> None:
    """Record a finished saga's outcome; drop the oldest past the window or the count."""
    outcomes = dict(w.outcomes)
    outcomes[saga] = outcome
    horizon = now - OUTCOME_WINDOW_SECONDS
    while len(outcomes) > 1:
        oldest = next(iter(outcomes))
        if len(outcomes) <= MAX_OUTCOMES and outcomes[oldest].at >= horizon:
            break
        del outcomes[oldest]
    w.outcomes = outcomes


def _credited(w: Wallet, table_id: str, credit: Credit) -> None:
    """Move the table's mark to ``credit`` (last in the order); forget the marks of the tables
    left longest ago beyond ``MAX_LEFT_TABLES``."""
    credits = dict(w.credits)
    credits.pop(table_id, None)
    credits[table_id] = credit
    w.credits = _bounded(credits, w.seatings, w.reservations)


def _bounded(
    credits: dict[str, Credit], seatings: dict[str, Seating], reservations: dict[str, Reservation]
) -> dict[str, Credit]:
    """``credits`` without the oldest marks of tables left beyond ``MAX_LEFT_TABLES`` (those of
    tables with a seat or an open buy-in stay); changed in place."""
    if len(credits) <= MAX_LEFT_TABLES:
        return credits
    active = set(seatings) | {r.table_id for r in reservations.values()}
    excess = len(credits) - MAX_LEFT_TABLES - sum(1 for t in active if t in credits)
    if excess > 0:
        oldest = []
        for table_id in credits:  # oldest first: usually the first one is enough
            if table_id not in active:
                oldest.append(table_id)
                if len(oldest) == excess:
                    break
        for table_id in oldest:
            del credits[table_id]
    return credits


def evolve(state: Wallet, event: Event) -> Wallet:
    """The state after ``event`` (``state`` is not changed: only the containers the event
    changes are copied, each of a bounded size)."""
    w = replace(state)
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
            w.reservations = {
                **w.reservations,
                event.saga: Reservation(
                    event.kind,
                    event.table_id,
                    event.amount,
                    event.seat,
                    event.wait_for_big_blind,
                    event.at,
                ),
            }
            kind = LEDGER_BUY_IN if event.kind == BUY_IN else LEDGER_TOP_UP
            _entry(w, kind, -event.amount, event.table_id, event.saga, event.at)
        case Confirmed():
            w.reservations = dict(w.reservations)
            held = w.reservations.pop(event.saga)
            seating = w.seatings.get(held.table_id)
            mark = w.credits.get(held.table_id)
            if mark is not None and mark.sequence > event.sequence:
                # the table paid these chips back (a cash-out commit after the seat's own, e.g.
                # the room limit closed the table) before this saga confirmed: they are already
                # in the balance, so they are on no table
                pass
            elif held.kind == BUY_IN or seating is None:
                w.seatings = {**w.seatings, held.table_id: Seating(event.sequence, held.amount)}
            else:
                w.seatings = {
                    **w.seatings,
                    held.table_id: Seating(seating.since, seating.amount + held.amount),
                }
            outcome = Outcome(
                held.kind,
                held.table_id,
                held.amount,
                event.seat,
                event.stack,
                event.sequence,
                at=event.at,
            )
            _finish(w, event.saga, outcome, event.at)
        case Released():
            w.reservations = dict(w.reservations)
            held = w.reservations.pop(event.saga)
            w.balance += held.amount
            outcome = Outcome(
                held.kind,
                held.table_id,
                held.amount,
                code=event.code,
                status=event.status,
                message=event.message,
                at=event.at,
            )
            _finish(w, event.saga, outcome, event.at)
            _entry(w, REFUND, held.amount, held.table_id, event.saga, event.at)
        case CashedOut():
            w.balance += event.amount
            seating = w.seatings.get(event.table_id)
            if seating is not None and seating.since < event.sequence:
                w.seatings = {k: v for k, v in w.seatings.items() if k != event.table_id}
            _credited(w, event.table_id, Credit(event.sequence, event.amount, event.at))
            _entry(w, CASH_OUT, event.amount, event.table_id, event.ref, event.at)
        case TournamentPaid():
            w.balance -= event.amount
            w.in_tournaments += event.amount
            _took(w, event.key, event.at)
            _entry(w, TOURNAMENT_BUY_IN, -event.amount, event.tournament_id, event.key, event.at)
        case TournamentCredited():
            w.balance += event.amount
            w.in_tournaments -= event.amount
            _took(w, event.key, event.at)
            kind = TOURNAMENT_PRIZE if event.reason == "prize" else REFUND
            _entry(w, kind, event.amount, event.tournament_id, event.key, event.at)
    return w


def _took(w: Wallet, key: str, at: float) -> None:
    """Remember a tournament key (the last ``MAX_OUTCOMES``: a repeat comes within seconds,
    from a saga or a director resuming)."""
    keys = {**w.tournament_keys, key: at}
    while len(keys) > MAX_OUTCOMES:
        del keys[next(iter(keys))]
    w.tournament_keys = keys


def ledger_of(player_id: str, events: Iterable[Event], *, after: int, limit: int) -> list[Entry]:
    """The ledger entries after index ``after`` (at most ``limit``), from the player's events
    from the first one (the state keeps only the latest ``LEDGER_WINDOW``)."""
    w, found = initial(player_id), []
    for event in events:
        written = w.entries
        w = evolve(w, event)
        if w.entries > written and w.entries > after:
            found.append(w.ledger[-1])
            if len(found) >= limit:
                break
    return found
