"""Hand events: small frozen records. Every state change of a hand is one of these.

``evolve`` (in ``state``) folds them into a ``HandState``; replaying the same events always rebuilds
the same state. Positions are hand positions (0 = first seat left of the button).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .cards import Card
from .config import HandConfig


class ActionKind(StrEnum):
    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BET = "bet"
    RAISE = "raise"


@dataclass(frozen=True, slots=True)
class HandStarted:
    config: HandConfig
    stacks: tuple[int, ...]
    hand_id: str = ""


@dataclass(frozen=True, slots=True)
class AntePosted:
    player: int
    amount: int


@dataclass(frozen=True, slots=True)
class DeadBlindPosted:
    """Dead money before the deal (a missed small blind): it goes to the main pot and does not
    count toward the player's bet."""

    player: int
    amount: int


@dataclass(frozen=True, slots=True)
class BlindPosted:
    """A blind or straddle; ``amount`` may be short of ``nominal`` when the player is all-in."""

    player: int
    amount: int
    nominal: int


@dataclass(frozen=True, slots=True)
class HoleCardsDealt:
    player: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class ActionTaken:
    """``amount`` is what the player added now; ``to`` is their total bet on this street after."""

    player: int
    kind: ActionKind
    amount: int
    to: int
    all_in: bool


@dataclass(frozen=True, slots=True)
class UncalledBetReturned:
    player: int
    amount: int


@dataclass(frozen=True, slots=True)
class BettingRoundEnded:
    """The round on ``street`` is over; every bet went into the pot, which now holds ``pot``."""

    street: int
    pot: int


@dataclass(frozen=True, slots=True)
class StreetDealt:
    """Board cards for ``street`` (1 flop, 2 turn, 3 river), after burning ``burn`` if given."""

    street: int
    cards: tuple[Card, ...]
    burn: Card | None = None


@dataclass(frozen=True, slots=True)
class HandShown:
    player: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class HandMucked:
    player: int


@dataclass(frozen=True, slots=True)
class RakeTaken:
    amount: int


@dataclass(frozen=True, slots=True)
class PotAwarded:
    """One pot (or one half of a hi-lo pot) paid out.

    ``pot`` numbers the pot (0 = main), ``share`` is ``"high"``, ``"low"`` or ``"whole"``,
    ``winners`` pairs each winning position with what it receives.
    """

    pot: int
    amount: int
    share: str
    winners: tuple[tuple[int, int], ...]
    eligible: tuple[int, ...]
    description: str = ""


@dataclass(frozen=True, slots=True)
class HandEnded:
    stacks: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HandVoided:
    """A server fault ended the hand: every chip put in during it went back to its owner."""

    reason: str
    stacks: tuple[int, ...]


Event = (
    HandStarted
    | AntePosted
    | DeadBlindPosted
    | BlindPosted
    | HoleCardsDealt
    | ActionTaken
    | UncalledBetReturned
    | BettingRoundEnded
    | StreetDealt
    | HandShown
    | HandMucked
    | RakeTaken
    | PotAwarded
    | HandEnded
    | HandVoided
)
