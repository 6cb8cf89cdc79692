"""The straddle setting and the bomb-pot vote (docs/table-features.md).

Straddle: a seat opts in (``SetStraddle``); at a table that allows it, an opted-in seat first
left of the big blind posts the straddle (2 x the big blind, live) in a hand of three players
or more (``planning``). Nobody straddles unasked.

Bomb-pot vote, at a table with ``bomb_pot_vote``: a seated player ready to play proposes that
the next hand be a bomb pot (``VoteBombPot(agree=True)`` with no vote open); the vote asks every
player ready to be dealt in then (not sitting out, leaving or waiting for the big blind) and
counts the proposer's agreement. Bots agree at once. Each asked player agrees or refuses; one
refusal closes the vote (refused); every agreement closes it agreed, and the next hand is a
bomb pot if every player dealt in agreed (one who sat down since did not: a usual hand). The
vote has a clock (``BOMB_POT_VOTE_SECONDS`` from the proposal, during a hand or between hands):
whoever has not answered by then refused. The next hand waits for an open vote until it closes
(``planning.start_hand_refusal``), so a vote proposed between hands is always decided before it.
"""

from __future__ import annotations

from libs.poker.errors import IllegalAction

from . import commands as tc
from . import errors as TE
from .bombvote import vote_open
from .config import BOMB_POT_VOTE_SECONDS
from .events import BombPotProposed, BombPotVoteClosed, BombPotVoted, StraddleSet
from .hand_flow import Scratch, require_seated
from .state import TableState


def set_straddle(x: Scratch, c: tc.SetStraddle) -> None:
    number = require_seated(x.s, c.player_id)
    assert x.s.config is not None
    if c.straddle and not x.s.config.straddle:
        raise IllegalAction(TE.STRADDLE_NOT_ALLOWED, "this table does not allow the straddle")
    if x.s.seats[number].straddle != bool(c.straddle):
        x.emit(StraddleSet(number, bool(c.straddle)))


def bomb_voters(s: TableState) -> tuple[str, ...]:
    """The players a vote proposed now asks: those ready to be dealt in, in seat order."""
    return tuple(
        seat.player_id
        for _, seat in sorted(s.seats.items())
        if seat.stack > 0 and not (seat.sitting_out or seat.leaving or seat.waiting_for_big_blind)
    )


def vote_bomb_pot(x: Scratch, c: tc.VoteBombPot) -> None:
    s = x.s
    assert s.config is not None
    number = require_seated(s, c.player_id)  # someone with no seat is told so first
    if not s.config.bomb_pot_vote:
        raise IllegalAction(TE.BOMB_POT_OFF, "this table does not deal bomb pots by vote")
    if vote_open(s):
        _answer(x, number, c.player_id, c.agree)
        return
    if not c.agree:
        raise IllegalAction(TE.BOMB_POT_NO_VOTE, "no bomb pot is proposed: nothing to refuse")
    if s.bomb_vote.for_hand == s.hands_started + 1:
        return  # agreed already: the next hand is a bomb pot
    voters = bomb_voters(s)
    if c.player_id not in voters:
        raise IllegalAction(
            TE.BOMB_POT_NOT_ASKED, "only a player ready to be dealt in may propose a bomb pot"
        )
    if len(voters) < 2:
        raise IllegalAction(TE.NOT_ENOUGH_PLAYERS, "a bomb pot needs two players ready")
    x.emit(BombPotProposed(number, c.player_id, voters, c.now + BOMB_POT_VOTE_SECONDS))
    for seat_number, seat in sorted(s.seats.items()):  # bots agree at once
        if seat.is_bot and seat.player_id in voters and vote_open(s):
            _answer(x, seat_number, seat.player_id, True)


def _answer(x: Scratch, number: int, player_id: str, agree: bool) -> None:
    s = x.s
    if player_id not in s.bomb_vote.voters:
        raise IllegalAction(
            TE.BOMB_POT_NOT_ASKED,
            "the vote asks the players who were ready when it was proposed",
        )
    if not agree:
        x.emit(BombPotVoteClosed(False, f"refused by seat {number + 1}"))
        return
    if player_id in s.bomb_vote.agreed:
        return  # agreed already
    x.emit(BombPotVoted(number, player_id))
    if all(voter in s.bomb_vote.agreed for voter in s.bomb_vote.voters):
        x.emit(BombPotVoteClosed(True, "agreed"))


def close_bomb_vote_if_due(x: Scratch, now: float) -> None:
    """The vote's clock ran out: whoever did not answer refused."""
    if vote_open(x.s) and now >= x.s.bomb_vote.deadline:
        x.emit(BombPotVoteClosed(False, "not everyone agreed in time"))
