"""The tournament's commands: what callers ask (create, register, unregister, rebuy, add-on,
cancel) and what the director reports (a table's hand ended, a move landed, a payment was made,
the clock). ``now`` (seconds) comes with each, so ``decide`` stays pure; randomness (the seating
draw's seed) comes with ``Start``.

Keyed commands (``key``) are steps of wallet sagas: the same key again decides nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from .config import TournamentConfig
from .events import HandResult


@dataclass(frozen=True, slots=True)
class CreateTournament:
    tournament_id: str
    config: TournamentConfig
    created_by: str
    now: float


@dataclass(frozen=True, slots=True)
class Register:
    """Sent by the registration saga once the wallet holds the buy-in (``key``: the saga's)."""

    player_id: str
    key: str
    now: float
    is_bot: bool = False
    bot_level: str = ""  # bots: easy, normal or hard


@dataclass(frozen=True, slots=True)
class Unregister:
    player_id: str
    key: str
    now: float


@dataclass(frozen=True, slots=True)
class Start:
    """A sit & go once full, a scheduled tournament at its time (cancelled if too few)."""

    seed: str
    now: float


@dataclass(frozen=True, slots=True)
class Cancel:
    reason: str
    now: float


@dataclass(frozen=True, slots=True)
class Tick:
    """The clock: levels and breaks by time, rebuy decisions running out."""

    now: float


@dataclass(frozen=True, slots=True)
class ReportHand:
    """A table's released hand ``hand`` ended: every dealt player's stacks, the button."""

    table_id: str
    hand: int
    results: tuple[HandResult, ...]
    button: int
    now: float


@dataclass(frozen=True, slots=True)
class CompleteMove:
    """The move's player sits at the destination with their stack (the move saga is done)."""

    move_id: str
    now: float


@dataclass(frozen=True, slots=True)
class Rebuy:
    player_id: str
    key: str
    now: float


@dataclass(frozen=True, slots=True)
class DeclineRebuy:
    player_id: str
    now: float


@dataclass(frozen=True, slots=True)
class AddOn:
    player_id: str
    key: str
    now: float


@dataclass(frozen=True, slots=True)
class SettlePayment:
    """The wallet credited the payment keyed ``key``."""

    key: str
    now: float


Command = (
    CreateTournament
    | Register
    | Unregister
    | Start
    | Cancel
    | Tick
    | ReportHand
    | CompleteMove
    | Rebuy
    | DeclineRebuy
    | AddOn
    | SettlePayment
)
