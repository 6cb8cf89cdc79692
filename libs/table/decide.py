"""``decide(state, command) -> events``: each table command's rules, one handler per command.

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
"""

from __future__ import annotations

from typing import assert_never

from libs.poker import commands as hc
from libs.poker import errors as E
from libs.poker.config import Variant
from libs.poker.engine import start_hand, step
from libs.poker.errors import IllegalAction, InvalidCommand
from libs.poker.evaluation import DEFAULT_EVALUATOR, HandEvaluator
from libs.poker.legal import legal_actions, pots_of, showdown_turn
from libs.poker.state import HandState

from . import commands as tc
from . import errors as TE
from .config import BotDifficulty
from .events import (
    AutoMuckSet,
    ChipsAdded,
    ClockStarted,
    CloseRequested,
    Event,
    HandBegan,
    LeaveRequested,
    PlayerLeft,
    PlayerSatIn,
    PlayerSatOut,
    PlayerSeated,
    PlayerTimedOut,
    SeedRevealed,
    TableClosed,
    TableOpened,
    TimeBankStarted,
    TimeBankUsed,
)
from .planning import free_seat, plan_hand, room_limit_reached, start_hand_refusal
from .state import TableState, apply


class _Scratch:
    """A private copy of the state plus the events decided so far."""

    def __init__(self, state: TableState, evaluator: HandEvaluator) -> None:
        self.s = state.copy()
        self.events: list[Event] = []
        self.evaluator = evaluator

    def emit(self, event: Event) -> None:
        apply(self.s, event)
        self.events.append(event)


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


def _decide(state: TableState, command: tc.TableCommand, evaluator: HandEvaluator) -> _Scratch:
    if isinstance(command, tc.OpenTable):
        if state.config is not None:
            raise IllegalAction(TE.ALREADY_OPEN, f"table {_id(state.table_id)} is already open")
        x = _Scratch(state, evaluator)
        x.emit(TableOpened(command.table_id, command.config, command.now))
        return x
    if state.config is None:
        raise IllegalAction(TE.TABLE_NOT_FOUND, "the table is not open")
    if state.closed and not isinstance(command, tc.RevealSeed):  # the last hand's seed still shows
        raise IllegalAction(TE.TABLE_CLOSED, "the table is closed")
    x = _Scratch(state, evaluator)
    match command:
        case tc.SitDown():
            _sit_down(x, command)
        case tc.Leave():
            _leave(x, command)
        case tc.SitOut():
            _sit_out(x, command)
        case tc.SitIn():
            _sit_in(x, command)
        case tc.AddChips():
            _add_chips(x, command)
        case tc.StartHand():
            _start_hand(x, command)
        case tc.Deal():
            _deal(x, command)
        case tc.Act():
            _act(x, command)
        case tc.ShowOrMuck():
            _show_or_muck(x, command)
        case tc.SetAutoMuck():
            _set_auto_muck(x, command)
        case tc.Tick():
            _tick(x, command)
        case tc.RevealSeed():
            _reveal(x, command)
        case tc.VoidCurrentHand():
            _void(x, command)
        case tc.CloseTable():
            _close(x, command)
        case _:
            assert_never(command)
    return x


def _id(value: str) -> str:
    """An id as messages show it: what a caller sent is echoed at most 32 characters long."""
    return repr(value) if len(value) <= 32 else f"{value[:32]!r}..."


def _require_seated(s: TableState, player_id: str) -> int:
    number = s.seat_of(player_id)
    if number is None:
        raise IllegalAction(TE.NOT_SEATED, f"{_id(player_id)} is not seated at this table")
    return number


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


def _sit_down(x: _Scratch, c: tc.SitDown) -> None:
    s = x.s
    assert s.config is not None
    number = free_seat(s) if c.seat is None else c.seat
    if not 0 <= number < s.config.seats:
        raise InvalidCommand(TE.NO_SUCH_SEAT, f"seats are numbered 0..{s.config.seats - 1}")
    if number in s.seats:
        raise IllegalAction(TE.SEAT_TAKEN, f"seat {number} is taken")
    if s.seat_of(c.player_id) is not None:
        raise IllegalAction(TE.ALREADY_SEATED, f"{_id(c.player_id)} already has a seat here")
    if not s.config.min_buy_in <= c.buy_in <= s.config.max_buy_in:
        raise InvalidCommand(
            TE.BUY_IN_OUT_OF_RANGE,
            f"the buy-in must be within {s.config.min_buy_in}..{s.config.max_buy_in}",
        )
    starting = s.hands_started == 0 or _active_count(s) < 2
    x.emit(
        PlayerSeated(
            number,
            c.player_id,
            c.buy_in,
            waits_for_big_blind=not starting and not c.post_entry_bet,
            posts_entry_bet=not starting and c.post_entry_bet,
            is_bot=c.is_bot,
            bot_difficulty=(c.bot_difficulty or BotDifficulty.NORMAL) if c.is_bot else None,
        )
    )


