"""The commands of the hand in play: start a hand (``HandBegan`` and the forced bets), deal, act,
show or muck (and a voluntary show after the hand), the clock's tick (the time bank, then a
time-out: check or fold, and sit out after too many; a disconnected player: the time bank once,
then sat out at once; between hands, the blinds' steps), reveal the seed, void the hand, close the
table (at once, or at the hand's end).
"""

from __future__ import annotations

from dataclasses import replace
from typing import assert_never

from libs.poker import commands as hc
from libs.poker import errors as E
from libs.poker.engine import start_hand, step
from libs.poker.errors import IllegalAction, InvalidCommand
from libs.poker.legal import showdown_turn

from . import commands as tc
from . import errors as TE
from .bombpots import close_bomb_vote_if_due
from .config import check_prizes
from .events import (
    CloseRequested,
    HandBegan,
    HandReleased,
    PlayerSatOut,
    PlayerTimedOut,
    SeedRevealed,
    TimeBankStarted,
    TimeBankUsed,
)
from .extras import run_it_timeout
from .hand_flow import Scratch, clock_action, emit_close, hand_step, require_seated, shown_id
from .planning import plan_hand, start_hand_refusal
from .seat_options import settle_blinds


def begin_hand(x: Scratch, c: tc.StartHand) -> None:
    s = x.s
    close_bomb_vote_if_due(x, c.now)  # a vote whose clock ran out is refused before the hand
    refusal = start_hand_refusal(s, c.now)
    if refusal is not None:
        raise refusal
    plan = plan_hand(s)
    assert plan is not None
    x.emit(
        HandBegan(
            s.hands_started + 1,
            c.hand_id,
            plan.button,
            plan.seats,
            c.commitment,
            c.now,
            c.deck_id,
            plan.small_blind,
            plan.big_blind,
        )
    )
    for event in start_hand(plan.config, plan.stacks, c.hand_id):
        x.emit(event)


def deal(x: Scratch, c: tc.Deal) -> None:
    if not c.deals:
        raise InvalidCommand(E.BAD_CARDS, "nothing to deal")
    for deal in c.deals:
        if not x.s.hand_in_progress:
            raise IllegalAction(TE.NO_HAND, "no hand is in progress")
        hand_step(x, deal, c.now)


def _hand_action(position: int, action: tc.PlayerAction, amount: int) -> hc.Command:
    match action:
        case tc.PlayerAction.FOLD:
            return hc.Fold(position)
        case tc.PlayerAction.CHECK:
            return hc.Check(position)
        case tc.PlayerAction.CALL:
            return hc.Call(position)
        case tc.PlayerAction.BET | tc.PlayerAction.RAISE:
            return hc.BetOrRaise(position, amount)
        case tc.PlayerAction.ALL_IN:
            return hc.AllIn(position)
        case _:
            assert_never(action)


def act(x: Scratch, c: tc.Act) -> None:
    s = x.s
    if c.hand_id and (c.hand_id != s.hand_id or not s.hand_in_progress):
        raise IllegalAction(E.WRONG_HAND, f"hand {shown_id(c.hand_id)} is not in play")
    number = require_seated(s, c.player_id)
    position = s.position_of(number) if s.hand_in_progress else None
    if position is None:
        raise IllegalAction(TE.NOT_IN_HAND, f"{shown_id(c.player_id)} is not in the hand")
    command = _hand_action(position, c.action, c.amount)
    _use_time_bank(x, number, c.now)
    hand_step(x, command, c.now)


def show_or_muck(x: Scratch, c: tc.ShowOrMuck) -> None:
    s = x.s
    number = require_seated(s, c.player_id)
    position = s.position_of(number)
    if position is None or s.hand is None:
        raise IllegalAction(TE.NOT_IN_HAND, f"{shown_id(c.player_id)} is not in the hand")
    if c.hand_id and c.hand_id != s.hand_id:
        raise IllegalAction(E.WRONG_HAND, f"hand {shown_id(s.hand_id)} is the table's latest hand")
    command = hc.Show(position) if c.show else hc.Muck(position)
    if s.hand_in_progress:
        hand_step(x, command, c.now)
        return
    if not c.show:
        raise IllegalAction(E.HAND_OVER, "the hand is over: nothing to muck")
    _, events = step(s.hand, command, x.evaluator)  # a voluntary show after the hand
    for event in events:
        x.emit(event)


