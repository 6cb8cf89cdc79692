"""Playing a push-or-fold spot from the charts: the equilibrium's action for the seat to act, or
None when the view is not such a spot (the caller plays it its own way).

Heads-up, a spot is: no-limit hold'em, preflop, the effective stack (the shorter starting stack)
at most ``max_stack`` big blinds, and either the small blind acting first, or the big blind
facing a raise. The small blind pushes (all in) with the chart's probability for its class,
else folds. The big blind facing an all-in calls with the chart's calling probability at that
depth; facing a raise that leaves chips behind, it moves all in with the same calling range (a
caller of shoves is strong enough to shove over a raise), else folds.

With three to six players dealt in (``table_chart``): a player to act after folds only pushes
with the first-in chart for the number of players behind it; a player facing one raise with
only folds after it answers with its row of the callers' chart (call a push, push over a raise
that leaves chips, else fold). The effective stack is the shorter of mine and the deepest
player's I would face. A limp, a re-raise, more than five players behind or any later street is
not a spot: None. Mixed hands are decided by ``rng``, so a seed repeats a decision.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from libs.poker.config import BettingStructure, Variant
from libs.poker.events import ActionKind
from libs.poker.history import PREFLOP, Move

from ..decision import Decision, legal
from ..strength import Floats
from ..view import SeatView
from .charts import Antes, heads_up_chart, table_chart
from .hands import class_index
from .multiway import MAX_BEHIND

PUSH_FOLD_DEPTH = 15.0  # big blinds: the depth up to which Hard plays the charts


def no_limit_holdem_preflop(view: SeatView) -> bool:
    """Whether the view is a no-limit hold'em hand before the flop: the only game the charts
    were solved for."""
    return (
        view.variant is Variant.HOLDEM
        and view.structure is BettingStructure.NO_LIMIT
        and view.street == PREFLOP
    )


def antes_of(view: SeatView) -> Antes:
    """Which kept ante structure is nearest to this hand's forced bets."""
    antes = [a for a in view.actions if a.move is Move.ANTE]
    if not antes:
        return Antes.NONE
    big_blind = 0 if view.players == 2 else 1  # heads-up the big blind is position 0
    if {a.position for a in antes} == {big_blind}:  # only the big blind posts: a big blind ante
        return Antes.BIG_BLIND_ANTE
    return Antes.TENTH


def effective_big_blinds(view: SeatView) -> float:
    """The shorter starting stack, in big blinds."""
    return min(view.starting_stacks) / view.big_blind


def acting_order(players: int) -> tuple[int, ...]:
    """Preflop: under the gun (position 2) first, the blinds last; heads-up the button first."""
    return (1, 0) if players == 2 else (*range(2, players), 0, 1)


@dataclass(frozen=True)
class Spot:
    """A push-or-fold spot: the first player in, the players behind it, and who I am."""

    pusher: int  # the first player in (me, when I am to push)
    order: tuple[int, ...]  # the players behind the pusher, in acting order
    me: int
    all_in: bool  # answering: the raise I face is all in
    depth: float  # the effective stack, big blinds
    antes: Antes
    players: int

    @property
    def first_in(self) -> bool:
        return self.me == self.pusher

    @property
    def behind(self) -> int:
        return len(self.order)

    def rows(self, depth: float | None = None) -> tuple[Floats, Floats]:
        """(push ``[169]``, calls ``[behind, 169]``) at ``depth`` (default: the spot's)."""
        at = self.depth if depth is None else depth
        if self.players == 2:
            push, call = heads_up_chart(at, self.antes)
            return push, call[None, :]
        return table_chart(at, self.behind, self.antes)


def find_spot(view: SeatView, max_stack: float = PUSH_FOLD_DEPTH) -> Spot | None:
    """The push-or-fold spot this view is, or None."""
    if not no_limit_holdem_preflop(view):
        return None
    voluntary = [a for a in view.actions if a.move.voluntary]
    raises = [a for a in voluntary if a.move is not Move.FOLD]
    order = acting_order(view.players)
    starts = view.starting_stacks
    if not raises:  # everyone before me folded: I am first in
        pusher, all_in = view.me, False
        against: tuple[int, ...] = view.opponents
    elif len(raises) == 1 and raises[0].move is Move.RAISE:
        pusher, all_in, against = raises[0].position, raises[0].all_in, (raises[0].position,)
    else:
        return None
    rest = order[order.index(pusher) + 1 :]
    if view.me != pusher and view.me not in rest:
        return None
    effective = min(starts[view.me], max(starts[i] for i in against)) / view.big_blind
    if not 1 <= len(rest) <= MAX_BEHIND or effective > max_stack:
        return None
    return Spot(pusher, rest, view.me, all_in, effective, antes_of(view), view.players)


def push_or_fold(
    view: SeatView, rng: random.Random, max_stack: float = PUSH_FOLD_DEPTH, misread: float = 0.0
) -> Decision | None:
    """The chart's action for the seat to act, or None when this is not a push-or-fold spot.
    ``misread`` > 0 reads the chart at a depth off by up to that share of the real one (drawn
    from ``rng``): a looser player's approximation of the equilibrium."""
    spot = find_spot(view, max_stack)
    if spot is None:
        return None
    push, calls = spot.rows(spot.depth * (1 + rng.uniform(-misread, misread)))
    mine = class_index(view.hole)
    if spot.first_in:
        return push_with(view, rng.random() < push[mine], f"{spot.behind} behind")
    caller = spot.order.index(view.me)
    call = rng.random() < calls[caller][mine]
    return answer_with(view, call, spot.all_in, f"caller {caller + 1} of {spot.behind}")


def push_with(view: SeatView, push: bool, chart: str) -> Decision:
    if push:
        return legal(view, ActionKind.RAISE, view.options.all_in_to, f"push ({chart})")
    return legal(view, ActionKind.FOLD, rationale=f"fold ({chart})")


def answer_with(view: SeatView, call: bool, all_in: bool, chart: str) -> Decision:
    """Facing the one raise: call a push (or push over a raise that leaves chips), or fold."""
    if not call:
        return legal(view, ActionKind.FOLD, rationale=f"fold to the push ({chart})")
    if all_in or not view.options.can_raise:
        return legal(view, ActionKind.CALL, rationale=f"call the push ({chart})")
    return legal(view, ActionKind.RAISE, view.options.all_in_to, f"push over the raise ({chart})")
