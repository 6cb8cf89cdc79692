"""Hand evaluation as the engine sees it: the ``HandEvaluator`` protocol and the evaluator used
when none is given.

The values are those of ``libs.poker.hand_values`` (high hands, Omaha high, Omaha 8-or-better low):
``ReferenceEvaluator`` computes them plainly; ``DEFAULT_EVALUATOR`` is the table-driven
``libs.poker.fast.FastEvaluator``, which returns exactly the reference's values (tests/evaluator
prove it). Imports run one way: hand_values <- fast <- evaluation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from .fast import FastEvaluator
from .hand_values import ReferenceEvaluator

__all__ = ["DEFAULT_EVALUATOR", "HandEvaluator", "ReferenceEvaluator"]


class HandEvaluator(Protocol):
    """What the engine needs from an evaluator."""

    def high(self, cards: Sequence[int]) -> int:
        """Best five-card high value among 5 to 7 cards (any combination)."""
        ...

    def omaha_high(self, hole: Sequence[int], board: Sequence[int]) -> int:
        """Best high value using exactly two hole cards and exactly three board cards."""
        ...

    def omaha_low(self, hole: Sequence[int], board: Sequence[int]) -> int | None:
        """Best 8-or-better low (exactly 2 + 3), or None when there is no qualifying low."""
        ...


DEFAULT_EVALUATOR: HandEvaluator = FastEvaluator()
