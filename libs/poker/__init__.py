"""The rules engine: pure, deterministic, typed. No I/O, no asyncio, no protobuf.

A hand is driven by commands (``DealHoleCards``, ``BetOrRaise``, ``Show`` ...) through ``decide``,
which returns events; ``evolve`` folds events into a ``HandState``. ``legal_actions`` is what the
player to act may do. Positions are numbered from the first seat left of the button (0) to the
button (n-1); the table layer maps seats to positions.
"""

from .cards import DECK, Card, format_cards, parse_cards
from .commands import (
    AllIn,
    BetOrRaise,
    Call,
    Check,
    Command,
    DealBoard,
    DealHands,
    DealHoleCards,
    Fold,
    Muck,
    Show,
    VoidHand,
)
from .config import (
    NO_RAKE,
    BettingStructure,
    HandConfig,
    RakeRule,
    Variant,
    fixed_limit_blinds,
    position_blinds,
)
from .engine import decide, new_hand, start_hand, step
from .errors import IllegalAction, InvalidCommand, PokerError
from .evaluation import DEFAULT_EVALUATOR, HandEvaluator, ReferenceEvaluator
from .events import (
    ActionKind,
    ActionTaken,
    AntePosted,
    BettingRoundEnded,
    BlindPosted,
    DeadBlindPosted,
    Event,
    HandEnded,
    HandMucked,
    HandShown,
    HandStarted,
    HandVoided,
    HoleCardsDealt,
    PotAwarded,
    RakeTaken,
    StreetDealt,
    UncalledBetReturned,
)
from .evolve import evolve, replay
from .legal import LegalActions, ShowdownTurn, legal_actions, showdown_turn
from .state import HandState, Phase

__all__ = [
    "DECK",
    "DEFAULT_EVALUATOR",
    "NO_RAKE",
    "ActionKind",
    "ActionTaken",
    "AllIn",
    "AntePosted",
    "BetOrRaise",
    "BettingRoundEnded",
    "BettingStructure",
    "BlindPosted",
    "Call",
    "Card",
    "Check",
    "Command",
    "DeadBlindPosted",
    "DealBoard",
    "DealHands",
    "DealHoleCards",
    "Event",
    "Fold",
    "HandConfig",
    "HandEnded",
    "HandEvaluator",
    "HandMucked",
    "HandShown",
    "HandStarted",
    "HandState",
    "HandVoided",
    "HoleCardsDealt",
    "IllegalAction",
    "InvalidCommand",
    "LegalActions",
    "Muck",
    "Phase",
    "PokerError",
    "PotAwarded",
    "RakeRule",
    "RakeTaken",
    "ReferenceEvaluator",
    "Show",
    "ShowdownTurn",
    "StreetDealt",
    "UncalledBetReturned",
    "Variant",
    "VoidHand",
    "decide",
    "evolve",
    "fixed_limit_blinds",
    "format_cards",
    "legal_actions",
    "new_hand",
    "parse_cards",
    "position_blinds",
    "replay",
    "showdown_turn",
    "start_hand",
    "step",
]
