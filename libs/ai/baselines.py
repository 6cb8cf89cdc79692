"""Baselines a level must beat: a calling station, a uniformly random player, an always-fold
player (the floor: it loses its blinds), and the heads-up push-or-fold equilibrium (what short
stacks are measured against)."""

from __future__ import annotations

import random

from libs.poker.events import ActionKind

from .decision import Decision, legal
from .shortstack.play import push_or_fold
from .view import SeatView


def calling_station(view: SeatView) -> Decision:
    """Check or call; never folds, never bets or raises."""
    kind = ActionKind.CHECK if view.options.can_check else ActionKind.CALL
    return legal(view, kind, rationale="calling station")


def random_player(view: SeatView, rng: random.Random) -> Decision:
    """A legal action kind chosen uniformly; a bet or raise to a uniform amount within bounds."""
    o = view.options
    kinds = [
        kind
        for kind, allowed in (
            (ActionKind.FOLD, o.can_fold),
            (ActionKind.CHECK, o.can_check),
            (ActionKind.CALL, o.can_call),
            (ActionKind.RAISE, o.can_raise),
        )
        if allowed
    ]
    kind = rng.choice(kinds)
    to = rng.randint(o.min_to, o.max_to) if kind is ActionKind.RAISE else 0
    return legal(view, kind, to, rationale="random")


def always_fold(view: SeatView) -> Decision:
    """Check when it is free, else fold."""
    return legal(view, ActionKind.FOLD, rationale="always fold")


def push_fold_player(view: SeatView, rng: random.Random) -> Decision:
    """Heads-up: push or fold as the equilibrium charts say at any depth (the charts stop at 30
    big blinds: deeper plays the 30 big blind chart); anywhere else (a limp to it, a later
    street, more players) check when it is free, else fold."""
    chart = push_or_fold(view, rng, max_stack=float("inf"))
    return chart or legal(view, ActionKind.CHECK, rationale="push/fold: check or fold")
