"""Choosing an action: one entry point over every level and baseline.

``decide(view, level, seed, budget)`` answers for the seat to act with a legal action
(``decision.legal`` guarantees it), reproducibly for a seed, within ``budget`` seconds.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from enum import StrEnum

from .baselines import always_fold, calling_station, push_fold_player, random_player
from .decision import Decision
from .easy import easy
from .hard import HardSettings, hard
from .normal import normal
from .preflop import warm_up as _warm_preflop
from .ranges import warm_up as _warm_ranges
from .view import SeatView

DEFAULT_BUDGET = 0.2  # seconds
_HARD = HardSettings()


class Level(StrEnum):
    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"
    CALL = "call"  # calling station (baseline)
    RANDOM = "random"  # uniform over legal action kinds (baseline)
    FOLD = "fold"  # check or fold (floor)
    PUSHFOLD = "pushfold"  # heads-up push-or-fold equilibrium (baseline for short stacks)

    @property
    def is_baseline(self) -> bool:
        return self in (Level.CALL, Level.RANDOM, Level.FOLD, Level.PUSHFOLD)


def decide(
    view: SeatView,
    level: Level,
    seed: int,
    budget: float = DEFAULT_BUDGET,
    clock: Callable[[], float] = time.perf_counter,
    hard_settings: HardSettings = _HARD,
) -> Decision:
    """The action of ``level`` for the seat to act, within ``budget`` seconds."""
    if level is Level.HARD:
        return hard(view, seed, budget, clock, hard_settings)
    if level is Level.NORMAL:
        return normal(view, seed)
    if level is Level.EASY:
        return easy(view, seed)
    if level is Level.CALL:
        return calling_station(view)
    if level is Level.RANDOM:
        return random_player(view, random.Random(seed))
    if level is Level.PUSHFOLD:
        return push_fold_player(view, random.Random(seed))
    return always_fold(view)


def warm_up() -> None:
    """Build every cached table (starting-hand percentiles, candidate pools, evaluator tables)
    so the first decision is as fast as the others."""
    _warm_preflop()
    _warm_ranges()
    from libs.poker.fast import tables
    from libs.poker.fast.tables import omaha_tables

    tables()
    omaha_tables()
