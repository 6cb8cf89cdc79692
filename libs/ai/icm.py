"""The independent chip model (Malmuth-Harville): what a tournament stack is worth in prize money,
and the prize-equity price of an all-in call.

``icm(stacks, payouts)``: each player's expected prize when the chance of finishing first is
their share of the chips, and, given who finished above, the chance of finishing next is their
share of the chips left (Harville 1973, applied to poker by Malmuth). Computed over the sets of
players already placed (a dynamic programme over subsets, not the permutations): 2^n states at
most, each placed only down to the last paid place, so a nine-handed final table is a few
thousand steps. Players with no chips (busted) won the prizes below everyone alive, in the order
they were busted in; ``icm`` gives them nothing, as PokerKit's ``calculate_icm`` (the tests'
reference) does, and ``all_in_prices`` pays a player who busts the place below everyone left.

``all_in_prices(stacks, payouts, me, villain, pot, risk)``: my prize equity if I fold, win or
lose an all-in against one player: the tournament counterpart of pot odds. ``call_threshold``
turns it into the equity an all-in call needs in prize terms (a bubble factor above 1 raises it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from math import isfinite

MAX_PLAYERS = 16


def _check(stacks: Sequence[float], payouts: Sequence[float]) -> None:
    if not stacks or len(stacks) > MAX_PLAYERS:
        raise ValueError(f"ICM takes 1 to {MAX_PLAYERS} stacks, not {len(stacks)}")
    if any(not isfinite(s) or s < 0 for s in stacks) or sum(stacks) <= 0:
        raise ValueError(f"stacks are chips, not negative, some above zero: {list(stacks)}")
    if any(not isfinite(p) or p < 0 for p in payouts):
        raise ValueError(f"payouts are prizes, not negative: {list(payouts)}")
    if any(a < b for a, b in pairwise(payouts)):
        raise ValueError(f"payouts are listed first place first, never rising: {list(payouts)}")


def icm(stacks: Sequence[float], payouts: Sequence[float]) -> tuple[float, ...]:
    """Each player's expected prize (same order as ``stacks``); players with 0 chips get 0."""
    _check(stacks, payouts)
    alive = [i for i, s in enumerate(stacks) if s > 0]
    places = min(len(payouts), len(alive))
    total = float(sum(stacks))
    out = [0.0] * len(stacks)
    # layer k: {placed set (bit mask over alive): probability the top k places went to it}
    layer: dict[int, float] = {0: 1.0}
    for place in range(places):
        following: dict[int, float] = {}
        for placed, chance in layer.items():
            left = total - sum(stacks[alive[j]] for j in range(len(alive)) if placed >> j & 1)
            for j, player in enumerate(alive):
                if placed >> j & 1:
                    continue
                p = chance * stacks[player] / left
                out[player] += p * payouts[place]
                key = placed | 1 << j
                following[key] = following.get(key, 0.0) + p
        layer = following
    return tuple(out)


@dataclass(frozen=True)
class AllInPrices:
    """My prize equity after each outcome of an all-in against one player."""

    fold: float  # I give up what I have put in already
    win: float  # I take the pot
    lose: float  # I lose my share (busting, if I covered no more than the villain)

    def needed_equity(self) -> float:
        """The share of showdowns I must win for the all-in to be worth as much as folding."""
        spread = self.win - self.lose
        if spread <= 0:
            return 1.0
        return min(1.0, max(0.0, (self.fold - self.lose) / spread))

    @property
    def bubble_factor(self) -> float:
        """Prize lost by losing over prize gained by winning (1 in a cash game)."""
        gain = self.win - self.fold
        return (self.fold - self.lose) / gain if gain > 0 else float("inf")


def all_in_prices(
    stacks: Sequence[float],
    payouts: Sequence[float],
    me: int,
    villain: int,
    committed: Sequence[float],
) -> AllInPrices:
    """``stacks``: everyone's chips behind now; ``committed``: what each has put in this hand
    (blinds, antes, bets; a folded player's chips stay in the pot). Me against the villain all
    in: the pot is every committed chip plus what the two of us still match; folding gives the
    pot to the villain."""
    n = len(stacks)
    if not (0 <= me < n and 0 <= villain < n) or me == villain or len(committed) != n:
        raise ValueError("two different players among the stacks, and one commitment each")
    mine, theirs = stacks[me] + committed[me], stacks[villain] + committed[villain]
    at_risk = min(mine, theirs)
    pot = sum(committed) - committed[me] - committed[villain] + 2 * at_risk
    fold = list(stacks)
    fold[villain] += sum(committed)
    win, lose = list(stacks), list(stacks)
    win[me] = mine - at_risk + pot
    win[villain] = theirs - at_risk
    lose[me] = mine - at_risk
    lose[villain] = theirs - at_risk + pot
    return AllInPrices(icm(fold, payouts)[me], icm(win, payouts)[me], _after(lose, payouts, me))


def _after(stacks: Sequence[float], payouts: Sequence[float], me: int) -> float:
    """My prize with these stacks; busted, the place below everyone still alive."""
    if stacks[me] > 0:
        return icm(stacks, payouts)[me]
    place = sum(1 for s in stacks if s > 0)  # 0-based: everyone alive finishes above me
    return float(payouts[place]) if place < len(payouts) else 0.0


def call_threshold(
    stacks: Sequence[float],
    payouts: Sequence[float],
    me: int,
    villain: int,
    committed: Sequence[float],
) -> float:
    """The showdown equity an all-in call needs in prize terms."""
    return all_in_prices(stacks, payouts, me, villain, committed).needed_equity()
