"""Hard's choice once its numbers are in (``hard.estimate``): its equity against the narrowed
ranges and, with the model, each bet's or raise's expected chips. Everything here is cheap and
per holding, so the policy over 1,326 holdings (``hard.hard_policy``) runs it 1,326 times on
one shared estimate (``holdings``). Mixed choices draw from ``mix`` only.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from libs.poker.config import BettingStructure, Variant
from libs.poker.events import ActionKind

from .decision import Decision, legal
from .play import (
    all_in_to,
    behind,
    pot_odds,
    pot_raise_to,
    preflop_aggressor,
    preflop_raise_to,
    stack_to_pot,
)
from .preflop import preflop_percentile
from .ranges import contesting
from .shortstack.prizes import prize_call
from .strength import texture
from .view import FLOP, PREFLOP, RIVER, SeatView

#: Facing a bet heads-up, hands whose equity is at least this share of the price call with a
#: probability rising to DEFEND_MOST at the price, by street (flop, turn, river; 0 unused).
DEFEND_FROM = (1.0, 0.85, 0.9, 0.7)
DEFEND_MOST = (0.0, 0.5, 0.5, 0.6)
#: The share of its equity a hand realises before the river, by street (flop, turn): the
#: rest is lost to bets it cannot call later, more so out of position.
REALISE_IN_POSITION = (1.0, 0.95, 0.95, 1.0)
REALISE_OUT_OF_POSITION = (1.0, 0.88, 0.88, 1.0)
#: Share of the spots below the value line where a bet or raise that the model says pays
#: by folds is weighed at all (0 = bluff only at the fixed frequencies).
BLUFF_SHARE = 0.5
#: Value bets and raises sized by their expected chips against the model (else thresholds).
VALUE_BY_MODEL = True
#: Bet sizes weighed, in fractions of the pot (no limit also 1.5; all in is always weighed).
SIZES = (0.33, 0.5, 0.75, 1.0)


@dataclass(frozen=True)
class Estimate:
    """What Hard knows about its holding: equity, samples, and with the model each bet's or
    raise's expected chips (from now on) by its "to" amount."""

    equity: float
    samples: int
    bets: tuple[tuple[float, int], ...] | None  # (chips, to) per size; None: no model


def _value_threshold(opponents: int) -> float:
    return float(0.56 * (2.0 / (opponents + 1)) ** 0.6)


def sizes(view: SeatView) -> list[int]:
    """The "to" amounts weighed for a bet or raise, within the bounds."""
    o = view.options
    if not o.can_raise:
        return []
    fractions = SIZES + ((1.5,) if view.structure is BettingStructure.NO_LIMIT else ())
    wanted = {pot_raise_to(view, f) for f in fractions} | {o.max_to}
    return sorted({min(max(to, o.min_to), o.max_to) for to in wanted})


def realised(view: SeatView) -> float:
    """The share of its equity a hand realises from here (all of it on the river)."""
    if view.street == RIVER:
        return 1.0
    base = (REALISE_IN_POSITION if view.in_position else REALISE_OUT_OF_POSITION)[view.street]
    if view.structure is BettingStructure.FIXED_LIMIT:
        base += 0.05
    return min(1.0, base)


def choose(view: SeatView, est: Estimate, mix: random.Random) -> Decision:
    """Hard's action from its estimate (after the flop, or facing a raise before it)."""
    equity, samples = est.equity, est.samples
    opponents = max(1, len(contesting(view)))
    note = f"equity {equity:.2f} vs narrowed ranges ({samples} samples)"

    def act(kind: ActionKind, to: int = 0, why: str = "") -> Decision:
        return legal(view, kind, to, f"{note}: {why}", samples)

    if (all_in_call := prize_call(view, equity, note)) is not None:
        return all_in_call

    if view.street == PREFLOP:
        return _facing_preflop_raise(view, equity, mix, act)
    value = _value_threshold(opponents)
    if est.bets is None or samples == 0 or not VALUE_BY_MODEL:
        return _without_model(view, equity, value, opponents, mix, act)
    realise = realised(view)
    pot, call = view.pot, view.to_call
    # Below the value line a bet or raise that pays by folds alone is made only on a coin
    # (BLUFF_SHARE): an opponent who never folds cannot farm a model that expects folds.
    for_value = equity >= value - 0.08
    bluffing = not for_value and mix.random() < BLUFF_SHARE
    bets = sorted(est.bets, reverse=True) if for_value or bluffing else []
    kind = "value" if for_value else "bluff (mixed)"
    if call == 0:
        passive = equity * realise * pot
        if bets and bets[0][0] > passive:
            best, to = bets[0]
            if equity >= 0.85 and view.street != RIVER and mix.random() < 0.1:
                return act(ActionKind.CHECK, why="slow play (mixed)")
            return act(ActionKind.BET, to, f"{kind} bet: {best:+.0f} chips vs {passive:+.0f}")
        return _bluff_or_check(view, equity, value, opponents, mix, act)
    calling = equity * realise * (pot + call) - call
    if bets and bets[0][0] > max(calling, 0.0):
        best, to = bets[0]
        if for_value and view.street != RIVER and calling > 0 and mix.random() < 0.2:
            return act(ActionKind.CALL, why="flat with a strong hand (mixed)")
        return act(ActionKind.RAISE, to, f"{kind} raise: {best:+.0f} chips vs {calling:+.0f}")
    if calling > 0:
        return act(ActionKind.CALL, why=f"call: {calling:+.0f} chips")
    return _defend_or_fold(view, equity, opponents, mix, act)


