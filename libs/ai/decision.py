"""A bot's answer and the one place that makes it legal.

Every level says what it would like to do (``intend``); ``legal`` turns that into an action the
engine accepts from the seat's ``Options``: a bet or raise is clamped into its bounds (or becomes
a call / check when raising is not allowed), a fold that costs nothing becomes a check, a check
that is not allowed becomes a fold, a call with nothing to call becomes a check. So no level can
answer illegally, whatever its arithmetic did.
"""

from __future__ import annotations

from dataclasses import dataclass

from libs.poker.events import ActionKind

from .view import Options, SeatView


@dataclass(frozen=True, slots=True)
class Decision:
    """``to`` is the total bet on this street after a bet or raise (0 for the other kinds)."""

    kind: ActionKind
    to: int = 0
    rationale: str = ""
    samples: int = 0  # Monte Carlo samples the decision used (Hard), for tests and logs


def legal(
    view: SeatView, kind: ActionKind, to: int = 0, rationale: str = "", samples: int = 0
) -> Decision:
    """The nearest legal action to ``kind`` / ``to`` for the seat to act."""
    o = view.options
    if kind is ActionKind.BET or kind is ActionKind.RAISE:
        if o.can_raise:
            amount = min(max(to, o.min_to), o.max_to)
            real = ActionKind.BET if view.is_bet else ActionKind.RAISE
            return Decision(real, amount, rationale, samples)
        kind = ActionKind.CALL
    if kind is ActionKind.CALL:
        kind = ActionKind.CALL if o.can_call else ActionKind.CHECK
    if kind is ActionKind.FOLD and o.can_check:
        kind = ActionKind.CHECK
    if kind is ActionKind.CHECK and not o.can_check:
        kind = ActionKind.FOLD if o.can_fold else ActionKind.CALL
    return Decision(kind, 0, rationale, samples)


def is_legal(options: Options, decision: Decision) -> bool:
    """Whether ``decision`` is allowed by ``options`` (what the tests assert)."""
    kind = decision.kind
    if kind is ActionKind.FOLD:
        return options.can_fold
    if kind is ActionKind.CHECK:
        return options.can_check
    if kind is ActionKind.CALL:
        return options.can_call
    return options.can_raise and options.min_to <= decision.to <= options.max_to


def clock_action(view: SeatView) -> Decision:
    """What the table's clock does for a seat that does not answer: check, else fold."""
    return legal(view, ActionKind.CHECK, rationale="clock: check if free, else fold")
