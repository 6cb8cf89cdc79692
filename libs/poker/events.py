"""Hand events: small frozen records. Every state change of a hand is one of these.

``evolve`` (in ``state``) folds them into a ``HandState``; replaying the same events always rebuilds
the same state. Positions are hand positions (0 = first seat left of the button).
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from enum import StrEnum
from typing import Any, TypeVar, dataclass_transform

from .cards import Card
from .config import HandConfig

_T = TypeVar("_T")


@dataclass_transform(frozen_default=True)
def record(cls: type[_T]) -> type[_T]:
    """A frozen dataclass whose ``__init__`` fills the instance dict directly.

    The ``__init__`` that ``dataclass(frozen=True)`` writes sets each field through
    ``object.__setattr__``, which makes building an event about twice as slow; events are built
    on the engine's hot path (some thirty per hand). Everything else (immutability, equality,
    hashing, ``fields``, pickling) is the plain frozen dataclass.
    """
    made: Any = dataclass(frozen=True)(cls)
    names = [f.name for f in fields(made)]
    defaults = {f"_default_{f.name}": f.default for f in fields(made) if f.default is not MISSING}
    params = ", ".join(
        f"{name}=_default_{name}" if f"_default_{name}" in defaults else name for name in names
    )
    lines = [f"def __init__(self, {params}):", "    d = self.__dict__"]
    lines += [f"    d[{name!r}] = {name}" for name in names]
    namespace: dict[str, Any] = dict(defaults)
    exec("\n".join(lines), namespace)  # the same technique dataclasses itself uses
    init = namespace["__init__"]
    init.__qualname__ = f"{made.__qualname__}.__init__"
    made.__init__ = init
    return made  # type: ignore[no-any-return]


class ActionKind(StrEnum):
    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BET = "bet"
    RAISE = "raise"


@record
class HandStarted:
    config: HandConfig
    stacks: tuple[int, ...]
    hand_id: str = ""


@record
class AntePosted:
    player: int
    amount: int


@record
class DeadBlindPosted:
    """Dead money before the deal (a missed small blind): it goes to the main pot and does not
    count toward the player's bet."""

    player: int
    amount: int


@record
class BlindPosted:
    """A blind or straddle; ``amount`` may be short of ``nominal`` when the player is all-in."""

    player: int
    amount: int
    nominal: int


@record
class HoleCardsDealt:
    player: int
    cards: tuple[Card, ...]


@record
class ActionTaken:
    """``amount`` is what the player added now; ``to`` is their total bet on this street after."""

    player: int
    kind: ActionKind
    amount: int
    to: int
    all_in: bool


@record
class UncalledBetReturned:
    player: int
    amount: int


@record
class BettingRoundEnded:
    """The round on ``street`` is over; every bet went into the pot, which now holds ``pot``."""

    street: int
    pot: int


@record
class StreetDealt:
    """Board cards for ``street`` (1 flop, 2 turn, 3 river), after burning ``burn`` if given."""

    street: int
    cards: tuple[Card, ...]
    burn: Card | None = None


@record
class RunItOffered:
    """No betting is left before the river: ``players`` may agree to run the rest of the board
    up to ``most`` times (the table offers it and the deck holds that many runs)."""

    players: tuple[int, ...]
    most: int


@record
class RunItAnswered:
    """``player`` agrees to run the board up to ``times`` times (1: once, i.e. declines)."""

    player: int
    times: int


@record
class RunItDecided:
    """Everyone asked answered: the rest of the board is dealt ``runs`` times (the smallest
    answer)."""

    runs: int


@record
class RunDealt:
    """Run ``run`` (2, 3) of the board: the cards after the common ones (``cards``, the street
    order) and the burn before each of its streets (``burns``, hidden from the public)."""

    run: int
    cards: tuple[Card, ...]
    burns: tuple[Card, ...] = ()


@record
class HandShown:
    player: int
    cards: tuple[Card, ...]


@record
class HandMucked:
    player: int


@record
class RakeTaken:
    amount: int


@record
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
    run: int = 0  # which run of the board decided it (0: the first, or the only one)


@record
class HandEnded:
    stacks: tuple[int, ...]


@record
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
    | RunItOffered
    | RunItAnswered
    | RunItDecided
    | RunDealt
    | HandShown
    | HandMucked
    | RakeTaken
    | PotAwarded
    | HandEnded
    | HandVoided
)
