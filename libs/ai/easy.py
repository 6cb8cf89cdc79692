"""Easy: plays on the immediate strength of its own cards.

Before the flop it scores its hand (hold'em: the Chen formula; Omaha and hi-lo: the point count
of ``preflop``) and raises, calls or folds on fixed thresholds, whatever the position, the stacks
or the price. After the flop it takes its share of the pot against one random hand if the cards
were turned over now (``strength.immediate_strength``: made hands only, no draws, hi-lo shares
included): strong hands bet half the pot or raise, middling ones call any bet, weak ones give up.

In hold'em that strength is exact (every opponent hand counted), so ``easy_policy`` gives Easy's
decision with each of many holdings at once (one table of the board's hands, compared pairwise),
exactly the decisions ``easy`` makes holding by holding.
"""

from __future__ import annotations

import random
from functools import cache
from itertools import combinations

import numpy as np
import numpy.typing as npt

from libs.poker.cards import Card
from libs.poker.config import Variant
from libs.poker.events import ActionKind

from .decision import Decision, legal
from .play import pot_raise_to, preflop_raise_to, voluntarily_raised
from .preflop import chen_score, omaha_percentile
from .strength import card_masks, high_values, immediate_strength
from .view import PREFLOP, SeatView


def _tier(variant: Variant, hole: tuple[Card, ...]) -> int:
    """3 premium, 2 strong, 1 worth calling a raise, 0 worth a limp, -1 trash."""
    if variant is Variant.HOLDEM:
        score = chen_score(hole)
        cuts = (12.0, 10.0, 8.0, 6.0)
    else:
        score = omaha_percentile(hole, variant is Variant.OMAHA_HI_LO)
        cuts = (0.97, 0.9, 0.65, 0.45)
    for tier, cut in zip((3, 2, 1, 0), cuts, strict=True):
        if score >= cut:
            return tier
    return -1


@cache
def _holdem_tier(a: int, b: int) -> int:
    return _tier(Variant.HOLDEM, (Card(a), Card(b)))


def easy(view: SeatView, seed: int) -> Decision:
    if view.street == PREFLOP:
        return _preflop(view, _tier(view.variant, view.hole))
    strength = immediate_strength(
        view.variant, view.hole, view.board, np.random.default_rng(seed), samples=200
    )
    return _after_flop(view, strength, random.Random(seed).random())


def _preflop(view: SeatView, tier: int) -> Decision:
    if voluntarily_raised(view):
        if tier == 3:
            return legal(view, ActionKind.RAISE, preflop_raise_to(view), "premium: re-raise")
        if tier >= 1:
            return legal(view, ActionKind.CALL, rationale="good hand: call the raise")
        return legal(view, ActionKind.FOLD, rationale="weak hand facing a raise")
    if tier >= 2:
        return legal(view, ActionKind.RAISE, preflop_raise_to(view), "strong hand: raise")
    if tier >= 0:
        return legal(view, ActionKind.CALL, rationale="playable hand: limp")
    return legal(view, ActionKind.FOLD, rationale="weak hand")


def _after_flop(view: SeatView, strength: float, coin: float) -> Decision:
    """``coin``: the first draw of the decision's seeded generator (a mixed bet)."""
    note = f"immediate strength {strength:.2f}"
    if view.to_call == 0:
        if strength >= 0.8 or (strength >= 0.65 and coin < 0.15):
            return legal(view, ActionKind.BET, pot_raise_to(view, 0.5), f"{note}: bet")
        return legal(view, ActionKind.CHECK, rationale=f"{note}: check")
    if strength >= 0.95:
        return legal(view, ActionKind.RAISE, pot_raise_to(view, 0.75), f"{note}: raise")
    if strength >= 0.55:
        return legal(view, ActionKind.CALL, rationale=f"{note}: call")
    return legal(view, ActionKind.FOLD, rationale=f"{note}: fold")


def holdem_strengths(
    board: tuple[int, ...], holes: npt.NDArray[np.int64]
) -> npt.NDArray[np.float64]:
    """``[H]``: ``strength.immediate_strength`` of each hold'em holding of ``holes`` ``[H, 2]``
    (none sharing a card with ``board``), to the last bit: its wins plus half its ties
    against every hand the board and it leave, over their number."""
    dead = np.zeros(52, dtype=bool)
    dead[list(board)] = True
    rest = np.flatnonzero(~dead)
    pairs = np.array(list(combinations(rest.tolist(), 2)), dtype=np.uint8)
    theirs = high_values(Variant.HOLDEM, pairs, board)
    mine = high_values(Variant.HOLDEM, holes.astype(np.uint8), board)
    apart = (card_masks(holes)[:, None] & card_masks(pairs)[None, :]) == 0
    wins = ((theirs[None, :] < mine[:, None]) & apart).sum(axis=1)
    ties = ((theirs[None, :] == mine[:, None]) & apart).sum(axis=1)
    return np.asarray((wins + 0.5 * ties) / apart.sum(axis=1), dtype=np.float64)


def easy_policy(view: SeatView, seed: int, holes: npt.NDArray[np.int64]) -> list[Decision]:
    """Easy's decision with each of ``holes`` ``[H, 2]`` (hold'em, none on the board) in place
    of its own cards, on the same view and seed: exactly ``easy`` with that holding. Only the
    holding's tier (before the flop) or strength (after) differs, and the rest of the view
    decides alike for equal ones: each is decided once."""
    if view.variant is not Variant.HOLDEM:
        raise ValueError(f"Easy's policy is shared across hold'em holdings, not {view.variant}")
    if view.street == PREFLOP:
        tiers = [_holdem_tier(a, b) for a, b in holes.tolist()]
        by_tier = {t: _preflop(view, t) for t in set(tiers)}
        return [by_tier[t] for t in tiers]
    strengths = holdem_strengths(tuple(int(c) for c in view.board), holes).tolist()
    coin = random.Random(seed).random()
    by_strength = {s: _after_flop(view, s, coin) for s in set(strengths)}
    return [by_strength[s] for s in strengths]