def _leave(x: _Scratch, c: tc.Leave) -> None:
    s = x.s
    number = _require_seated(s, c.player_id)
    position = s.position_of(number) if s.hand_in_progress else None
    if position is not None and s.hand is not None:
        # Dealt into the hand in play (folded or not): the seat stays until the hand ends, so
        # its stack is settled with the hand (a folded player's chips are in the pot) and the
        # hand's seats all exist when it ends; then PlayerLeft (see _after_hand).
        x.emit(LeaveRequested(number))
        turn = showdown_turn(s.hand)
        folded = s.hand.folded[position]
        if not folded and (
            s.hand.actor == position or (turn is not None and turn.player == position)
        ):
            _hand_step(x, _clock_action(s.hand, position, x), c.now)
        return
    x.emit(PlayerLeft(number, c.player_id, s.seats[number].stack))


def _sit_out(x: _Scratch, c: tc.SitOut) -> None:
    number = _require_seated(x.s, c.player_id)
    if x.s.seats[number].sitting_out:
        raise IllegalAction(TE.ALREADY_SITTING_OUT, "you are already sitting out")
    x.emit(PlayerSatOut(number, "asked", c.player_id))


def _sit_in(x: _Scratch, c: tc.SitIn) -> None:
    s = x.s
    number = _require_seated(s, c.player_id)
    if not s.seats[number].sitting_out:
        raise IllegalAction(TE.NOT_SITTING_OUT, "you are not sitting out")
    if s.seats[number].stack <= 0:
        raise IllegalAction(E.ABOVE_STACK, "you have no chips: leave and buy in again")
    seat = s.seats[number]
    owes = seat.missed_big_blind and _active_count(s, excluding=number) >= 2
    x.emit(
        PlayerSatIn(
            number,
            waits_for_big_blind=owes and not c.post_entry_bet,
            posts_entry_bet=owes and c.post_entry_bet,
            posts_dead_small_blind=owes and c.post_entry_bet and seat.missed_small_blind,
        )
    )


def _add_chips(x: _Scratch, c: tc.AddChips) -> None:
    s = x.s
    assert s.config is not None
    number = _require_seated(s, c.player_id)
    if s.hand_in_progress and s.position_of(number) is not None:
        raise IllegalAction(TE.HAND_IN_PROGRESS, "chips are added between your hands")
    if c.amount <= 0 or s.seats[number].stack + c.amount > s.config.max_buy_in:
        raise InvalidCommand(
            TE.BUY_IN_OUT_OF_RANGE,
            f"after a top-up a stack holds at most {s.config.max_buy_in} (the maximum buy-in)",
        )
    x.emit(ChipsAdded(number, c.player_id, c.amount))


def _start_hand(x: _Scratch, c: tc.StartHand) -> None:
    s = x.s
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


def _deal(x: _Scratch, c: tc.Deal) -> None:
    if not c.deals:
        raise InvalidCommand(E.BAD_CARDS, "nothing to deal")
    for deal in c.deals:
        if not x.s.hand_in_progress:
            raise IllegalAction(TE.NO_HAND, "no hand is in progress")
        _hand_step(x, deal, c.now)


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


def _act(x: _Scratch, c: tc.Act) -> None:
    s = x.s
    if c.hand_id and (c.hand_id != s.hand_id or not s.hand_in_progress):
        raise IllegalAction(E.WRONG_HAND, f"hand {_id(c.hand_id)} is not in play")
    number = _require_seated(s, c.player_id)
    position = s.position_of(number) if s.hand_in_progress else None
    if position is None:
        raise IllegalAction(TE.NOT_IN_HAND, f"{_id(c.player_id)} is not in the hand")
    command = _hand_action(position, c.action, c.amount)
    _use_time_bank(x, number, c.now)
    _hand_step(x, command, c.now)


def _show_or_muck(x: _Scratch, c: tc.ShowOrMuck) -> None:
    s = x.s
    number = _require_seated(s, c.player_id)
    position = s.position_of(number)
    if position is None or s.hand is None:
        raise IllegalAction(TE.NOT_IN_HAND, f"{_id(c.player_id)} is not in the hand")
    if c.hand_id and c.hand_id != s.hand_id:
        raise IllegalAction(E.WRONG_HAND, f"hand {_id(s.hand_id)} is the table's latest hand")
    command = hc.Show(position) if c.show else hc.Muck(position)
    if s.hand_in_progress:
        _hand_step(x, command, c.now)
        return
    if not c.show:
        raise IllegalAction(E.HAND_OVER, "the hand is over: nothing to muck")
    _, events = step(s.hand, command, x.evaluator)  # a voluntary show after the hand
    for event in events:
        x.emit(event)


def _set_auto_muck(x: _Scratch, c: tc.SetAutoMuck) -> None:
    number = _require_seated(x.s, c.player_id)
    if x.s.seats[number].auto_muck != c.auto_muck:
        x.emit(AutoMuckSet(number, c.auto_muck))


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


