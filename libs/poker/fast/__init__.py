"""Fast hand evaluation: lookup tables generated from the reference evaluator, a per-call
``FastEvaluator`` (the engine's ``HandEvaluator``) and batch functions over numpy arrays."""

from .evaluator import (
    FastEvaluator,
    draw_distinct,
    high_batch,
    holdem_batch,
    holdem_values,
    omaha_high_batch,
    omaha_low_batch,
)
from .tables import NO_LOW, combination_indices, tables

__all__ = [
    "NO_LOW",
    "FastEvaluator",
    "combination_indices",
    "draw_distinct",
    "high_batch",
    "holdem_batch",
    "holdem_values",
    "omaha_high_batch",
    "omaha_low_batch",
    "tables",
]
