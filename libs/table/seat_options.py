"""Sitting out and blinds (docs/table-features.md, "Sitting out and blinds"): a seat's blind
settings (sit out next big blind, wait for the big blind, auto-post blinds), the answer to the
blind question a seat with auto-post off is asked, what the table does about the blinds before
a hand (``settle_blinds``: sit out a seat at its big blind, ask, sit out a seat that did not
answer), and the gateway's word on a player's connection (disconnect protection: the clock of a
disconnected player's turn is in hand_commands ``tick``).

Defaults: sit out next big blind off, wait for the big blind on (owing an entry bet after
sitting out, a player waits unless they choose to post), auto-post blinds on.
"""

from __future__ import annotations

from libs.poker.errors import IllegalAction, InvalidCommand

from . import commands as tc
from . import errors as TE
from .events import BlindAgreed, BlindAsked, ConnectionMarked, PlayerSatOut, SeatOptionsSet
from .hand_flow import Scratch, require_seated
from .planning import BlindStepKind, blind_step

#: Why a seat was sat out before a hand (PlayerSatOut.reason).
AT_BIG_BLIND = "sat out at the big blind"
DECLINED_BLIND = "declined the blind"
BLIND_TIMED_OUT = "did not post the blind in time"


def set_seat_options(x: Scratch, c: tc.SetSeatOptions) -> None:
    s = x.s
    assert s.config is not None
    asked = (c.sit_out_next_big_blind, c.wait_for_big_blind, c.auto_post_blinds)
    if all(value is None for value in asked):
        raise InvalidCommand(TE.NO_SEAT_OPTION, "name at least one seat option to set")
    number = require_seated(s, c.player_id)
    seat = s.seats[number]
    if s.config.tournament and (c.sit_out_next_big_blind or c.auto_post_blinds is False):
        raise IllegalAction(
            TE.NOT_AT_TOURNAMENT, "a tournament's table posts every blind: no sitting out of them"
        )
    sit_out, wait, auto = asked
    new = SeatOptionsSet(
        number,
        seat.sit_out_next_big_blind if sit_out is None else sit_out,
        seat.wait_for_big_blind if wait is None else wait,
        seat.auto_post_blinds if auto is None else auto,
    )
    now = (seat.sit_out_next_big_blind, seat.wait_for_big_blind, seat.auto_post_blinds)
    if (new.sit_out_next_big_blind, new.wait_for_big_blind, new.auto_post_blinds) != now:
        x.emit(new)


def answer_blind(x: Scratch, c: tc.AnswerBlind) -> None:
    s = x.s
    number = require_seated(s, c.player_id)
    step = blind_step(s, c.now)
    if s.blind_seat != number or step is None or step.seat != number:
        raise IllegalAction(TE.NO_BLIND_DUE, "no blind is asked of you now")
    if c.post:
        x.emit(BlindAgreed(number))
    else:
        x.emit(PlayerSatOut(number, DECLINED_BLIND, c.player_id))


def settle_blinds(x: Scratch, now: float) -> None:
    """Between hands: what the blinds need before the next hand (``blind_step``), as many steps
    as are due now (a seat sat out moves the blinds on: the next seat may be asked in turn)."""
    s = x.s
    for _ in range(2 * len(s.seats) + 1):
        step = blind_step(s, now)
        if step is None or step.kind is BlindStepKind.WAIT:
            return
        player = s.seats[step.seat].player_id
        match step.kind:
            case BlindStepKind.SIT_OUT:
                x.emit(PlayerSatOut(step.seat, AT_BIG_BLIND, player))
            case BlindStepKind.TIMED_OUT:
                x.emit(PlayerSatOut(step.seat, BLIND_TIMED_OUT, player))
            case BlindStepKind.ASK:
                assert s.config is not None
                x.emit(BlindAsked(step.seat, now + s.config.blind_seconds))
                return


def mark_connection(x: Scratch, c: tc.MarkConnection) -> None:
    number = require_seated(x.s, c.player_id)
    seat = x.s.seats[number]
    if not seat.is_bot and seat.disconnected == c.connected:
        x.emit(ConnectionMarked(number, c.connected))
