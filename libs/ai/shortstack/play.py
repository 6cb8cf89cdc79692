"""Playing a heads-up push-or-fold spot from the charts: the equilibrium's action for the seat to
act, or None when the view is not such a spot (the caller plays it its own way).

A spot is: no-limit hold'em, two players dealt in, preflop, the effective stack (the shorter
starting stack) at most ``max_stack`` big blinds, and either the small blind acting first, or
the big blind facing a raise. The small blind pushes (all in) with the chart's probability for
its class, else folds. The big blind facing an all-in calls with the chart's calling
probability at that depth; facing a raise that leaves chips behind, it moves all in with the
same calling range (a caller of shoves is strong enough to shove over a raise), else folds.
A limp, a re-raise or any later street is not a spot: None. Mixed hands are decided by
``rng``, so a seed repeats a decision.
"""

from __future__ import annotations

import random

from libs.poker.config import BettingStructure, Variant
from libs.poker.events import ActionKind
from libs.poker.history import PREFLOP, Move

from ..decision import Decision, legal
from ..view import SeatView
from .charts import Antes, heads_up_chart
from .hands import class_index

PUSH_FOLD_DEPTH = 15.0  # big blinds: the depth up to which Hard plays the charts


def antes_of(view: SeatView) -> Antes:
    """Which kept ante structure is nearest to this hand's forced bets."""
    antes = [a for a in view.actions if a.move is Move.ANTE]
    if not antes:
        return Antes.NONE
    by_position = {a.position: a.amount for a in antes}
    if set(by_position) == {0}:  # heads-up the big blind is position 0: a big blind ante
        return Antes.BIG_BLIND_ANTE
    return Antes.TENTH


def effective_big_blinds(view: SeatView) -> float:
    """The shorter starting stack, in big blinds."""
    return min(view.starting_stacks) / view.big_blind


def is_spot(view: SeatView, max_stack: float = PUSH_FOLD_DEPTH) -> bool:
    return (
        view.variant is Variant.HOLDEM
        and view.structure is BettingStructure.NO_LIMIT
        and view.players == 2
        and view.street == PREFLOP
        and effective_big_blinds(view) <= max_stack
    )


def push_or_fold(
    view: SeatView, rng: random.Random, max_stack: float = PUSH_FOLD_DEPTH, misread: float = 0.0
) -> Decision | None:
    """The chart's action for the seat to act, or None when this is not a push-or-fold spot.
    ``misread`` > 0 reads the chart at a depth off by up to that share of the real one (drawn
    from ``rng``): a looser player's approximation of the equilibrium."""
    if not is_spot(view, max_stack):
        return None
    voluntary = [a for a in view.actions if a.move.voluntary]
    depth = effective_big_blinds(view) * (1 + rng.uniform(-misread, misread))
    push, call = heads_up_chart(depth, antes_of(view))
    mine = class_index(view.hole)
    if view.me == view.button and not voluntary:  # the small blind, first to act
        if rng.random() < push[mine]:
            return legal(view, ActionKind.RAISE, view.options.all_in_to, "push (chart)")
        return legal(view, ActionKind.FOLD, rationale="fold (chart)")
    if view.me != view.button and len(voluntary) == 1 and voluntary[0].move is Move.RAISE:
        if rng.random() >= call[mine]:
            return legal(view, ActionKind.FOLD, rationale="fold to the push (chart)")
        if voluntary[0].all_in or not view.options.can_raise:
            return legal(view, ActionKind.CALL, rationale="call the push (chart)")
        return legal(view, ActionKind.RAISE, view.options.all_in_to, "push over the raise (chart)")
    return None
