"""A wallet's events (libs/lobby/wallet.py: the state and how each event changes it)."""

from __future__ import annotations

from dataclasses import dataclass


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


@dataclass(frozen=True)
class TournamentPaid:
    """A tournament's buy-in (and fee), or a rebuy or add-on, paid from the balance (ledger
    TOURNAMENT_BUY_IN), once by ``key`` (the tournament's registration or purchase key)."""

    key: str
    tournament_id: str
    amount: int
    at: float


@dataclass(frozen=True)
class TournamentCredited:
    """Chips from a tournament (a prize, a refund), once by ``key`` (the tournament's payment
    key: ``<tournament>:prize:<player>``, ``<tournament>:refund:<registration>``)."""

    key: str
    tournament_id: str
    amount: int
    reason: str  # prize or refund (libs.tournament's PaymentReason)
    at: float


Event = (
    Registered
    | Granted
    | Reserved
    | Confirmed
    | Released
    | CashedOut
    | TournamentPaid
    | TournamentCredited
)
EVENT_TYPES: dict[str, type[Event]] = {
    t.__name__: t
    for t in (
        Registered,
        Granted,
        Reserved,
        Confirmed,
        Released,
        CashedOut,
        TournamentPaid,
        TournamentCredited,
    )
}
