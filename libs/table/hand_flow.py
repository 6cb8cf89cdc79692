"""Running the hand under the table, shared by every command's handler: ``Scratch`` (the private
copy a command is decided on, with the events so far); ``hand_step`` runs a hand command through
the engine, then starts the acting seat's clock, plays the turn of a leaving player or of an
auto-muck setting, answers for the seats asked to run the board again that do not choose
(``agree_for_seats``), shows at once a hand that must be shown to win, or at the hand's end lets the
leavers leave, sits out the busted, and closes a table whose room limit is reached or whose close
was asked for; ``clock_action`` and ``showdown_choice`` are what the table does for a player who
does not choose.
"""

from __future__ import annotations

from libs.poker import commands as hc
from libs.poker.config import Variant
from libs.poker.engine import step
from libs.poker.errors import IllegalAction
from libs.poker.evaluation import HandEvaluator
from libs.poker.legal import legal_actions, pots_of, showdown_turn
from libs.poker.state import HandState, Phase

from . import errors as TE
from .config import RABBIT_HUNT_SECONDS
from .events import (
    ClockStarted,
    Event,
    PlayerLeft,
    PlayerSatOut,
    RabbitHuntOpened,
    RunItClockStarted,
    TableClosed,
)
from .planning import room_limit_reached
from .state import TableState, apply


class Scratch:
    """A private copy of the state plus the events decided so far."""

    def __init__(self, state: TableState, evaluator: HandEvaluator) -> None:
        self.s = state.copy()
        self.events: list[Event] = []
        self.evaluator = evaluator

    def emit(self, event: Event) -> None:
        apply(self.s, event)
        self.events.append(event)


def shown_id(value: str) -> str:
    """An id as messages show it: what a caller sent is echoed at most 32 characters long."""
    return repr(value) if len(value) <= 32 else f"{value[:32]!r}..."


def require_seated(s: TableState, player_id: str) -> int:
    number = s.seat_of(player_id)
    if number is None:
        raise IllegalAction(TE.NOT_SEATED, f"{shown_id(player_id)} is not seated at this table")
    return number


def _beaten(hand: HandState, position: int, evaluator: HandEvaluator) -> bool:
    """Can ``position``'s hand win nothing at this showdown? True when, in every pot it is in,
    a hand already shown beats it (high-only variants; in hi-lo a hand is never judged beaten
    here, so it is shown)."""
    variant = hand.config.variant
    if variant is Variant.OMAHA_HI_LO:
        return False

    def value(p: int) -> int:
        if variant is Variant.HOLDEM:
            return evaluator.high(hand.hole[p] + tuple(hand.board))
        return evaluator.omaha_high(hand.hole[p], hand.board)

    mine = value(position)
    for pot in pots_of(hand):
        if position not in pot.eligible:
            continue
        shown = [q for q in pot.eligible if q != position and hand.shown[q] is not None]
        if not any(not hand.mucked[q] and value(q) > mine for q in shown):
            return False
    return True


def showdown_choice(hand: HandState, position: int, auto_muck: bool, x: Scratch) -> hc.Command:
    """What the table does for a player at their showdown turn when they do not choose (the clock
    ran out, or their auto-muck setting answers): muck a hand that cannot win when mucking is
    allowed, else show it."""
    turn = showdown_turn(hand)
    if auto_muck and turn is not None and turn.can_muck and _beaten(hand, position, x.evaluator):
        return hc.Muck(position)
    return hc.Show(position)


def clock_action(hand: HandState, position: int, x: Scratch | None = None) -> hc.Command:
    """What the clock (or a leaving player's turn) does: check if that is free, else fold; at a
    showdown, muck a hand that cannot win (when allowed), else show."""
    if x is not None and showdown_turn(hand) is not None:
        return showdown_choice(hand, position, True, x)
    options = legal_actions(hand)
    if options is not None and options.player == position and options.can_check:
        return hc.Check(position)
    return hc.Fold(position)


