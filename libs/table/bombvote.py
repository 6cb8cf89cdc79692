"""What the straddle setting and the bomb-pot vote's events do to a table (``apply`` of
libs/table/state.py hands them here): the seat's setting, the vote opened, agreed to, closed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from .events import BombPotProposed, BombPotVoteClosed, BombPotVoted, StraddleSet


class _Seat(Protocol):
    straddle: bool


class TableState(Protocol):
    """What of ``libs.table.state.TableState`` these events change (a protocol: the state
    module imports this one)."""

    hands_started: int
    bomb_vote_deadline: float
    bomb_voters: tuple[str, ...]
    bomb_agreed: tuple[str, ...]
    bomb_for: int

    @property
    def seats(self) -> Mapping[int, _Seat]: ...


#: The events ``apply_bomb_event`` takes.
BOMB_EVENTS = frozenset({StraddleSet, BombPotProposed, BombPotVoted, BombPotVoteClosed})


def apply_bomb_event(
    s: TableState, event: StraddleSet | BombPotProposed | BombPotVoted | BombPotVoteClosed
) -> None:
    match event:
        case StraddleSet():
            s.seats[event.seat].straddle = event.straddle
        case BombPotProposed():
            s.bomb_vote_deadline = event.deadline
            s.bomb_voters, s.bomb_agreed = event.voters, (event.player_id,)
        case BombPotVoted():
            s.bomb_agreed = (*s.bomb_agreed, event.player_id)
        case BombPotVoteClosed():
            s.bomb_vote_deadline = 0.0
            # an agreed vote is for the next hand (the hand after it spends it)
            s.bomb_for = s.hands_started + 1 if event.agreed else 0
            if not event.agreed:
                s.bomb_voters = s.bomb_agreed = ()


def vote_open(s: TableState) -> bool:
    return s.bomb_vote_deadline > 0
