"""The table's bomb-pot vote (``BombPotVote``) and what the straddle setting's and the vote's
events do to a table (``apply`` of libs/table/state.py hands them here): the seat's setting,
the vote opened, agreed to, closed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Protocol

from .events import BombPotProposed, BombPotVoteClosed, BombPotVoted, StraddleSet


@dataclass(frozen=True, slots=True)
class BombPotVote:
    """Open while ``deadline`` is set; ``voters``: whose agreement it needs, ``agreed``: who gave
    it (player ids, the proposer first); ``for_hand``: the hand an agreed vote made a bomb pot
    (0: none). Replaced, never changed."""

    deadline: float = 0.0
    voters: tuple[str, ...] = ()
    agreed: tuple[str, ...] = ()
    for_hand: int = 0


class _Seat(Protocol):
    straddle: bool


class TableState(Protocol):
    """What of ``libs.table.state.TableState`` these events change (a protocol: the state
    module imports this one)."""

    hands_started: int
    bomb_vote: BombPotVote

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
            s.bomb_vote = BombPotVote(event.deadline, event.voters, (event.player_id,))
        case BombPotVoted():
            vote = s.bomb_vote
            s.bomb_vote = replace(vote, agreed=(*vote.agreed, event.player_id))
        case BombPotVoteClosed():
            # an agreed vote is for the next hand (the hand after it spends it)
            if event.agreed:
                s.bomb_vote = replace(s.bomb_vote, deadline=0.0, for_hand=s.hands_started + 1)
            else:
                s.bomb_vote = BombPotVote()


def vote_open(s: TableState) -> bool:
    return s.bomb_vote.deadline > 0