def hand_step(x: Scratch, command: hc.Command, now: float) -> None:
    """Run a hand command through the engine, then start the clock or finish the hand."""
    s = x.s
    assert s.hand is not None and s.config is not None
    _, events = step(s.hand, command, x.evaluator)
    for event in events:
        x.emit(event)
    if s.hand_in_progress:
        if s.hand.phase is Phase.AGREEING_RUNS:
            agree_for_seats(x, now)
            return
        acting = s.acting_seat()
        if acting is not None and s.hand.actor is not None:
            seat = s.seats[acting]
            # leaving players, away players at a tournament's table, and players sat out for a
            # disconnection (their protection is spent) fold (or check) when it is their turn:
            # no clock runs for them
            if seat.leaving or away(s, acting) or (seat.disconnected and seat.sitting_out):
                hand_step(x, clock_action(s.hand, s.hand.actor), now)
                return
            x.emit(ClockStarted(acting, now + s.config.action_seconds))
        elif acting is not None and not s.seats[acting].is_bot:  # a showdown turn
            # asked only when mucking is a real choice (a hand that cannot win and may be
            # mucked); a hand that must be shown to win is shown at once; the question has its
            # own short clock (no time bank: ``tick``)
            seat = s.seats[acting]
            position = s.position_of(acting)
            assert position is not None
            choice = showdown_choice(s.hand, position, True, x)
            if isinstance(choice, hc.Show) or seat.leaving or seat.auto_muck or away(s, acting):
                hand_step(x, choice, now)
                return
            x.emit(ClockStarted(acting, now + s.config.showdown_seconds))
        return
    _after_hand(x, now)


def agree_for_seats(x: Scratch, now: float) -> None:
    """The board may be run again: answer for every seat asked that does not choose (a seat with
    a run-it setting: that; a bot without one, a player leaving or sitting out: once), then
    start the short clock for the rest once (who has not answered by then runs it once)."""
    s = x.s
    assert s.hand is not None and s.config is not None
    for position in s.hand.run_asked:
        if s.hand.phase is not Phase.AGREEING_RUNS:
            return
        if s.hand.run_answers[position]:
            continue
        seat = s.seats[s.hand_seats[position]]
        if seat.leaving or seat.sitting_out:
            times = 1
        else:
            times = seat.run_it_times or (1 if seat.is_bot else 0)
        if times:
            _, events = step(s.hand, hc.AnswerRunIt(position, times), x.evaluator)
            for event in events:
                x.emit(event)
    if s.hand.phase is Phase.AGREEING_RUNS and not s.run_it_deadline:
        x.emit(RunItClockStarted(now + s.config.showdown_seconds))


def _after_hand(x: Scratch, now: float) -> None:
    s = x.s
    assert s.config is not None and s.hand is not None
    if s.config.rabbit_hunt and s.hand.street < 3 and not s.hand.voided:
        x.emit(RabbitHuntOpened(s.hand_id, now + RABBIT_HUNT_SECONDS))
    for number in sorted(s.seats):
        seat = s.seats[number]
        if seat.leaving:
            x.emit(PlayerLeft(number, seat.player_id, seat.stack, tournament_table(s)))
        elif seat.stack <= 0 and not seat.sitting_out:
            x.emit(PlayerSatOut(number, "no chips", seat.player_id, tournament_table(s)))
    limit = room_limit_reached(s, now)
    if limit is not None:
        emit_close(x, limit)


def emit_close(x: Scratch, reason: str) -> None:
    stacks = tuple((n, seat.player_id, seat.stack) for n, seat in sorted(x.s.seats.items()))
    x.emit(TableClosed(reason, stacks, tournament_table(x.s)))


def tournament_table(s: TableState) -> bool:
    """A tournament's table: its chips are the tournament's, no wallet's."""
    return s.config is not None and s.config.tournament


def away(s: TableState, number: int) -> bool:
    """Is seat ``number`` an away player at a tournament's table (sitting out: asked to, or timed
    out ``timeouts_before_sit_out`` times in a row)? They keep their seat and are blinded off:
    dealt in, they post their blinds and antes, and the table checks or folds for them at once
    when it is their turn (the clock's choice, without the clock); sitting in brings them back."""
    return tournament_table(s) and s.seats[number].sitting_out
