"""Playing a raise, fold or call-off spot at a table of three to six from the charts
(``tableraise``): no-limit hold'em before the flop, the effective stack from
``TABLE_RAISE_LOW`` to the level's depth, read from the charts of the nearest kept ante
structure (``play.antes_of``, as the push-or-fold charts are). Or None: the caller plays it
(the push-or-fold charts, or its own way).

- First in (everyone before me folded): fold, push, or raise to two big blinds with the chart's
  probabilities for my class and the number of players behind me.
- Behind that first player, with only folds between: facing its push, call with my row's
  calling probability; facing its small raise (at most ``SMALL_RAISE`` big blinds, not all in),
  re-raise all in with my row's re-raising probability, else fold (no flat call: the game's
  approximation).
- The first player, raised over all in by one player and everyone else folded: call off with my
  class's share of raise-call among its raises, else fold.

The effective stack is the shorter of mine and the deepest I face (first in: of everyone
behind), as the push-or-fold charts read it.
"""

from __future__ import annotations

import random

from libs.poker.events import ActionKind
from libs.poker.history import Move

from ..decision import Decision, legal
from ..view import SeatView
from .hands import class_index
from .multiway import MAX_BEHIND
from .play import acting_order, answer_with, antes_of, no_limit_holdem_preflop
from .raiseplay import ANTE_NOTES, SMALL_RAISE, draw
from .raising import FOLD, PUSH, RAISE_CALL, RAISE_FOLD
from .tableraise import TABLE_RAISE_STACKS, TABLE_RAISE_TO, table_raise_chart

#: The shallowest effective stack (big blinds) played from these charts (their first depth).
TABLE_RAISE_LOW = TABLE_RAISE_STACKS[0]


def table_raise_or_fold(
    view: SeatView, rng: random.Random, high: float, misread: float = 0.0
) -> Decision | None:
    """The chart's action for the seat to act, or None when this is not such a spot.
    ``misread`` > 0 reads the chart at a depth off by up to that share (a looser player)."""
    if not (no_limit_holdem_preflop(view) and 3 <= view.players <= 1 + MAX_BEHIND):
        return None
    raises = [a for a in view.actions if a.move.voluntary and a.move is not Move.FOLD]
    order = acting_order(view.players)
    opener = raises[0].position if raises else view.me
    behind = order[order.index(opener) + 1 :]
    if not 1 <= len(behind) <= MAX_BEHIND or any(a.move is not Move.RAISE for a in raises):
        return None
    starts = view.starting_stacks
    if not raises:
        faced = behind
    elif view.me == opener:
        faced = (raises[-1].position,)
    else:
        faced = (opener,)
    depth = min(starts[view.me], max(starts[i] for i in faced)) / view.big_blind
    if not TABLE_RAISE_LOW <= depth <= high:
        return None
    read = depth * (1 + rng.uniform(-misread, misread)) if misread else depth
    antes = antes_of(view)
    chart = table_raise_chart(max(read, TABLE_RAISE_LOW), len(behind), antes)
    mine = class_index(view.hole)
    note = f"{depth:.1f} bb table raise chart{ANTE_NOTES[antes]}, {len(behind)} behind"
    bb = view.big_blind
    if not raises:
        action = draw(rng, [chart.first[k][mine] for k in (FOLD, PUSH, RAISE_FOLD, RAISE_CALL)])
        if action == FOLD:
            return legal(view, ActionKind.FOLD, rationale=f"fold ({note})")
        if action == PUSH:
            return legal(view, ActionKind.RAISE, view.options.all_in_to, f"push ({note})")
        return legal(view, ActionKind.RAISE, round(TABLE_RAISE_TO * bb), f"raise ({note})")
    first = raises[0]
    small = not first.all_in and first.to <= SMALL_RAISE * bb
    if len(raises) == 1 and view.me in behind:
        row = behind.index(view.me)
        if first.all_in:
            call = rng.random() < chart.calls[row][mine]
            return answer_with(view, call, True, note)
        if not small:
            return None
        if rng.random() < chart.reraises[row][mine]:
            return legal(view, ActionKind.RAISE, view.options.all_in_to, f"re-push ({note})")
        return legal(view, ActionKind.FOLD, rationale=f"fold to the raise ({note})")
    if len(raises) == 2 and view.me == opener and small and raises[1].all_in:
        off, keep = chart.first[RAISE_CALL][mine], chart.first[RAISE_FOLD][mine]
        call = off + keep > 0 and rng.random() < off / (off + keep)
        kind = ActionKind.CALL if call else ActionKind.FOLD
        return legal(view, kind, rationale=f"{'call off' if call else 'fold'} ({note})")
    return None
