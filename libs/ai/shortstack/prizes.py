"""Push-or-fold by prize equity: in a tournament, the best response in ICM dollars to opponents
who play the chip equilibrium (the charts), instead of the chart itself.

First in, pushing is worth: everyone folds (I take the blinds and antes), or the first player
behind to call does (the charts' calling row, card removal counted against my class) and the
showdown decides, won with my equity against that calling range; each outcome is priced by
``libs.ai.icm`` over every stack in the tournament (this table's and ``Prizes.others``).
Folding is worth my stack less what I posted. I push when pushing is worth more.

Facing the one push: calling is worth my equity against the pusher's chart range times the
prize of winning plus the rest times the prize of losing (busting pays the place below everyone
left); folding is worth the stack I keep. Near the bubble losing costs more than winning gains
(a bubble factor above 1), so calls tighten; heads-up for the title the prizes are linear in
chips and the answer is the chip equilibrium's. Every field size is priced (``icm.PrizeModel``:
exact for small fields, sampled with common random numbers for big ones), one model per
decision so that its prices share their draws.
"""

from __future__ import annotations

import numpy as np

from libs.poker.events import ActionKind

from ..decision import Decision, legal
from ..icm import PrizeModel, all_in_prices
from ..strength import Floats
from ..view import SeatView
from .equities import heads_up_equities
from .hands import class_index, pair_weights
from .play import PUSH_FOLD_DEPTH, Spot, answer_with, find_spot


def prize_model(view: SeatView) -> PrizeModel | None:
    """The prize model of this decision (the payouts and the other tables' stacks); None in a
    cash game."""
    prizes = view.prizes
    if prizes is None:
        return None
    return PrizeModel([float(p) for p in prizes.payouts], [float(s) for s in prizes.others])


def _against(mine: int, weights: Floats) -> tuple[float, float]:
    """(share of deals where the range holds a hand, my equity against it) for my class."""
    dealt = pair_weights()[mine]
    joint = dealt * weights
    total = float(joint.sum())
    if total <= 0:
        return 0.0, 0.5
    return total / float(dealt.sum()), float(joint @ heads_up_equities()[mine]) / total


def _table(view: SeatView) -> tuple[list[float], list[float]]:
    """(chips behind now, chips put in this hand) at this table."""
    committed = [s - b for s, b in zip(view.starting_stacks, view.stacks, strict=True)]
    return [*map(float, view.stacks)], [*map(float, committed)]


def push_value(view: SeatView, spot: Spot, model: PrizeModel) -> tuple[float, float]:
    """(prize equity of pushing, of folding), first in."""
    stacks, committed = _table(view)
    me, mine = view.me, class_index(view.hole)
    _, calls = spot.rows()
    folded = list(stacks)
    big_blind = 0 if view.players == 2 else 1
    folded[big_blind] += sum(committed)  # roughly: the blinds and antes go to the big blind
    fold = model.prize(folded, me)
    stolen = list(stacks)
    stolen[me] += sum(committed)
    reach, value = 1.0, 0.0
    for caller, row in zip(spot.order, calls, strict=True):
        called, equity = _against(mine, row)
        if called > 0:
            prices = all_in_prices(model, stacks, me, caller, committed)
            value += reach * called * (equity * prices.win + (1 - equity) * prices.lose)
        reach *= 1 - called
    return value + reach * model.prize(stolen, me), fold


def call_value(view: SeatView, spot: Spot, model: PrizeModel) -> tuple[float, float, float]:
    """(my equity against the pusher's range, the equity a call needs in prizes, the chip
    price), facing the push."""
    stacks, committed = _table(view)
    push, _ = spot.rows()
    _, equity = _against(class_index(view.hole), push)
    prices = all_in_prices(model, stacks, view.me, spot.pusher, committed)
    mine = stacks[view.me] + committed[view.me]
    theirs = stacks[spot.pusher] + committed[spot.pusher]
    at_risk = min(mine, theirs)
    pot = sum(committed) - committed[view.me] - committed[spot.pusher] + 2 * at_risk
    chip_price = (at_risk - committed[view.me]) / pot if pot > 0 else 1.0
    return equity, prices.needed_equity(), chip_price


def prize_push_or_fold(view: SeatView, max_stack: float = PUSH_FOLD_DEPTH) -> Decision | None:
    """The prize-equity answer in a push-or-fold spot of a tournament, or None (no prizes, or
    not such a spot)."""
    model = prize_model(view)
    if model is None:
        return None
    spot = find_spot(view, max_stack)
    if spot is None:
        return None
    if spot.first_in:
        push, fold = push_value(view, spot, model)
        note = f"ICM: push {push:.4g} vs fold {fold:.4g}"
        if push > fold:
            return legal(view, ActionKind.RAISE, view.options.all_in_to, note)
        return legal(view, ActionKind.FOLD, rationale=note)
    equity, needed, chip_price = call_value(view, spot, model)
    note = f"ICM: equity {equity:.3f}, needs {needed:.3f} (chips {chip_price:.3f})"
    return answer_with(view, bool(np.float64(equity) >= needed), spot.all_in, note)


def prize_call(view: SeatView, equity: float, note: str) -> Decision | None:
    """Facing a bet that puts me or my one opponent all in, in a tournament: call when my
    equity (Hard's estimate against the narrowed range) beats the prize-equity price, else
    fold; None when there are no prizes or this is not such a spot."""
    model = prize_model(view)
    if model is None or view.to_call == 0 or len(view.opponents) != 1:
        return None
    villain = view.opponents[0]
    if view.to_call < view.stacks[view.me] and view.stacks[villain] > 0:
        return None  # chips would be left behind on both sides: not a call for a tournament life
    stacks, committed = _table(view)
    needed = all_in_prices(model, stacks, view.me, villain, committed).needed_equity()
    why = f"{note}: ICM all-in call needs {needed:.3f}"
    if equity >= needed:
        return legal(view, ActionKind.CALL, rationale=why)
    return legal(view, ActionKind.FOLD, rationale=why)
