"""The 169 hold'em starting-hand classes, their card combinations, and how often two classes can
be dealt together (card removal): the strategy space of the short-stack solver.

Class order: pairs AA..22, then suited, then offsuit hands, each high card first (AKs, AQs, ...).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np
import numpy.typing as npt

RANKS = "23456789TJQKA"


def _names() -> tuple[str, ...]:
    pairs = [RANKS[r] * 2 for r in range(12, -1, -1)]
    suited = [RANKS[h] + RANKS[k] + "s" for h in range(12, -1, -1) for k in range(h - 1, -1, -1)]
    offsuit = [name[:2] + "o" for name in suited]
    return (*pairs, *suited, *offsuit)


CLASSES: tuple[str, ...] = _names()
INDEX: dict[str, int] = {name: i for i, name in enumerate(CLASSES)}
COUNT = len(CLASSES)  # 169


def class_of(hole: Sequence[int]) -> str:
    """``"AKs"``, ``"T9o"``, ``"77"``: the class of two hold'em hole cards (0..51 each)."""
    if len(hole) != 2 or hole[0] == hole[1] or not all(0 <= c <= 51 for c in hole):
        raise ValueError(f"two distinct cards 0..51 make a hold'em hand, not {list(hole)}")
    a, b = sorted(hole, reverse=True)
    hi, lo = a >> 2, b >> 2
    if hi == lo:
        return RANKS[hi] * 2
    return RANKS[hi] + RANKS[lo] + ("s" if a & 3 == b & 3 else "o")


def class_index(hole: Sequence[int]) -> int:
    return INDEX[class_of(hole)]


@cache
def combos(name: str) -> tuple[tuple[int, int], ...]:
    """Every two-card combination of the class (6 for a pair, 4 suited, 12 offsuit)."""
    if name not in INDEX:
        raise ValueError(f"not a hold'em starting-hand class: {name!r}")
    hi, lo = RANKS.index(name[0]), RANKS.index(name[1])
    out: list[tuple[int, int]] = []
    for s1 in range(4):
        for s2 in range(4):
            a, b = hi * 4 + s1, lo * 4 + s2
            if name[0] == name[1]:
                if s1 < s2:
                    out.append((a, b))
            elif (s1 == s2) == name.endswith("s"):
                out.append((a, b))
    return tuple(out)


@cache
def combo_counts() -> npt.NDArray[np.float64]:
    """``[169]``: how many combinations each class has (sums to 1,326)."""
    return np.array([len(combos(name)) for name in CLASSES], dtype=np.float64)


@cache
def pair_weights() -> npt.NDArray[np.float64]:
    """``[169, 169]``: the number of ways class i and class j are dealt to two players at once
    (combination pairs sharing no card): the prior of a showdown between them."""
    masks = [
        np.array([(1 << a) | (1 << b) for a, b in combos(n)], dtype=np.uint64) for n in CLASSES
    ]
    out = np.zeros((COUNT, COUNT))
    for i, mi in enumerate(masks):
        for j in range(i, COUNT):
            disjoint = (mi[:, None] & masks[j][None, :]) == 0
            out[i, j] = out[j, i] = float(disjoint.sum())
    return out
