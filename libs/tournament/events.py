"""The tournament's events: what happened, in the tournament's stream
(``holdem.tournament.<id>``), one commit per decided command.

Three kinds, told apart by who acts on them:
- facts about the field and the money: registrations, eliminations and places, rebuys and
  add-ons, prizes and refunds owed (``Payment``: what a wallet saga pays, once, by its key);
- the director's decisions about tables (``TableOpened``, ``PlayerSeated``, ``MoveOrdered``,
  ``HandReleased``, ``TableClosed``): the process manager turns each into table commands
  (libs/tournament/directives.py) and reports back with commands;
- the clock: levels, breaks, hand-for-hand.

Events carry what applying them needs and nothing derived; ``evolve`` never fails on them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .config import TournamentConfig


class PaymentReason(StrEnum):
    REFUND = "refund"  # an unregistration or a cancellation: everything the entrant paid
    PRIZE = "prize"


@dataclass(frozen=True, slots=True)
class Payment:
    """Wallet chips owed to ``player_id``; ``key`` is the wallet credit's idempotency key
    (unique in the whole platform: it starts with the tournament id)."""

    key: str
    player_id: str
    amount: int
    reason: PaymentReason
    place: int = 0  # prizes: the place (the best of the places a tie shares)


@dataclass(frozen=True, slots=True)
class HandResult:
    """One player dealt into a hand: their stack when it began and when it ended."""

    player_id: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Placing:
    """``player_id`` finished at ``place``; ``tied`` players share the places from ``place``
    to ``place + tied - 1`` (1: alone)."""

    player_id: str
    place: int
    tied: int = 1


# ---- lifecycle and registration ----


@dataclass(frozen=True, slots=True)
class TournamentCreated:
    tournament_id: str
    config: TournamentConfig
    created_by: str
    at: float


@dataclass(frozen=True, slots=True)
class PlayerRegistered:
    """An entry, paid (``paid``: buy-in and fee) by the registration saga keyed ``key``."""

    player_id: str
    key: str
    entry: int  # 1, 2, ...: registration order (odd chips of a split prize go in this order)
    paid: int
    is_bot: bool
    bot_level: str
    at: float


@dataclass(frozen=True, slots=True)
class PlayerUnregistered:
    player_id: str
    key: str  # the unregistration's key
    refund: Payment | None  # None when the entry cost nothing
    at: float


@dataclass(frozen=True, slots=True)
class TournamentStarted:
    seed: str  # the seating draw's (from the dealer's CSPRNG: randomness enters as an event)
    at: float


@dataclass(frozen=True, slots=True)
class TournamentCancelled:
    reason: str
    refunds: tuple[Payment, ...]  # everything each entrant paid, one payment each
    at: float


@dataclass(frozen=True, slots=True)
class PrizesAwarded:
    prize_pool: int
    prizes: tuple[Payment, ...]  # every prize above 0, best place first


@dataclass(frozen=True, slots=True)
class TournamentFinished:
    winner: str
    at: float


@dataclass(frozen=True, slots=True)
class PaymentSettled:
    """The wallet credited the payment keyed ``key`` (its saga reported back)."""

    key: str
    at: float


# ---- tables and seats (the director's decisions) ----


@dataclass(frozen=True, slots=True)
class TableOpened:
    table_id: str
    number: int


@dataclass(frozen=True, slots=True)
class PlayerSeated:
    """At the start's draw or a late registration: ``stack`` tournament chips at ``seat``."""

    player_id: str
    table_id: str
    seat: int
    stack: int
    is_bot: bool
    bot_level: str


@dataclass(frozen=True, slots=True)
class MoveOrdered:
    """Move ``player_id`` between two tables that are between hands (both held until
    ``PlayerMoved``): leave ``from_table`` with the stack, sit at ``to_seat`` of ``to_table``
    with that stack. ``reason``: ``balance`` or ``break`` (the source table is broken)."""

    move_id: str
    player_id: str
    from_table: str
    from_seat: int
    to_table: str
    to_seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class PlayerMoved:
    move_id: str
    at: float


