"""Playing a raise, fold or call-off spot from the charts (``raising``): heads-up no-limit
hold'em before the flop, the effective stack above the push-or-fold charts' reach
(``PUSH_FOLD_DEPTH``) and at most ``RAISE_DEPTH`` big blinds, read from the charts of the
nearest kept ante structure (``play.antes_of``, as the push-or-fold charts are). Or None: the
caller plays it.

- The small blind first in: fold, push, or raise to two big blinds, with the chart's
  probabilities for its class (raise-fold and raise-call both raise).
- The big blind facing that small raise (at most ``SMALL_RAISE`` big blinds, not all in): re-raise
  all in with the chart's probability, else fold (the game's one approximation: no flat call).
  Facing a push: call with the push-or-fold charts' calling probability at that depth (at most
  their deepest, 20 bb). The raise game's own calling row answers the pushes of its equilibrium,
  which at these depths pushes under 1 % of hands: against a push/fold player (who pushes about
  half of them) it called too wide, 57.7 % of hands at 20 bb with a big blind ante against the
  push/fold equilibrium's 32.6 %, and Normal's edge over ``--b pushfold`` fell from +171 to +68.
- The small blind, raised and then re-raised all in: call off with its class's share of
  raise-call among its raises, else fold.
"""

from __future__ import annotations

import random

from libs.poker.events import ActionKind
from libs.poker.history import Move

from ..decision import Decision, legal
from ..view import SeatView
from .charts import Antes, heads_up_chart
from .hands import class_index
from .play import PUSH_FOLD_DEPTH, antes_of, effective_big_blinds, no_limit_holdem_preflop
from .raising import FOLD, PUSH, RAISE_CALL, RAISE_FOLD, RAISE_TO, raise_chart

#: The deepest effective stack (big blinds) played from the raise charts.
RAISE_DEPTH = 25.0
#: A raise to at most this many big blinds counts as the charts' small raise.
SMALL_RAISE = 2.5
_SB, _BB = 1, 0  # heads-up positions: the button posts the small blind
#: How a decision's rationale names the ante structure it was read with.
ANTE_NOTES = {Antes.NONE: "", Antes.TENTH: ", tenth antes", Antes.BIG_BLIND_ANTE: ", bb ante"}


def raise_fold_or_call_off(
    view: SeatView,
    rng: random.Random,
    low: float = PUSH_FOLD_DEPTH,
    high: float = RAISE_DEPTH,
    misread: float = 0.0,
) -> Decision | None:
    """The chart's action for the seat to act, or None when this is not such a spot.
    ``misread`` > 0 reads the chart at a depth off by up to that share (a looser player)."""
    if not (no_limit_holdem_preflop(view) and view.players == 2):
        return None
    depth = effective_big_blinds(view)
    if not low < depth <= high:
        return None
    read = depth * (1 + rng.uniform(-misread, misread)) if misread else depth
    antes = antes_of(view)
    chart = raise_chart(read, antes)
    mine = class_index(view.hole)
    raises = [a for a in view.actions if a.move.voluntary and a.move is not Move.FOLD]
    note = f"{depth:.1f} bb raise chart{ANTE_NOTES[antes]}"
    bb = view.big_blind
    if view.me == _SB and not raises:
        action = draw(rng, [chart[k][mine] for k in (FOLD, PUSH, RAISE_FOLD, RAISE_CALL)])
        if action == FOLD:
            return legal(view, ActionKind.FOLD, rationale=f"fold ({note})")
        if action == PUSH:
            return legal(view, ActionKind.RAISE, view.options.all_in_to, f"push ({note})")
        return legal(view, ActionKind.RAISE, round(RAISE_TO * bb), f"raise ({note})")
    if view.me == _BB and len(raises) == 1 and raises[0].position == _SB:
        first = raises[0]
        if first.all_in:  # the push/fold chart's call: a push here is a push/fold player's
            _, calls = heads_up_chart(read, antes)
            call = rng.random() < calls[mine]
            kind = ActionKind.CALL if call else ActionKind.FOLD
            note = f"{depth:.1f} bb push/fold chart{ANTE_NOTES[antes]}"
            return legal(view, kind, rationale=f"{kind.value} the push ({note})")
        if first.move is Move.RAISE and first.to <= SMALL_RAISE * bb:
            if rng.random() < chart[5][mine]:
                return legal(view, ActionKind.RAISE, view.options.all_in_to, f"re-push ({note})")
            return legal(view, ActionKind.FOLD, rationale=f"fold to the raise ({note})")
        return None
    if view.me == _SB and len(raises) == 2 and [a.position for a in raises] == [_SB, _BB]:
        mine_first, theirs = raises
        if mine_first.all_in or mine_first.to > SMALL_RAISE * bb or not theirs.all_in:
            return None
        off, keep = chart[RAISE_CALL][mine], chart[RAISE_FOLD][mine]
        call = off + keep > 0 and rng.random() < off / (off + keep)
        kind = ActionKind.CALL if call else ActionKind.FOLD
        return legal(view, kind, rationale=f"{'call off' if call else 'fold'} ({note})")
    return None


def draw(rng: random.Random, shares: list[float]) -> int:
    """An action drawn with these shares (FOLD, PUSH, RAISE_FOLD, RAISE_CALL); FOLD if none."""
    total = sum(shares)
    if total <= 0:
        return FOLD
    x = rng.random() * total
    for k, share in enumerate(shares):
        x -= share
        if x < 0:
            return k
    return len(shares) - 1
