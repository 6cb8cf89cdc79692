"""A ``HandEvaluator`` that answers from values worked out elsewhere (the evaluator service).

The engine is synchronous and pure, so it cannot wait for a remote evaluator in the middle of a
showdown. Instead a caller runs the step with ``KnownValues``; the first hand it has no value
for raises ``HandValueNeeded`` (the step is pure, so nothing has changed), the caller fetches
the values of every live hand on that board in one request, and runs the same step again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

Key = tuple[tuple[int, ...], tuple[int, ...]]


class HandValueNeeded(Exception):
    """The engine asked for the value of cards nobody has evaluated yet.

    ``cards`` are the cards as the engine passed them: for a 5-7 card high hand all of them
    (``hole`` and ``board`` empty), for Omaha the ``hole`` and ``board`` separately."""

    def __init__(self, cards: tuple[int, ...], hole: tuple[int, ...], board: tuple[int, ...]):
        super().__init__(f"no value for {cards or (hole, board)}")
        self.cards = cards
        self.hole = hole
        self.board = board

    def board_for(self, holes: Iterable[Sequence[int]]) -> tuple[int, ...]:
        """The board of this showdown: ``board``, or ``cards`` minus whichever of ``holes``
        they contain (a high hand is one player's hole cards plus the board)."""
        if not self.cards:
            return self.board
        for hole in holes:
            if hole and set(hole) <= set(self.cards):
                return tuple(c for c in self.cards if c not in hole)
        raise ValueError(f"none of the hole cards belong to {self.cards}")


def high_key(cards: Sequence[int]) -> tuple[int, ...]:
    return tuple(sorted(cards))


def omaha_key(hole: Sequence[int], board: Sequence[int]) -> Key:
    return tuple(sorted(hole)), tuple(sorted(board))


@dataclass
class KnownValues:
    """High values by card set (hold'em) and Omaha high / low values by (hole, board)."""

    highs: dict[tuple[int, ...], int] = field(default_factory=dict)
    omaha_highs: dict[Key, int] = field(default_factory=dict)
    omaha_lows: dict[Key, int | None] = field(default_factory=dict)

    def high(self, cards: Sequence[int]) -> int:
        try:
            return self.highs[high_key(cards)]
        except KeyError:
            raise HandValueNeeded(tuple(cards), (), ()) from None

    def omaha_high(self, hole: Sequence[int], board: Sequence[int]) -> int:
        try:
            return self.omaha_highs[omaha_key(hole, board)]
        except KeyError:
            raise HandValueNeeded((), tuple(hole), tuple(board)) from None

    def omaha_low(self, hole: Sequence[int], board: Sequence[int]) -> int | None:
        try:
            return self.omaha_lows[omaha_key(hole, board)]
        except KeyError:
            raise HandValueNeeded((), tuple(hole), tuple(board)) from None
