"""Starting-hand strength: hold'em equities and percentiles, the Chen formula, and an Omaha /
Omaha hi-lo point count with its percentile among random hands.

``HOLDEM_EQUITY`` is each of the 169 hold'em starting-hand classes' equity against one random
hand, estimated once with ``libs.poker.equity`` (60,000 Monte Carlo runouts per class, so within
about 0.4 %) and kept here as data: ``holdem_class_equity`` recomputes one for the tests. The
Omaha count is a heuristic in the spirit of the usual ones (pairs, suitedness with the ace,
connectedness, danglers; for hi-lo the A2 / A3 combinations and low cards that scoop potential
rests on); its percentile is read from the counts of a fixed sample of random hands.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from libs.poker.config import Variant
from libs.poker.equity import equity

RANKS = "23456789TJQKA"

# fmt: off
HOLDEM_EQUITY: dict[str, float] = {
    "AA": 0.8531, "AKs": 0.6673, "AKo": 0.6543, "AQs": 0.6612, "AQo": 0.6424, "AJs": 0.6568,
    "AJo": 0.6349, "ATs": 0.6469, "ATo": 0.6263, "A9s": 0.6266, "A9o": 0.6046, "A8s": 0.6226,
    "A8o": 0.5991, "A7s": 0.6085, "A7o": 0.5864, "A6s": 0.5983, "A6o": 0.5778, "A5s": 0.5977,
    "A5o": 0.5772, "A4s": 0.5898, "A4o": 0.5695, "A3s": 0.5849, "A3o": 0.5594, "A2s": 0.5700,
    "A2o": 0.5480, "KK": 0.8227, "KQs": 0.6319, "KQo": 0.6157, "KJs": 0.6241, "KJo": 0.6029,
    "KTs": 0.6130, "KTo": 0.6007, "K9s": 0.6011, "K9o": 0.5780, "K8s": 0.5845, "K8o": 0.5623,
    "K7s": 0.5741, "K7o": 0.5568, "K6s": 0.5672, "K6o": 0.5418, "K5s": 0.5603, "K5o": 0.5332,
    "K4s": 0.5480, "K4o": 0.5231, "K3s": 0.5389, "K3o": 0.5118, "K2s": 0.5322, "K2o": 0.5059,
    "QQ": 0.7986, "QJs": 0.6002, "QJo": 0.5808, "QTs": 0.5912, "QTo": 0.5757, "Q9s": 0.5756,
    "Q9o": 0.5585, "Q8s": 0.5587, "Q8o": 0.5367, "Q7s": 0.5392, "Q7o": 0.5144, "Q6s": 0.5326,
    "Q6o": 0.5084, "Q5s": 0.5297, "Q5o": 0.4987, "Q4s": 0.5179, "Q4o": 0.4922, "Q3s": 0.5103,
    "Q3o": 0.4811, "Q2s": 0.5033, "Q2o": 0.4747, "JJ": 0.7718, "JTs": 0.5784, "JTo": 0.5522,
    "J9s": 0.5589, "J9o": 0.5312, "J8s": 0.5407, "J8o": 0.5138, "J7s": 0.5248, "J7o": 0.4935,
    "J6s": 0.5059, "J6o": 0.4746, "J5s": 0.4994, "J5o": 0.4729, "J4s": 0.4915, "J4o": 0.4613,
    "J3s": 0.4820, "J3o": 0.4535, "J2s": 0.4740, "J2o": 0.4431, "TT": 0.7486, "T9s": 0.5403,
    "T9o": 0.5141, "T8s": 0.5225, "T8o": 0.4960, "T7s": 0.5052, "T7o": 0.4802, "T6s": 0.4920,
    "T6o": 0.4623, "T5s": 0.4733, "T5o": 0.4406, "T4s": 0.4625, "T4o": 0.4325, "T3s": 0.4592,
    "T3o": 0.4237, "T2s": 0.4458, "T2o": 0.4204, "99": 0.7210, "98s": 0.5066, "98o": 0.4802,
    "97s": 0.4940, "97o": 0.4648, "96s": 0.4750, "96o": 0.4469, "95s": 0.4564, "95o": 0.4275,
    "94s": 0.4433, "94o": 0.4058, "93s": 0.4307, "93o": 0.3972, "92s": 0.4244, "92o": 0.3914,
    "88": 0.6924, "87s": 0.4770, "87o": 0.4513, "86s": 0.4589, "86o": 0.4264, "85s": 0.4456,
    "85o": 0.4157, "84s": 0.4269, "84o": 0.3952, "83s": 0.4047, "83o": 0.3735, "82s": 0.4042,
    "82o": 0.3695, "77": 0.6613, "76s": 0.4550, "76o": 0.4189, "75s": 0.4350, "75o": 0.4046,
    "74s": 0.4183, "74o": 0.3825, "73s": 0.4042, "73o": 0.3630, "72s": 0.3827, "72o": 0.3442,
    "66": 0.6357, "65s": 0.4313, "65o": 0.3989, "64s": 0.4154, "64o": 0.3796, "63s": 0.3952,
    "63o": 0.3609, "62s": 0.3736, "62o": 0.3422, "55": 0.6031, "54s": 0.4129, "54o": 0.3803,
    "53s": 0.3944, "53o": 0.3598, "52s": 0.3802, "52o": 0.3406, "44": 0.5683, "43s": 0.3851,
    "43o": 0.3543, "42s": 0.3715, "42o": 0.3328, "33": 0.5380, "32s": 0.3573, "32o": 0.3228,
    "22": 0.5009,
}
# fmt: on


def holdem_class(hole: Sequence[int]) -> str:
    """``"AKs"``, ``"T9o"``, ``"77"``: the class of two hold'em hole cards."""
    a, b = sorted(hole, reverse=True)
    hi, lo = a >> 2, b >> 2
    if hi == lo:
        return RANKS[hi] * 2
    return RANKS[hi] + RANKS[lo] + ("s" if a & 3 == b & 3 else "o")


