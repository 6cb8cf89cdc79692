"""Monte Carlo equity against weighted ranges (the Hard and Normal levels): ``equity_vs_ranges``
samples each opponent's holding from its weights over the candidates (``ranges``), completes the
board and reads everyone's share of the pot from ``showdown_shares``, in chunks, until its sample
cap or its deadline.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from libs.poker.equity import showdown_shares

from .ranges import Candidates
from .strength import Floats, complete_boards, remaining_deck
from .view import SeatView


@dataclass(frozen=True)
class EquityEstimate:
    """My share of the pot on each sample and which candidate each opponent held there."""

    shares: Floats  # [S]
    picks: dict[int, npt.NDArray[np.intp]]  # opponent -> candidate index per sample [S]

    @property
    def samples(self) -> int:
        return len(self.shares)

    @property
    def equity(self) -> float:
        return float(self.shares.mean()) if len(self.shares) else 0.5


def equity_vs_ranges(
    view: SeatView,
    cands: Candidates,
    weights: dict[int, Floats],
    rng: np.random.Generator,
    max_samples: int,
    deadline: float,
    clock: Callable[[], float],
    chunk: int = 400,
) -> EquityEstimate:
    """Monte Carlo share of the pot against every live opponent's weighted range, in chunks of
    ``chunk`` samples until ``max_samples`` or until the next chunk would end past
    ``deadline`` (then a smaller last chunk, if at least 50 samples fit). The first chunk is
    always run: pass a small ``chunk`` when little time is left."""
    variant = view.variant
    hole = np.array([view.hole], dtype=np.uint8)
    deck = remaining_deck([*view.hole, *view.board])
    opponents = list(weights)
    shares: list[Floats] = []
    kept: dict[int, list[npt.NDArray[np.intp]]] = {p: [] for p in opponents}
    cdfs = [np.cumsum(weights[p]) for p in opponents]
    top = len(cands) - 1

    def draw(j: int, size: int) -> npt.NDArray[np.intp]:
        cdf = cdfs[j]
        picked = np.searchsorted(cdf, rng.random(size) * cdf[-1], side="right")
        return np.asarray(np.minimum(picked, top), dtype=np.intp)

    done = 0
    size = chunk
    while done < max_samples:
        n = min(size, max_samples - done)
        started = clock()
        picks = [draw(j, n) for j in range(len(opponents))]
        keep = np.ones(n, dtype=bool)
        for j in range(1, len(picks)):
            for _ in range(4):  # redraw holdings that share a card with an earlier opponent's
                used = np.zeros(n, dtype=np.uint64)
                for i in range(j):
                    used |= cands.masks[picks[i]]
                clash = np.flatnonzero((cands.masks[picks[j]] & used) != 0)
                if len(clash) == 0:
                    break
                picks[j][clash] = draw(j, len(clash))
            used = np.zeros(n, dtype=np.uint64)
            for i in range(j):
                used |= cands.masks[picks[i]]
            keep &= (cands.masks[picks[j]] & used) == 0
        rows = np.flatnonzero(keep)
        if len(rows):
            theirs = [np.ascontiguousarray(cands.holes[pick[rows]]) for pick in picks]
            avoid = np.hstack(theirs)
            boards = complete_boards(rng, view.board, deck, len(rows), avoid)
            shares.append(showdown_shares(variant, [hole, *theirs], boards)[0])
            for p, pick in zip(opponents, picks, strict=True):
                kept[p].append(pick[rows])
            done += len(rows)
        if len(rows) == 0:
            break
        now = clock()
        per_sample = (now - started) / n
        size = chunk
        if now + per_sample * min(chunk, max_samples - done) > deadline:
            # The next whole chunk would end late: a smaller one if it still fits.
            size = int(min(chunk, (deadline - now) / per_sample))
            if size < min(50, max_samples - done):
                break
    return EquityEstimate(
        np.concatenate(shares) if shares else np.zeros(0),
        {p: np.concatenate(k) if k else np.zeros(0, dtype=np.intp) for p, k in kept.items()},
    )
