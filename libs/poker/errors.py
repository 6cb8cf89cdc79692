"""Typed errors with stable codes. Anything illegal raises one of these and changes nothing."""

from __future__ import annotations


class PokerError(Exception):
    """Base class: ``code`` is stable (for clients and status mapping), ``message`` is for people.

    ``kind`` tells a transport how to report it: ``"invalid_argument"`` for malformed input,
    ``"failed_precondition"`` for a well-formed command the current state does not allow.
    """

    kind = "failed_precondition"

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class IllegalAction(PokerError):
    """A command the rules do not allow now (out of turn, wrong amount, after the cap, ...)."""


class InvalidCommand(PokerError):
    """A malformed command (unknown player, wrong number of cards, duplicate card, ...)."""

    kind = "invalid_argument"


# Stable codes.
HAND_OVER = "HAND_OVER"
WRONG_HAND = "WRONG_HAND"
WRONG_PHASE = "WRONG_PHASE"
NOT_YOUR_TURN = "NOT_YOUR_TURN"
UNKNOWN_PLAYER = "UNKNOWN_PLAYER"
CANNOT_FOLD = "CANNOT_FOLD"
CANNOT_CHECK = "CANNOT_CHECK"
NOTHING_TO_CALL = "NOTHING_TO_CALL"
CANNOT_RAISE = "CANNOT_RAISE"
CAP_REACHED = "CAP_REACHED"
ACTION_NOT_REOPENED = "ACTION_NOT_REOPENED"
BELOW_MINIMUM = "BELOW_MINIMUM"
ABOVE_MAXIMUM = "ABOVE_MAXIMUM"
ABOVE_STACK = "ABOVE_STACK"
BAD_CARDS = "BAD_CARDS"
DUPLICATE_CARD = "DUPLICATE_CARD"
ALREADY_DEALT = "ALREADY_DEALT"
CANNOT_MUCK = "CANNOT_MUCK"
WRONG_CARDS_SHOWN = "WRONG_CARDS_SHOWN"
RUN_IT_NOT_OFFERED = "RUN_IT_NOT_OFFERED"
NOT_ASKED = "NOT_ASKED"
BAD_RUN_COUNT = "BAD_RUN_COUNT"
