"""``decide(state, command) -> events``: each table command's rules, one handler per command
(``seating`` for the seats, ``hand_commands`` for the hand and the clock, ``extras`` for run it
twice and the rabbit hunt, ``bombpots`` for the straddle setting and the bomb-pot vote, all
running the hand through ``hand_flow``); this module opens the
table and sends every other command to its handler.

Choices where the rules are silent (documented here, tested in tests/table):
- Until the first hand, and while fewer than two players are active, a new player is active at
  once (no entry bet). Later, a new player either posts an entry bet (a live big blind, in
  the next hand) or waits until the big blind reaches their seat.
- A player who sat out while the big blind passed their seat comes back by posting the missed big
  blind live (and a missed small blind dead), or by waiting for the big blind; one who missed no
  blind plays at once.
- The button moves to the next active seat clockwise every hand; heads-up the button posts the
  small blind.
- A player who asks to leave during a hand folds when it is their turn and leaves at its end;
  players left with no chips are sat out.
- When the clock runs out, the player checks if checking is free, else folds.
- Sitting out and blinds (``seat_options``): a seat set to sit out next big blind sits out
  just before the hand in which it would post it; a seat with auto-post off is asked before
  each blind, with a short clock, then sat out; a disconnected player's turn gets the time bank
  once, then they are folded and sat out.
"""

from __future__ import annotations

from typing import assert_never

from libs.poker.errors import IllegalAction
from libs.poker.evaluation import DEFAULT_EVALUATOR, HandEvaluator

from . import bombpots, extras, hand_commands, seat_options, seating
from . import commands as tc
from . import errors as TE
from .events import Event, TableOpened
from .hand_flow import Scratch, shown_id
from .state import TableState


def decide(
    state: TableState, command: tc.TableCommand, evaluator: HandEvaluator = DEFAULT_EVALUATOR
) -> list[Event]:
    """Validate ``command`` and return the events it causes; ``state`` is never changed.
    ``evaluator`` ranks the hands of a showdown the command leads to."""
    return _decide(state, command, evaluator).events


def step_table(
    state: TableState, command: tc.TableCommand, evaluator: HandEvaluator = DEFAULT_EVALUATOR
) -> tuple[TableState, list[Event]]:
    """``decide`` and ``evolve`` at once."""
    scratch = _decide(state, command, evaluator)
    return scratch.s, scratch.events


def _decide(state: TableState, command: tc.TableCommand, evaluator: HandEvaluator) -> Scratch:
    if isinstance(command, tc.OpenTable):
        if state.config is not None:
            raise IllegalAction(
                TE.ALREADY_OPEN, f"table {shown_id(state.table_id)} is already open"
            )
        x = Scratch(state, evaluator)
        x.emit(TableOpened(command.table_id, command.config, command.now))
        for seat in command.seats:
            seating.sit_down(x, seat)
        return x
    if state.config is None:
        raise IllegalAction(TE.TABLE_NOT_FOUND, "the table is not open")
    if state.closed and not isinstance(command, tc.RevealSeed):  # the last hand's seed still shows
        raise IllegalAction(TE.TABLE_CLOSED, "the table is closed")
    x = Scratch(state, evaluator)
    match command:
        case tc.SitDown():
            seating.sit_down(x, command)
        case tc.Leave():
            seating.leave(x, command)
        case tc.SitOut():
            seating.sit_out(x, command)
        case tc.SitIn():
            seating.sit_in(x, command)
        case tc.AddChips():
            seating.add_chips(x, command)
        case tc.StartHand():
            hand_commands.begin_hand(x, command)
        case tc.ReleaseHand():
            hand_commands.release(x, command)
        case tc.Deal():
            hand_commands.deal(x, command)
        case tc.Act():
            hand_commands.act(x, command)
        case tc.ShowOrMuck():
            hand_commands.show_or_muck(x, command)
        case tc.SetAutoMuck():
            seating.set_auto_muck(x, command)
        case tc.Tick():
            hand_commands.tick(x, command)
        case tc.RevealSeed():
            hand_commands.reveal(x, command)
        case tc.VoidCurrentHand():
            hand_commands.void(x, command)
        case tc.CloseTable():
            hand_commands.close(x, command)
        case tc.ChangeSeat():
            seating.change_seat(x, command)
        case tc.SetRunItTimes():
            extras.set_run_it_times(x, command)
        case tc.AnswerRunIt():
            extras.answer_run_it(x, command)
        case tc.RabbitHunt():
            extras.rabbit_hunt(x, command)
        case tc.SetStraddle():
            bombpots.set_straddle(x, command)
        case tc.VoteBombPot():
            bombpots.vote_bomb_pot(x, command)
        case tc.SetSeatOptions():
            seat_options.set_seat_options(x, command)
        case tc.AnswerBlind():
            seat_options.answer_blind(x, command)
        case tc.MarkConnection():
            seat_options.mark_connection(x, command)
        case _:
            assert_never(command)
    return x
