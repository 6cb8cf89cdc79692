"""The seating commands: sit down (a newcomer's entry bet or wait for the big blind), leave (at
once, or at the hand's end when dealt in), sit out and sit in (the missed blinds owed), add chips
(a top-up between the seat's hands), the auto-muck setting, and a seat change (between the
player's hands; they wait for the big blind at the new seat once hands are being dealt).
"""

from __future__ import annotations

from libs.poker import errors as E
from libs.poker.errors import IllegalAction, InvalidCommand
from libs.poker.legal import showdown_turn

from . import commands as tc
from . import errors as TE
from .config import BotDifficulty
from .events import (
    AutoMuckSet,
    ChipsAdded,
    LeaveRequested,
    PlayerLeft,
    PlayerSatIn,
    PlayerSatOut,
    PlayerSeated,
    SeatChanged,
)
from .hand_flow import (
    Scratch,
    away,
    clock_action,
    hand_step,
    require_seated,
    shown_id,
    tournament_table,
)
from .planning import free_seat
from .state import TableState


def _active_count(s: TableState, excluding: int | None = None) -> int:
    return sum(
        1
        for n, seat in s.seats.items()
        if n != excluding
        and not seat.sitting_out
        and not seat.waiting_for_big_blind
        and not seat.leaving
        and seat.stack > 0
    )


def sit_down(x: Scratch, c: tc.SitDown) -> None:
    s = x.s
    assert s.config is not None
    number = free_seat(s) if c.seat is None else c.seat
    if not 0 <= number < s.config.seats:
        raise InvalidCommand(TE.NO_SUCH_SEAT, f"seats are numbered 0..{s.config.seats - 1}")
    if number in s.seats:
        raise IllegalAction(TE.SEAT_TAKEN, f"seat {number} is taken")
    if s.seat_of(c.player_id) is not None:
        raise IllegalAction(TE.ALREADY_SEATED, f"{shown_id(c.player_id)} already has a seat here")
    if not s.config.min_buy_in <= c.buy_in <= s.config.max_buy_in:
        raise InvalidCommand(
            TE.BUY_IN_OUT_OF_RANGE,
            f"the buy-in must be within {s.config.min_buy_in}..{s.config.max_buy_in}",
        )
    # a tournament's player is dealt in at once (the tournament chose the seat: no blind saved)
    starting = s.hands_started == 0 or _active_count(s) < 2 or s.config.tournament
    x.emit(
        PlayerSeated(
            number,
            c.player_id,
            c.buy_in,
            waits_for_big_blind=not starting and not c.post_entry_bet,
            posts_entry_bet=not starting and c.post_entry_bet,
            is_bot=c.is_bot,
            bot_difficulty=(c.bot_difficulty or BotDifficulty.NORMAL) if c.is_bot else None,
            display_name=c.display_name,
        )
    )


def leave(x: Scratch, c: tc.Leave) -> None:
    s = x.s
    number = require_seated(s, c.player_id)
    position = s.position_of(number) if s.hand_in_progress else None
    if position is not None and s.hand is not None:
        # Dealt into the hand in play (folded or not): the seat stays until the hand ends, so
        # its stack is settled with the hand (a folded player's chips are in the pot) and the
        # hand's seats all exist when it ends; then PlayerLeft (hand_flow).
        x.emit(LeaveRequested(number))
        turn = showdown_turn(s.hand)
        folded = s.hand.folded[position]
        if not folded and (
            s.hand.actor == position or (turn is not None and turn.player == position)
        ):
            hand_step(x, clock_action(s.hand, position, x), c.now)
        return
    x.emit(PlayerLeft(number, c.player_id, s.seats[number].stack, tournament_table(s)))


def sit_out(x: Scratch, c: tc.SitOut) -> None:
    s = x.s
    number = require_seated(s, c.player_id)
    if s.seats[number].sitting_out:
        raise IllegalAction(TE.ALREADY_SITTING_OUT, "you are already sitting out")
    x.emit(PlayerSatOut(number, "asked", c.player_id))
    if away(s, number) and s.hand is not None and s.acting_seat() == number:
        position = s.position_of(number)  # away at their own turn: the table acts at once
        assert position is not None
        hand_step(x, clock_action(s.hand, position, x), c.now)


def sit_in(x: Scratch, c: tc.SitIn) -> None:
    s = x.s
    number = require_seated(s, c.player_id)
    if not s.seats[number].sitting_out:
        raise IllegalAction(TE.NOT_SITTING_OUT, "you are not sitting out")
    if s.seats[number].stack <= 0:
        raise IllegalAction(E.ABOVE_STACK, "you have no chips: leave and buy in again")
    seat = s.seats[number]
    owes = seat.missed_big_blind and _active_count(s, excluding=number) >= 2
    post = not seat.wait_for_big_blind if c.post_entry_bet is None else c.post_entry_bet
    x.emit(
        PlayerSatIn(
            number,
            waits_for_big_blind=owes and not post,
            posts_entry_bet=owes and post,
            posts_dead_small_blind=owes and post and seat.missed_small_blind,
        )
    )


def add_chips(x: Scratch, c: tc.AddChips) -> None:
    s = x.s
    assert s.config is not None
    number = require_seated(s, c.player_id)
    if s.hand_in_progress and s.position_of(number) is not None:
        raise IllegalAction(TE.HAND_IN_PROGRESS, "chips are added between your hands")
    if c.amount <= 0 or s.seats[number].stack + c.amount > s.config.max_buy_in:
        raise InvalidCommand(
            TE.BUY_IN_OUT_OF_RANGE,
            f"after a top-up a stack holds at most {s.config.max_buy_in} (the maximum buy-in)",
        )
    x.emit(ChipsAdded(number, c.player_id, c.amount))


def set_auto_muck(x: Scratch, c: tc.SetAutoMuck) -> None:
    number = require_seated(x.s, c.player_id)
    if x.s.seats[number].auto_muck != c.auto_muck:
        x.emit(AutoMuckSet(number, c.auto_muck))


def change_seat(x: Scratch, c: tc.ChangeSeat) -> None:
    s = x.s
    assert s.config is not None
    number = require_seated(s, c.player_id)
    if s.config.tournament:
        raise IllegalAction(
            TE.TOURNAMENT_TABLE, "the tournament seats its players: no seat changes at its tables"
        )
    if not 0 <= c.seat < s.config.seats:
        raise InvalidCommand(TE.NO_SUCH_SEAT, f"seats are numbered 0..{s.config.seats - 1}")
    if c.seat == number:
        raise IllegalAction(TE.SEAT_TAKEN, f"you are in seat {number} already")
    if c.seat in s.seats:
        raise IllegalAction(TE.SEAT_TAKEN, f"seat {c.seat} is taken")
    if s.hand_in_progress and s.position_of(number) is not None:
        raise IllegalAction(TE.HAND_IN_PROGRESS, "seats are changed between your hands")
    seat = s.seats[number]
    playing = s.hands_started > 0 and _active_count(s, excluding=number) >= 2
    waits = playing and not seat.sitting_out
    x.emit(SeatChanged(number, c.seat, c.player_id, waits_for_big_blind=waits))
