"""What is wrong with a request to the ai service: ``InvalidRequest`` and its stable codes.

Codes the rules engine declares already (a card that is not one, a card twice, a seat that is
not to act) are libs.poker.errors's; the request's own are declared here, once.
"""

from __future__ import annotations

from libs.errors import InvalidArgument

AMOUNT_OUT_OF_RANGE = "AMOUNT_OUT_OF_RANGE"
BAD_ACTION = "BAD_ACTION"
BAD_BOARD = "BAD_BOARD"
BAD_DIFFICULTY = "BAD_DIFFICULTY"
BAD_HOLE_CARDS = "BAD_HOLE_CARDS"
BAD_LEGAL_ACTIONS = "BAD_LEGAL_ACTIONS"
BAD_SEATS = "BAD_SEATS"
BAD_STREET = "BAD_STREET"
BAD_STRUCTURE = "BAD_STRUCTURE"
BAD_VARIANT = "BAD_VARIANT"
DUPLICATE_SEAT = "DUPLICATE_SEAT"
MISSING_FIELD = "MISSING_FIELD"


class InvalidRequest(InvalidArgument, ValueError):
    """A request that does not describe a consistent seat view (INVALID_ARGUMENT)."""