def _combos(name: str) -> int:
    return 6 if len(name) == 2 else 4 if name.endswith("s") else 12


@cache
def _holdem_percentiles() -> dict[str, float]:
    """Share of the 1,326 combinations each class beats by equity (ties count half)."""
    ordered = sorted(HOLDEM_EQUITY, key=HOLDEM_EQUITY.__getitem__)
    out: dict[str, float] = {}
    below = 0
    for name in ordered:
        n = _combos(name)
        out[name] = (below + n / 2) / 1326
        below += n
    return out


def holdem_percentile(hole: Sequence[int]) -> float:
    """0 (32o) .. 1 (AA): where these hole cards rank among all starting hands."""
    return _holdem_percentiles()[holdem_class(hole)]


def holdem_class_equity(name: str, samples: int = 60_000, seed: int = 0) -> float:
    """Recompute one entry of ``HOLDEM_EQUITY`` (the tests check a few)."""
    hi, lo = RANKS.index(name[0]), RANKS.index(name[1])
    second = 0 if name.endswith("s") else 1
    hole = [hi * 4, lo * 4 + second]
    result = equity(Variant.HOLDEM, [hole, []], max_samples=samples, seed=seed)
    return result.players[0].equity


def chen_score(hole: Sequence[int]) -> float:
    """Bill Chen's preflop points for two hold'em cards (-1 for 32o .. 20 for AA)."""
    a, b = sorted(hole, reverse=True)
    hi, lo = a >> 2, b >> 2
    top = {12: 10.0, 11: 8.0, 10: 7.0, 9: 6.0}.get(hi, (hi + 2) / 2)
    if hi == lo:
        return float(max(5.0, top * 2))
    score = top
    if a & 3 == b & 3:
        score += 2
    gap = hi - lo - 1
    score -= (0, 1, 2, 4)[gap] if gap < 4 else 5
    if gap <= 1 and hi < 10:  # both below a queen: straights both ways
        score += 1
    return float(np.ceil(score))


