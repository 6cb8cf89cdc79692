"""Commands: what a player or the dealer asks the hand to do. ``decide`` validates them."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card


@dataclass(frozen=True, slots=True)
class DealHoleCards:
    player: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class DealHands:
    """Every player's hole cards at once (``holes[p]`` for position p): one command, one step."""

    holes: tuple[tuple[Card, ...], ...]


@dataclass(frozen=True, slots=True)
class DealBoard:
    cards: tuple[Card, ...]
    burn: Card | None = None


@dataclass(frozen=True, slots=True)
class AnswerRunIt:
    """While the board's runs are being agreed: run it up to ``times`` times (1..3; 1 declines)."""

    player: int
    times: int


@dataclass(frozen=True, slots=True)
class DealRun:
    """The next extra run of the board (the cards after the common ones, street order) with
    the burn before each of its streets."""

    cards: tuple[Card, ...]
    burns: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Fold:
    player: int


@dataclass(frozen=True, slots=True)
class Check:
    player: int


@dataclass(frozen=True, slots=True)
class Call:
    player: int


@dataclass(frozen=True, slots=True)
class BetOrRaise:
    """Bet (no bet yet on this street) or raise, to a total of ``to`` on this street."""

    player: int
    to: int


@dataclass(frozen=True, slots=True)
class AllIn:
    """Put every remaining chip in: a call when that does not exceed the call, else a raise."""

    player: int


@dataclass(frozen=True, slots=True)
class Show:
    """Show at showdown; ``cards`` (optional) must be exactly the cards dealt to the player."""

    player: int
    cards: tuple[Card, ...] | None = None


@dataclass(frozen=True, slots=True)
class Muck:
    player: int


@dataclass(frozen=True, slots=True)
class VoidHand:
    """Server fault: return every chip of this hand to its owner."""

    reason: str


Command = (
    DealHoleCards
    | DealHands
    | DealBoard
    | DealRun
    | AnswerRunIt
    | Fold
    | Check
    | Call
    | BetOrRaise
    | AllIn
    | Show
    | Muck
    | VoidHand
)
