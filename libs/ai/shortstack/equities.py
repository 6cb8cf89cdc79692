"""All-in equity of every hold'em starting-hand class against every other, preflop to the river:
the payoff table of the short-stack solver.

``heads_up_equities()`` reads the table kept beside this module (``hu_equity.npy``: ``[169, 169]``
uint16, entry ``[i, j]`` = class i's share of the pot against class j, times 65,535, ties
counting half). It was made by ``estimate`` with the seed and sample count recorded in
``GENERATED_WITH`` (``python -m libs.cli.shortstack equities`` makes it again, a few minutes):
for each pair of classes, combinations dealt uniformly among those that share no card and
boards uniformly from the rest, valued by libs.poker's evaluator. Each entry is within about
0.35 % (one standard error) of the exact figure; the tests check several against exact
enumeration.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

import numpy as np
import numpy.typing as npt

from libs.ai.shortstack.hands import CLASSES, COUNT, combos
from libs.poker.fast.evaluator import draw_distinct, holdem_values

DATA = "hu_equity.npy"
GENERATED_WITH = {"samples": 20_000, "seed": 20261203}
SCALE = 65_535


def _pairs(i: int, j: int) -> npt.NDArray[np.int64]:
    """``[K, 4]``: every disjoint (combination of class i, combination of class j)."""
    rows = [(*a, *b) for a in combos(CLASSES[i]) for b in combos(CLASSES[j]) if not set(a) & set(b)]
    return np.array(rows, dtype=np.int64)


def _boards(rng: np.random.Generator, used: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Five cards per row, uniformly among the 48 that row's four hole cards leave."""
    drawn = draw_distinct(rng, np.arange(48, dtype=np.int64), len(used), 5).astype(np.int64)
    ordered = np.sort(used, axis=1)
    for column in range(4):  # index k among the 48 -> the k-th card not used
        drawn += drawn >= ordered[:, column : column + 1]
    return drawn


def pair_equity(i: int, j: int, samples: int, rng: np.random.Generator) -> float:
    """Class i's all-in equity against class j, estimated from ``samples`` deals."""
    pairs = _pairs(i, j)
    dealt = pairs[rng.integers(0, len(pairs), size=samples)]
    boards = _boards(rng, dealt)
    values = holdem_values([dealt[:, :2], dealt[:, 2:]], boards)
    return float(np.mean((values[0] > values[1]) + 0.5 * (values[0] == values[1])))


def estimate(samples: int, seed: int) -> npt.NDArray[np.float64]:
    """The whole ``[169, 169]`` table (``[i, j] + [j, i] = 1``), one row's deals valued at once."""
    rng = np.random.default_rng(seed)
    out = np.full((COUNT, COUNT), 0.5)  # a class against itself: 0.5 by symmetry
    for i in range(COUNT - 1):
        columns = range(i + 1, COUNT)
        dealt = np.vstack(
            [(p := _pairs(i, j))[rng.integers(0, len(p), size=samples)] for j in columns]
        )
        values = holdem_values([dealt[:, :2], dealt[:, 2:]], _boards(rng, dealt))
        shares = (values[0] > values[1]) + 0.5 * (values[0] == values[1])
        out[i, i + 1 :] = shares.reshape(len(columns), samples).mean(axis=1)
        out[i + 1 :, i] = 1.0 - out[i, i + 1 :]
    return out


@cache
def heads_up_equities() -> npt.NDArray[np.float64]:
    """The kept table as shares of the pot (``[169, 169]`` floats)."""
    with resources.files(__package__).joinpath(DATA).open("rb") as stream:
        raw = np.load(stream)
    if raw.shape != (COUNT, COUNT) or raw.dtype != np.uint16:
        raise ValueError(f"{DATA} is not a 169x169 uint16 table: {raw.shape} {raw.dtype}")
    table: npt.NDArray[np.float64] = raw.astype(np.float64) / SCALE
    return table