def omaha_score(hole: Sequence[int], hi_lo: bool) -> float:
    """Points for four Omaha hole cards: higher is better (roughly -5 .. 40)."""
    ranks = [c >> 2 for c in hole]
    suits = [c & 3 for c in hole]
    score = sum(ranks) / 4.0  # high cards
    counts = {r: ranks.count(r) for r in set(ranks)}
    for rank, n in counts.items():
        if n == 2:
            pair = 4.0 + rank * 0.5
            score += pair if not hi_lo or rank >= 11 or rank == 12 else pair / 2
        elif n == 3:
            score += 1.0 + rank * 0.2
        elif n == 4:
            score -= 5.0
    for suit in range(4):
        mine = [r for r, s in zip(ranks, suits, strict=True) if s == suit]
        if len(mine) >= 2:
            nut = 2.0 if 12 in mine else max(mine) / 12.0
            score += (2.5 if len(mine) == 2 else 1.5 if len(mine) == 3 else 0.5) + nut
    distinct = sorted(set(ranks) | ({-1} if 12 in ranks else set()))
    connected: set[int] = set()
    for i, low in enumerate(distinct):
        for high in distinct[i + 1 :]:
            gap = high - low
            if 1 <= gap <= 3:
                score += (0, 1.5, 1.0, 0.5)[gap]
                connected.update((low % 13, high % 13))
    for card, rank, suit in zip(hole, ranks, suits, strict=True):
        alone = (
            counts[rank] == 1
            and suits.count(suit) == 1
            and rank not in connected
            and not (rank == 12 and hi_lo)
        )
        if alone and card >= 0:
            score -= 1.5
    if hi_lo:
        lows = {0 if r == 12 else r + 1 for r in ranks if r == 12 or r <= 6}  # A=0, 2=1 .. 8=7
        has_ace = 0 in lows
        if has_ace:
            score += 3.0
            if 1 in lows:
                score += 4.0
            elif 2 in lows:
                score += 2.5
        elif 1 in lows and 2 in lows:
            score += 1.5
        score += 1.0 * min(len(lows), 4)
        score -= 1.0 * sum(1 for r in set(ranks) if 7 <= r <= 10 and counts[r] == 1)
    return score


@cache
def omaha_pool(hi_lo: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A fixed sample of 12,000 random Omaha hands [M, 4] (uint8), their points and each one's
    percentile among them by points: the reference percentiles are read from, and the candidate
    holdings ranges are built of (``libs.ai.ranges``)."""
    rng = np.random.default_rng(20240611 + hi_lo)
    hands = np.argsort(rng.random((12_000, 52)), axis=1)[:, :4].astype(np.uint8)
    scores = np.array([omaha_score(h, hi_lo) for h in hands.tolist()])
    order = np.argsort(scores, kind="stable")
    percentiles = np.empty(len(scores))
    percentiles[order] = (np.arange(len(scores)) + 0.5) / len(scores)
    return hands, scores, percentiles


@cache
def _omaha_scores(hi_lo: bool) -> np.ndarray:
    return np.sort(omaha_pool(hi_lo)[1])


def omaha_percentile(hole: Sequence[int], hi_lo: bool) -> float:
    """0 .. 1: where these four cards' points rank among random Omaha hands."""
    scores = _omaha_scores(hi_lo)
    value = omaha_score(hole, hi_lo)
    below = np.searchsorted(scores, value, side="left")
    upto = np.searchsorted(scores, value, side="right")
    return float((below + upto) / 2 / len(scores))


def preflop_percentile(variant: Variant, hole: Sequence[int]) -> float:
    """Starting-hand percentile for any variant (0 worst .. 1 best)."""
    if variant is Variant.HOLDEM:
        return holdem_percentile(hole)
    return omaha_percentile(hole, variant is Variant.OMAHA_HI_LO)


def warm_up() -> None:
    """Build the cached tables now rather than on the first decision."""
    _holdem_percentiles()
    _omaha_scores(False)
    _omaha_scores(True)