@dataclass(frozen=True, slots=True)
class TableBreaking:
    """The field fits in one table fewer: this one deals no more hands and its players move."""

    table_id: str


@dataclass(frozen=True, slots=True)
class TableClosed:
    table_id: str


@dataclass(frozen=True, slots=True)
class HandReleased:
    """``table_id`` may deal its hand number ``hand`` at level ``level``'s blinds."""

    table_id: str
    hand: int
    level: int


# ---- play ----


@dataclass(frozen=True, slots=True)
class HandRecorded:
    """A released hand ended; each dealt player's stack changed by ``end - start``."""

    table_id: str
    hand: int
    results: tuple[HandResult, ...]
    button: int
    at: float


@dataclass(frozen=True, slots=True)
class PlayerBusted:
    """No chips left after a hand. ``order`` ranks busts in time (busts of one hand, or of one
    hand-for-hand round, share it); ``start_stack`` ranks those that share it.
    ``rebuy_until``: the player may still rebuy until then (else None: out when ranked)."""

    player_id: str
    table_id: str
    start_stack: int
    order: int
    rebuy_until: float | None
    in_round: bool = False  # busted in a hand-for-hand round: ranked when every table is done


@dataclass(frozen=True, slots=True)
class PlayersPlaced:
    """Final places, given together to busts ranked at once (and to the winner)."""

    placings: tuple[Placing, ...]
    at: float


@dataclass(frozen=True, slots=True)
class RebuyBought:
    player_id: str
    key: str
    chips: int
    cost: int
    at: float


@dataclass(frozen=True, slots=True)
class RebuyDeclined:
    player_id: str
    at: float


@dataclass(frozen=True, slots=True)
class AddOnBought:
    player_id: str
    key: str
    chips: int
    cost: int
    at: float


# ---- the clock ----


@dataclass(frozen=True, slots=True)
class LevelStarted:
    level: int
    at: float


@dataclass(frozen=True, slots=True)
class BreakDue:
    """Level ``after_level`` is over and a break follows: no table deals a new hand; the
    break starts when every table has finished its hand."""

    after_level: int
    at: float


@dataclass(frozen=True, slots=True)
class BreakStarted:
    at: float
    ends_at: float


@dataclass(frozen=True, slots=True)
class BreakEnded:
    at: float


@dataclass(frozen=True, slots=True)
class HandForHandStarted:
    players_left: int
    at: float


@dataclass(frozen=True, slots=True)
class HandForHandEnded:
    players_left: int
    at: float


Event = (
    TournamentCreated
    | PlayerRegistered
    | PlayerUnregistered
    | TournamentStarted
    | TournamentCancelled
    | PrizesAwarded
    | TournamentFinished
    | PaymentSettled
    | TableOpened
    | PlayerSeated
    | MoveOrdered
    | PlayerMoved
    | TableBreaking
    | TableClosed
    | HandReleased
    | HandRecorded
    | PlayerBusted
    | PlayersPlaced
    | RebuyBought
    | RebuyDeclined
    | AddOnBought
    | LevelStarted
    | BreakDue
    | BreakStarted
    | BreakEnded
    | HandForHandStarted
    | HandForHandEnded
)

EVENT_TYPES: tuple[type[Event], ...] = (
    TournamentCreated,
    PlayerRegistered,
    PlayerUnregistered,
    TournamentStarted,
    TournamentCancelled,
    PrizesAwarded,
    TournamentFinished,
    PaymentSettled,
    TableOpened,
    PlayerSeated,
    MoveOrdered,
    PlayerMoved,
    TableBreaking,
    TableClosed,
    HandReleased,
    HandRecorded,
    PlayerBusted,
    PlayersPlaced,
    RebuyBought,
    RebuyDeclined,
    AddOnBought,
    LevelStarted,
    BreakDue,
    BreakStarted,
    BreakEnded,
    HandForHandStarted,
    HandForHandEnded,
)
