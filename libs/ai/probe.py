"""A level's policy, exposed: what it would do at a decision with each of the 1,326 hold'em
holdings in place of its own cards (for Local Best Response, ``lbr.py``).

``policy(view, level, seed)`` asks ``decide`` once per holding that the board leaves possible,
on the same view with only the hole cards changed and the same seed, and returns ``[1326, 3]``
shares of fold, check-or-call and bet-or-raise (a holding the board blocks is all zeros). A
level's mixed choices are drawn from its seeded generator, so one query per holding is one draw
of its mixed strategy: unbiased, and the same draw the level makes at the table with that seed,
so the holding it really holds always keeps its weight. ``HOLDINGS`` lists the holdings (two
card indices each, the higher first).
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

import numpy as np
import numpy.typing as npt

from libs.poker.cards import Card
from libs.poker.config import Variant
from libs.poker.events import ActionKind

from .policy import DEFAULT_BUDGET, Level, decide
from .view import SeatView

Floats = npt.NDArray[np.float64]
HOLDINGS: npt.NDArray[np.int64] = np.array(
    [(b, a) for a, b in combinations(range(52), 2)], dtype=np.int64
)
MASKS: npt.NDArray[np.uint64] = (np.uint64(1) << HOLDINGS[:, 0].astype(np.uint64)) | (
    np.uint64(1) << HOLDINGS[:, 1].astype(np.uint64)
)
FOLD, PASSIVE, AGGRESSIVE = 0, 1, 2


def kind_index(kind: ActionKind) -> int:
    if kind is ActionKind.FOLD:
        return FOLD
    if kind in (ActionKind.CHECK, ActionKind.CALL):
        return PASSIVE
    return AGGRESSIVE


def possible(dead: tuple[int, ...]) -> npt.NDArray[np.bool_]:
    """``[1326]``: the holdings that share no card with ``dead``."""
    mask = np.uint64(0)
    for c in dead:
        mask |= np.uint64(1) << np.uint64(c)
    return np.asarray((MASKS & mask) == 0)


def policy(
    view: SeatView,
    level: Level,
    seed: int,
    budget: float = DEFAULT_BUDGET,
    wanted: npt.NDArray[np.bool_] | None = None,
) -> Floats:
    """``[1326, 3]`` action shares per holding (fold, passive, aggressive) at this decision;
    only the holdings ``wanted`` (default: all the board leaves) are asked."""
    if view.variant is not Variant.HOLDEM:
        raise ValueError(f"the policy is exposed per hold'em holding, not for {view.variant}")
    asked = possible(tuple(int(c) for c in view.board))
    if wanted is not None:
        asked &= wanted
    out = np.zeros((len(HOLDINGS), 3))
    for i in np.flatnonzero(asked):
        hole = (Card(int(HOLDINGS[i, 0])), Card(int(HOLDINGS[i, 1])))
        decision = decide(replace(view, hole=hole), level, seed, budget)
        out[i, kind_index(decision.kind)] = 1.0
    return out