def _bluff_or_check(
    view: SeatView,
    equity: float,
    value: float,
    opponents: int,
    mix: random.Random,
    act: Callable[..., Decision],
) -> Decision:
    if view.street == RIVER:
        size = 0.75
        # Bluffs : value bets = b : (P + b) makes calling and folding break even for the
        # caller; weak hands are about as many as value hands, hence the frequency.
        chance = size / (1 + size) * (0.8 if opponents == 1 else 0.25)
        if equity < 0.2 and mix.random() < chance:
            return act(ActionKind.BET, pot_raise_to(view, size), "balanced river bluff")
        return act(ActionKind.CHECK, why="check")
    aggressor = preflop_aggressor(view) == view.me
    if view.street == FLOP and aggressor and opponents == 1 and mix.random() < 0.5:
        return act(ActionKind.BET, pot_raise_to(view, 0.5), "continuation bet (mixed)")
    if 0.3 <= equity < value and opponents == 1 and mix.random() < 0.2:
        return act(ActionKind.BET, pot_raise_to(view, 0.6), "semi-bluff (mixed)")
    return act(ActionKind.CHECK, why="check")


def _defend_or_fold(
    view: SeatView,
    equity: float,
    opponents: int,
    mix: random.Random,
    act: Callable[..., Decision],
) -> Decision:
    price = pot_odds(view)
    if opponents == 1 and price:
        # Defend toward pot / (pot + bet) with the hands nearest the price (before the river
        # their equity is worth more than it shows: the draws and floats of the next street).
        close = equity * realised(view) / price
        start, most = DEFEND_FROM[view.street], DEFEND_MOST[view.street]
        if close >= start and mix.random() < (close - start) / (1 - start) * most:
            return act(ActionKind.CALL, why="defend (mixed, minimum defence frequency)")
    return act(ActionKind.FOLD, why=f"below the price {price:.2f}")


def _without_model(
    view: SeatView,
    equity: float,
    value: float,
    opponents: int,
    mix: random.Random,
    act: Callable[..., Decision],
) -> Decision:
    """Short of time: thresholds on the equity alone."""
    spr = stack_to_pot(view)
    if view.to_call == 0:
        if equity >= value:
            to = all_in_to(view) if spr <= 1.3 else pot_raise_to(view, _size(view, equity, value))
            return act(ActionKind.BET, to, "value bet (threshold)")
        return _bluff_or_check(view, equity, value, opponents, mix, act)
    if equity >= max(0.72, value + 0.22):
        to = all_in_to(view) if spr < 1.5 else pot_raise_to(view, 0.8)
        return act(ActionKind.RAISE, to, "value raise (threshold)")
    if equity * realised(view) >= pot_odds(view):
        return act(ActionKind.CALL, why="beats the price")
    return _defend_or_fold(view, equity, opponents, mix, act)


def _size(view: SeatView, equity: float, threshold: float) -> float:
    wet = texture(view.board).wet if view.board else 0.0
    return min(1.0, 0.5 + 0.25 * wet + (0.25 if equity >= threshold + 0.2 else 0.0))


def _facing_preflop_raise(
    view: SeatView,
    equity: float,
    mix: random.Random,
    act: Callable[..., Decision],
) -> Decision:
    price = pot_odds(view)
    closing = behind(view) == 0
    realise = 0.92 if closing or view.in_position else 0.82
    if view.variant is not Variant.HOLDEM:
        realise += 0.05  # Omaha equities run close; more of them is realised
    raises = view.raises_this_street
    strong = _value_threshold(len(contesting(view))) + 0.04 * raises
    if equity >= strong:
        to = preflop_raise_to(view, 3.0)
        if to > 0.4 * (view.stacks[view.me] + view.bets[view.me]):
            to = all_in_to(view)
        return act(ActionKind.RAISE, to, "re-raise for value")
    if equity * realise >= price:
        pct = preflop_percentile(view.variant, view.hole)
        if raises == 1 and pct >= 0.7 and closing and mix.random() < 0.08:
            return act(ActionKind.RAISE, preflop_raise_to(view, 3.0), "re-raise bluff (mixed)")
        return act(ActionKind.CALL, why=f"beats the price {price:.2f}")
    return act(ActionKind.FOLD, why=f"below the price {price:.2f}")
