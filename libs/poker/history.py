"""The public history of a hand: what every player at the table saw happen, in order (forced bets
included, hole cards never). The table keeps it for the hand in play (its views and its bots'
requests carry it); the bots read it to narrow ranges (libs.ai).

Positions are the engine's (0 = first seat left of the button, the button last); streets are
0..3 (preflop .. river); "to" amounts are a position's total bet on the street after the action.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .events import (
    ActionKind,
    ActionTaken,
    AntePosted,
    BlindPosted,
    DeadBlindPosted,
    Event,
    StreetDealt,
)

PREFLOP, FLOP, TURN, RIVER = 0, 1, 2, 3


class Move(StrEnum):
    """A public action: forced bets and the five betting actions."""

    ANTE = "ante"
    BLIND = "blind"  # a blind or straddle, live
    DEAD_BLIND = "dead_blind"  # dead money (a missed small blind), not part of the bet
    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BET = "bet"
    RAISE = "raise"

    @property
    def voluntary(self) -> bool:
        return self not in (Move.ANTE, Move.BLIND, Move.DEAD_BLIND)

    @property
    def aggressive(self) -> bool:
        return self is Move.BET or self is Move.RAISE


@dataclass(frozen=True, slots=True)
class PublicAction:
    """One thing every player at the table saw happen, in order."""

    position: int
    street: int
    move: Move
    amount: int  # chips this action put in
    to: int  # the position's total bet on this street after it (0 for antes and dead blinds)
    all_in: bool = False

    def __deepcopy__(self, memo: dict[int, Any]) -> PublicAction:
        return self  # immutable: a table state's deep copy (once per command) shares it


#: The public move of each betting action (a dict: calling ``Move`` costs a microsecond).
_MOVE_OF = {kind: Move(kind.value) for kind in ActionKind}


def public_action(event: Event, street: int) -> PublicAction | None:
    """The public action an engine event is, if it is one (``street`` = the street in play)."""
    if isinstance(event, ActionTaken):
        return PublicAction(
            event.player, street, _MOVE_OF[event.kind], event.amount, event.to, event.all_in
        )
    if isinstance(event, BlindPosted):
        return PublicAction(event.player, PREFLOP, Move.BLIND, event.amount, event.amount)
    if isinstance(event, AntePosted):
        return PublicAction(event.player, PREFLOP, Move.ANTE, event.amount, 0)
    if isinstance(event, DeadBlindPosted):
        return PublicAction(event.player, PREFLOP, Move.DEAD_BLIND, event.amount, 0)
    return None


def public_actions(events: Iterable[Event]) -> tuple[PublicAction, ...]:
    """The public history of one hand from its events (in order; hole cards never enter)."""
    street = PREFLOP
    out: list[PublicAction] = []
    for event in events:
        if isinstance(event, StreetDealt):
            street = event.street
            continue
        action = public_action(event, street)
        if action is not None:
            out.append(action)
    return tuple(out)
