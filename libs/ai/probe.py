"""A level's policy, exposed: what it would do at a decision with each of the 1,326 hold'em
holdings in place of its own cards (for Local Best Response, ``lbr.py``).

``policy(view, level, seed)`` asks ``decide`` once per holding that the board leaves possible,
on the same view with only the hole cards changed and the same seed, and returns ``[1326, 3]``
shares of fold, check-or-call and bet-or-raise (a holding the board blocks is all zeros). A
level's mixed choices are drawn from its seeded generator, so one query per holding is one draw
of its mixed strategy, and with the seed the level played its holding with, exactly what it did
(the tests check that). Whoever must not know the level's coins (Local Best Response) asks with
a seed of its own, and ``draws`` > 1 averages several draws. ``HOLDINGS`` lists the holdings
(two card indices each, the higher first).

Hard, Easy and Normal are asked once for all the holdings (``hard.hard_policy``: one shared
reading, about the cost of one decision; ``easy.easy_policy``; ``normal.normal_policy``), each
exactly what the level decides holding by holding; the baselines once per holding. With a
budget too small for Hard to sample, Hard too is asked per holding (it then answers as Easy
does).
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

import numpy as np
import numpy.typing as npt

from libs.poker.cards import Card
from libs.poker.config import Variant
from libs.poker.events import ActionKind

from .easy import easy_policy
from .hard import SAMPLING_NEEDS, hard_policy
from .normal import normal_policy
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


def draw_seed(seed: int, draw: int) -> int:
    """The seed of a policy's ``draw``-th query (the 0th is ``seed`` itself)."""
    if draw == 0:
        return seed
    x = (seed ^ (draw * 0x9E3779B97F4A7C15)) * 0xBF58476D1CE4E5B9 & 0xFFFFFFFFFFFFFFFF
    return (x ^ (x >> 31)) or 1


def policy(
    view: SeatView,
    level: Level,
    seed: int,
    budget: float = DEFAULT_BUDGET,
    wanted: npt.NDArray[np.bool_] | None = None,
    draws: int = 1,
) -> Floats:
    """``[1326, 3]`` action shares per holding (fold, passive, aggressive) at this decision;
    only the holdings ``wanted`` (default: all the board leaves) are asked. With ``draws``
    above 1 each holding is asked that many times (seeds ``draw_seed(seed, j)``) and the
    shares are the mean: a finer estimate of a mixed strategy."""
    if view.variant is not Variant.HOLDEM:
        raise ValueError(f"the policy is exposed per hold'em holding, not for {view.variant}")
    if draws < 1:
        raise ValueError(f"draws must be at least 1, got {draws}")
    asked = possible(tuple(int(c) for c in view.board))
    if wanted is not None:
        asked &= wanted
    out = np.zeros((len(HOLDINGS), 3))
    rows = np.flatnonzero(asked)
    for j in range(draws):
        at = draw_seed(seed, j)
        if level is Level.HARD and budget >= SAMPLING_NEEDS:
            answers = hard_policy(view, at, HOLDINGS[rows])
        elif level is Level.EASY:
            answers = easy_policy(view, at, HOLDINGS[rows])
        elif level is Level.NORMAL:
            answers = normal_policy(view, at, HOLDINGS[rows])
        else:
            answers = [decide(replace(view, hole=_hole(int(i))), level, at, budget) for i in rows]
        for i, decision in zip(rows, answers, strict=True):
            out[i, kind_index(decision.kind)] += 1.0 / draws
    return out


def _hole(i: int) -> tuple[Card, Card]:
    return Card(int(HOLDINGS[i, 0])), Card(int(HOLDINGS[i, 1]))
