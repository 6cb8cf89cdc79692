"""Easy: plays on the immediate strength of its own cards.

Before the flop it scores its hand (hold'em: the Chen formula; Omaha and hi-lo: the point count
of ``preflop``) and raises, calls or folds on fixed thresholds, whatever the position, the stacks
or the price. After the flop it takes its share of the pot against one random hand if the cards
were turned over now (``strength.immediate_strength``: made hands only, no draws, hi-lo shares
included): strong hands bet half the pot or raise, middling ones call any bet, weak ones give up.
"""

from __future__ import annotations

import random

import numpy as np

from libs.poker.config import Variant
from libs.poker.events import ActionKind

from .decision import Decision, legal
from .play import pot_raise_to, preflop_raise_to, voluntarily_raised
from .preflop import chen_score, omaha_percentile
from .strength import immediate_strength
from .view import PREFLOP, SeatView


def _tier(view: SeatView) -> int:
    """3 premium, 2 strong, 1 worth calling a raise, 0 worth a limp, -1 trash."""
    if view.variant is Variant.HOLDEM:
        score = chen_score(view.hole)
        cuts = (12.0, 10.0, 8.0, 6.0)
    else:
        score = omaha_percentile(view.hole, view.variant is Variant.OMAHA_HI_LO)
        cuts = (0.97, 0.9, 0.65, 0.45)
    for tier, cut in zip((3, 2, 1, 0), cuts, strict=True):
        if score >= cut:
            return tier
    return -1


def easy(view: SeatView, seed: int) -> Decision:
    rng = random.Random(seed)
    if view.street == PREFLOP:
        tier = _tier(view)
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
    strength = immediate_strength(
        view.variant, view.hole, view.board, np.random.default_rng(seed), samples=200
    )
    note = f"immediate strength {strength:.2f}"
    if view.to_call == 0:
        if strength >= 0.8 or (strength >= 0.65 and rng.random() < 0.15):
            return legal(view, ActionKind.BET, pot_raise_to(view, 0.5), f"{note}: bet")
        return legal(view, ActionKind.CHECK, rationale=f"{note}: check")
    if strength >= 0.95:
        return legal(view, ActionKind.RAISE, pot_raise_to(view, 0.75), f"{note}: raise")
    if strength >= 0.55:
        return legal(view, ActionKind.CALL, rationale=f"{note}: call")
    return legal(view, ActionKind.FOLD, rationale=f"{note}: fold")
