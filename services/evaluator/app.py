"""Evaluator use cases (to come): rank hands with the engine's evaluator (libs/poker), split pots
at showdown, estimate equity by enumeration or Monte Carlo within a sample/time budget.

Not implemented in this release: every EvaluatorService method answers UNIMPLEMENTED.
"""

from __future__ import annotations

#: Why the methods answer UNIMPLEMENTED, for the status message.
NOT_YET = "it arrives with the hand evaluator in libs/poker (a later issue)"
