"""The table aggregate (pure): seating, button, blinds, the clock and room limits around
libs.poker's hands. No I/O: the table service loads it, decides, appends and publishes."""

from .aggregate import (
    HandPlan,
    Seat,
    TableState,
    apply,
    can_start_hand,
    decide,
    evolve,
    plan_hand,
    replay,
    step_table,
)
from .config import TableConfig

__all__ = [
    "HandPlan",
    "Seat",
    "TableConfig",
    "TableState",
    "apply",
    "can_start_hand",
    "decide",
    "evolve",
    "plan_hand",
    "replay",
    "step_table",
]
