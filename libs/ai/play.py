"""Table arithmetic the levels share: bet sizes in pot fractions and big blinds, who acts behind,
whether the pot was raised. Amounts are "to" amounts; ``decision.legal`` clamps them later."""

from __future__ import annotations

from .view import PREFLOP, Move, SeatView


def pot_raise_to(view: SeatView, fraction: float) -> int:
    """A bet or raise of ``fraction`` of the pot (after calling, for a raise)."""
    to_call = view.to_call
    current = view.bets[view.me] + to_call
    return current + max(1, round(fraction * (view.pot + to_call)))


def preflop_raise_to(view: SeatView, multiple: float = 3.0) -> int:
    """An open of 2.5 big blinds heads-up, 3 otherwise (+1 per limper), or a re-raise to
    ``multiple`` times the bet to call."""
    bb = view.big_blind
    if view.raises_this_street == 0:
        limpers = sum(1 for a in view.street_actions() if a.move is Move.CALL)
        base = 2.5 if view.players == 2 else 3.0
        return round(bb * (base + limpers))
    current = view.bets[view.me] + view.to_call
    return round(current * multiple)


def all_in_to(view: SeatView) -> int:
    return view.options.max_to


def big_blind_position(view: SeatView) -> int:
    best, position = -1, view.players - 1
    for action in view.actions:
        if action.move is Move.BLIND and action.amount >= best:
            best, position = action.amount, action.position
    return position


def behind(view: SeatView) -> int:
    """Live players with chips who act after me on this street (before the action comes back)."""
    n = view.players
    if view.street == PREFLOP:
        start = big_blind_position(view) + 1
        order = [(start + k) % n for k in range(n)]
    else:
        order = list(range(n))
    later = order[order.index(view.me) + 1 :]
    return sum(1 for p in later if not view.folded[p] and view.stacks[p] > 0)


def voluntarily_raised(view: SeatView) -> bool:
    """Someone bet or raised on this street (preflop: beyond the blinds)."""
    return view.raises_this_street > 0


def preflop_aggressor(view: SeatView) -> int | None:
    return view.last_aggressor(PREFLOP)


def pot_odds(view: SeatView) -> float:
    """The share of the final pot a call must win to break even."""
    call = view.to_call
    return call / (view.pot + call) if call else 0.0


def stack_to_pot(view: SeatView) -> float:
    return view.effective_stack / max(1, view.pot)


def chips_in_bb(view: SeatView, chips: int) -> float:
    return chips / max(1, view.big_blind)
