"""Normal: Easy's hand reading plus position, stack depth, pot odds, board texture and
simplified starting-hand ranges.

Before the flop it plays a range by position: it opens the top share of hands that the number
of players still to act allows (``model.open_width``), re-raises a narrow top range, calls a
raise with a range that tightens with the price and the number of raises, and with 12 big blinds
or fewer it moves all in or folds (the push-or-fold charts), at a table of three to six
without antes from 6 big blinds also raising, folding or calling off from the six-handed raise
charts (``shortstack.tableraiseplay``); heads-up from 15 to 25 big blinds without antes it
raises, folds or calls off from the raise charts (``shortstack.raiseplay``); every chart read at
a depth off by up to a third. After the flop it estimates its equity
against as many random hands as it has opponents (Monte Carlo, so draws count), bets for value
when that is well above its fair share, sizes bets up on coordinated boards, continues its
preflop raise on dry boards, calls when the equity beats the pot odds (with a margin out of
position) and commits its stack when the pot is already large against it. It does not read the
opponents' actions into their ranges: that is Hard's edge.
"""

from __future__ import annotations

import math
import random
import time

import numpy as np

from libs.poker.config import BettingStructure, Variant
from libs.poker.events import ActionKind

from .decision import Decision, legal
from .model import open_width
from .play import (
    all_in_to,
    behind,
    chips_in_bb,
    pot_odds,
    pot_raise_to,
    preflop_aggressor,
    preflop_raise_to,
    stack_to_pot,
    voluntarily_raised,
)
from .preflop import preflop_percentile
from .range_equity import equity_vs_ranges
from .ranges import candidates, preflop_ranges
from .shortstack.play import push_or_fold
from .shortstack.raiseplay import raise_fold_or_call_off
from .shortstack.tableraiseplay import table_raise_or_fold
from .strength import texture
from .view import FLOP, PREFLOP, RIVER, SeatView

SAMPLES = 300
#: Facing a bet, the equity must beat the pot odds by this much, by street: later bets, bigger
#: bets and bets into more players mean stronger hands (the simplified reading of the action).
STREET_MARGIN = (0.0, 0.1, 0.25, 0.5)
SIZE_MARGIN = 0.3
MULTIWAY_MARGIN = 0.0
CANDIDATES = {Variant.HOLDEM: 1_326, Variant.OMAHA: 500, Variant.OMAHA_HI_LO: 500}


def _preflop(view: SeatView, rng: random.Random) -> Decision:
    pct = preflop_percentile(view.variant, view.hole)
    note = f"starting hand top {100 * (1 - pct):.0f}%"
    later = behind(view)
    depth = chips_in_bb(view, view.effective_stack)
    if depth <= 12 and view.structure is not BettingStructure.FIXED_LIMIT:
        wanted = 0.8 if voluntarily_raised(view) else 1.0 - min(0.45, open_width(later))
        if pct >= wanted:
            return legal(view, ActionKind.RAISE, all_in_to(view), f"{note}, short: all in")
        return legal(view, ActionKind.FOLD, rationale=f"{note}, short: fold")
    if not voluntarily_raised(view):
        if pct >= 1.0 - open_width(later):
            return legal(view, ActionKind.RAISE, preflop_raise_to(view), f"{note}: open")
        if view.options.can_check:
            return legal(view, ActionKind.CHECK, rationale=f"{note}: check the option")
        if view.players == 2 and pct >= 0.4:
            return legal(view, ActionKind.CALL, rationale=f"{note}: complete heads-up")
        return legal(view, ActionKind.FOLD, rationale=f"{note}: outside the opening range")
    raises = view.raises_this_street
    closing = later == 0
    reraise = min(0.985, 0.93 + 0.025 * (raises - 1))
    call = 0.5 + 0.08 * (raises - 1) + 0.6 * pot_odds(view) - (0.06 if closing else 0.0)
    if pct >= reraise:
        to = preflop_raise_to(view, 3.0)
        if to > 0.4 * (view.stacks[view.me] + view.bets[view.me]):
            to = all_in_to(view)
        return legal(view, ActionKind.RAISE, to, f"{note}: re-raise")
    if pct >= min(call, reraise):
        return legal(view, ActionKind.CALL, rationale=f"{note}: call the raise")
    return legal(view, ActionKind.FOLD, rationale=f"{note}: fold to the raise")


def normal(view: SeatView, seed: int) -> Decision:
    rng = random.Random(seed)
    # Short-stacked heads-up: the equilibrium charts, read at a depth off by up to a third.
    if (chart := table_raise_or_fold(view, rng, 12.0, misread=1 / 3)) is not None:
        return chart
    if (chart := push_or_fold(view, rng, max_stack=12.0, misread=1 / 3)) is not None:
        return chart
    if (chart := raise_fold_or_call_off(view, rng, misread=1 / 3)) is not None:
        return chart
    if view.street == PREFLOP:
        return _preflop(view, rng)
    opponents = max(1, len(view.opponents))
    np_rng = np.random.default_rng(seed)
    cands = candidates(view.variant, [*view.hole, *view.board], np_rng, CANDIDATES[view.variant])
    weights = preflop_ranges(view, cands)
    equity = equity_vs_ranges(
        view, cands, weights, np_rng, SAMPLES, math.inf, time.perf_counter, chunk=SAMPLES
    ).equity
    # Equity against n hands is roughly (equity against one) ** n: compare like with like.
    strength = equity ** (1.0 / opponents)
    board = texture(view.board)
    spr = stack_to_pot(view)
    in_position = view.in_position
    note = f"equity {equity:.2f} vs {opponents} starting-hand ranges"
    if view.to_call == 0:
        value = 0.66 + (0.0 if in_position else 0.03)
        if strength >= value:
            if spr < 1.2 and strength >= 0.75:
                return legal(view, ActionKind.BET, all_in_to(view), f"{note}: value, all in")
            size = 0.5 + 0.25 * board.wet
            return legal(view, ActionKind.BET, pot_raise_to(view, size), f"{note}: value bet")
        aggressor = preflop_aggressor(view) == view.me
        if (
            aggressor
            and view.street == FLOP
            and opponents == 1
            and board.wet < 0.4
            and rng.random() < 0.55
        ):
            return legal(view, ActionKind.BET, pot_raise_to(view, 0.5), f"{note}: c-bet")
        return legal(view, ActionKind.CHECK, rationale=f"{note}: check")
    price = pot_odds(view)
    if (strength >= 0.86 and view.street != RIVER) or strength >= 0.9:
        if spr < 1.5:
            return legal(view, ActionKind.RAISE, all_in_to(view), f"{note}: raise all in")
        return legal(view, ActionKind.RAISE, pot_raise_to(view, 0.8), f"{note}: raise")
    # Simplified reading of the bet: later streets and re-raises mean stronger hands.
    margin = STREET_MARGIN[view.street] + 0.08 * (view.raises_this_street - 1)
    margin += 0.0 if in_position else 0.03
    bet = view.to_call / max(1, view.pot - view.to_call)  # the bet against the pot before it
    margin += SIZE_MARGIN * min(bet, 2.0) + MULTIWAY_MARGIN * (opponents - 1)
    if equity >= price + margin:
        return legal(view, ActionKind.CALL, rationale=f"{note} beats the price {price:.2f}")
    if spr < 0.5 and equity >= price:
        return legal(view, ActionKind.CALL, rationale=f"{note}: pot committed")
    return legal(view, ActionKind.FOLD, rationale=f"{note} below the price {price:.2f}")