def _use_time_bank(x: Scratch, number: int, now: float) -> None:
    s = x.s
    if s.clock_seat == number and s.bank_started_at is not None:
        used = min(max(0.0, now - s.bank_started_at), s.seats[number].time_bank)
        x.emit(TimeBankUsed(number, used))


def tick(x: Scratch, c: tc.Tick) -> None:
    s = x.s
    assert s.config is not None
    close_bomb_vote_if_due(x, c.now)
    if run_it_timeout(x, c.now):  # the run-it question's own clock (no time bank, no time-out)
        return
    if not s.hand_in_progress:
        settle_blinds(x, c.now)  # sit out at the big blind; the blind question and its clock
        return
    number = s.clock_seat
    if number is None or c.now < s.deadline or s.hand is None:
        return  # nothing is due
    seat = s.seats[number]
    # the showdown's question (show or muck a beaten hand) has its own short clock: it spends no
    # time bank, and its answer by the clock is no time-out (it never sits anyone out)
    showdown = showdown_turn(s.hand) is not None
    # disconnect protection: a disconnected player's turn gets the time bank once (until they
    # reconnect), then they are folded (checked when that is free) and sat out at once
    gone = seat.disconnected
    banked = gone and seat.disconnect_bank_used
    if not showdown and s.bank_started_at is None and seat.time_bank > 0 and not banked:
        x.emit(TimeBankStarted(number, s.deadline + seat.time_bank))
        return
    if s.bank_started_at is not None:
        x.emit(TimeBankUsed(number, seat.time_bank))
    if not showdown:
        x.emit(PlayerTimedOut(number))
    position = s.position_of(number)
    assert position is not None
    hand_step(x, clock_action(s.hand, position, x), c.now)
    if (
        not showdown
        and number in s.seats
        and not s.seats[number].sitting_out
        and (gone or s.seats[number].timeouts >= s.config.timeouts_before_sit_out)
    ):
        reason = "disconnected" if gone else "timed out"
        x.emit(PlayerSatOut(number, reason, s.seats[number].player_id))


def release(x: Scratch, c: tc.ReleaseHand) -> None:
    """A tournament's next hand, at its blinds; a hand released or dealt already: nothing."""
    s = x.s
    assert s.config is not None
    if not s.config.tournament:
        raise IllegalAction(
            TE.NOT_A_TOURNAMENT_TABLE, "hands are released only at a tournament's table"
        )
    if c.number <= max(s.released, s.hands_started):
        return  # a repeat (the director redoing what it did before a crash)
    if s.hand_in_progress:
        raise IllegalAction(TE.HAND_IN_PROGRESS, "a hand is released between hands")
    if c.number != s.hands_started + 1:
        raise IllegalAction(
            TE.NO_HAND, f"hand {c.number} cannot be released: {s.hands_started} dealt here"
        )
    replace(  # checks the blinds
        s.config,
        small_blind=c.small_blind,
        big_blind=c.big_blind,
        ante=c.ante,
        big_blind_ante=c.big_blind_ante,
    )
    check_prizes(c.payouts, c.others)
    x.emit(
        HandReleased(
            c.number, c.small_blind, c.big_blind, c.ante, c.big_blind_ante, c.payouts, c.others
        )
    )


def reveal(x: Scratch, c: tc.RevealSeed) -> None:
    s = x.s
    if c.hand_id != s.hand_id or s.hand_in_progress:
        raise IllegalAction(E.WRONG_HAND, "seeds are revealed only for the hand that just ended")
    x.emit(SeedRevealed(c.hand_id, c.seed))


def void(x: Scratch, c: tc.VoidCurrentHand) -> None:
    if not x.s.hand_in_progress:
        raise IllegalAction(TE.NO_HAND, "no hand is in progress")
    hand_step(x, hc.VoidHand(c.reason), c.now)


def close(x: Scratch, c: tc.CloseTable) -> None:
    """At once between hands; during a hand, kept (``CloseRequested``): the table closes at the
    hand's end (``hand_flow``, as at a room limit) and no hand starts meanwhile."""
    if x.s.hand_in_progress:
        x.emit(CloseRequested(c.reason or "closed"))
        return
    emit_close(x, c.reason)