def _showdown_choice(hand: HandState, position: int, auto_muck: bool, x: _Scratch) -> hc.Command:
    """What the table does for a player at their showdown turn when they do not choose (the clock
    ran out, or their auto-muck setting answers): muck a hand that cannot win when mucking is
    allowed, else show it."""
    turn = showdown_turn(hand)
    if auto_muck and turn is not None and turn.can_muck and _beaten(hand, position, x.evaluator):
        return hc.Muck(position)
    return hc.Show(position)


def _use_time_bank(x: _Scratch, number: int, now: float) -> None:
    s = x.s
    if s.clock_seat == number and s.bank_started_at is not None:
        used = min(max(0.0, now - s.bank_started_at), s.seats[number].time_bank)
        x.emit(TimeBankUsed(number, used))


def _clock_action(hand: HandState, position: int, x: _Scratch | None = None) -> hc.Command:
    """What the clock (or a leaving player's turn) does: check if that is free, else fold; at a
    showdown, muck a hand that cannot win (when allowed), else show."""
    if x is not None and showdown_turn(hand) is not None:
        return _showdown_choice(hand, position, True, x)
    options = legal_actions(hand)
    if options is not None and options.player == position and options.can_check:
        return hc.Check(position)
    return hc.Fold(position)


def _tick(x: _Scratch, c: tc.Tick) -> None:
    s = x.s
    assert s.config is not None
    number = s.clock_seat
    if number is None or c.now < s.deadline or s.hand is None:
        return  # nothing is due
    seat = s.seats[number]
    if s.bank_started_at is None and seat.time_bank > 0:
        x.emit(TimeBankStarted(number, s.deadline + seat.time_bank))
        return
    if s.bank_started_at is not None:
        x.emit(TimeBankUsed(number, seat.time_bank))
    x.emit(PlayerTimedOut(number))
    position = s.position_of(number)
    assert position is not None
    _hand_step(x, _clock_action(s.hand, position, x), c.now)
    if (
        number in s.seats
        and not s.seats[number].sitting_out
        and s.seats[number].timeouts >= s.config.timeouts_before_sit_out
    ):
        x.emit(PlayerSatOut(number, "timed out", s.seats[number].player_id))


def _reveal(x: _Scratch, c: tc.RevealSeed) -> None:
    s = x.s
    if c.hand_id != s.hand_id or s.hand_in_progress:
        raise IllegalAction(E.WRONG_HAND, "seeds are revealed only for the hand that just ended")
    x.emit(SeedRevealed(c.hand_id, c.seed))


def _void(x: _Scratch, c: tc.VoidCurrentHand) -> None:
    if not x.s.hand_in_progress:
        raise IllegalAction(TE.NO_HAND, "no hand is in progress")
    _hand_step(x, hc.VoidHand(c.reason), c.now)


def _close(x: _Scratch, c: tc.CloseTable) -> None:
    """At once between hands; during a hand, kept (``CloseRequested``): the table closes at the
    hand's end (``_after_hand``, as at a room limit) and no hand starts meanwhile."""
    if x.s.hand_in_progress:
        x.emit(CloseRequested(c.reason or "closed"))
        return
    _emit_close(x, c.reason)


def _emit_close(x: _Scratch, reason: str) -> None:
    stacks = tuple((n, seat.player_id, seat.stack) for n, seat in sorted(x.s.seats.items()))
    x.emit(TableClosed(reason, stacks))


def _hand_step(x: _Scratch, command: hc.Command, now: float) -> None:
    """Run a hand command through the engine, then start the clock or finish the hand."""
    s = x.s
    assert s.hand is not None and s.config is not None
    _, events = step(s.hand, command, x.evaluator)
    for event in events:
        x.emit(event)
    if s.hand_in_progress:
        acting = s.acting_seat()
        if acting is not None and s.hand.actor is not None:
            if s.seats[acting].leaving:  # leaving players fold (or check) when it is their turn
                _hand_step(x, _clock_action(s.hand, s.hand.actor), now)
                return
            x.emit(ClockStarted(acting, now + s.config.action_seconds))
        elif acting is not None and not s.seats[acting].is_bot:  # a showdown turn
            seat = s.seats[acting]
            position = s.position_of(acting)
            assert position is not None
            if seat.leaving or seat.auto_muck:
                choice = _showdown_choice(s.hand, position, True, x)
                if seat.leaving or isinstance(choice, hc.Muck):
                    _hand_step(x, choice, now)
                    return
            x.emit(ClockStarted(acting, now + s.config.action_seconds))
        return
    _after_hand(x, now)


def _after_hand(x: _Scratch, now: float) -> None:
    s = x.s
    for number in sorted(s.seats):
        seat = s.seats[number]
        if seat.leaving:
            x.emit(PlayerLeft(number, seat.player_id, seat.stack))
        elif seat.stack <= 0 and not seat.sitting_out:
            x.emit(PlayerSatOut(number, "no chips", seat.player_id))
    limit = room_limit_reached(s, now)
    if limit is not None:
        _emit_close(x, limit)
