"""The table aggregate: ``decide(state, command) -> events`` and ``evolve(state, event) -> state``.

It owns seating and leaving, buy-ins, entry bets and waiting for the big blind, sitting out and
in, the button, when a hand may start, the action clock with a time bank, room limits and voiding.
The hand itself is libs.poker's: the table maps seats to hand positions (position 0 is the first
seat left of the button, the button is last) and passes commands through.

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
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field

from libs.poker import commands as hc
from libs.poker import errors as E
from libs.poker.config import BettingStructure, HandConfig
from libs.poker.engine import legal_actions, showdown_turn, start_hand, step
from libs.poker.errors import IllegalAction, InvalidCommand
from libs.poker.evaluation import DEFAULT_EVALUATOR, HandEvaluator
from libs.poker.events import ActionTaken, HandEnded, HandStarted, HandVoided
from libs.poker.events import Event as HandEvent
from libs.poker.state import HandState, initial_state
from libs.poker.state import apply as apply_hand_event

from . import commands as tc
from .config import TableConfig
from .events import (
    ClockStarted,
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

# Stable error codes of the table (the engine's come from libs.poker.errors).
TABLE_NOT_OPEN = "TABLE_NOT_OPEN"
TABLE_CLOSED = "TABLE_CLOSED"
ALREADY_OPEN = "ALREADY_OPEN"
SEAT_TAKEN = "SEAT_TAKEN"
NO_SUCH_SEAT = "NO_SUCH_SEAT"
ALREADY_SEATED = "ALREADY_SEATED"
NOT_SEATED = "NOT_SEATED"
BUY_IN_OUT_OF_RANGE = "BUY_IN_OUT_OF_RANGE"
NOT_IN_HAND = "NOT_IN_HAND"
HAND_IN_PROGRESS = "HAND_IN_PROGRESS"
NO_HAND = "NO_HAND"
NOT_ENOUGH_PLAYERS = "NOT_ENOUGH_PLAYERS"
ALREADY_SITTING_OUT = "ALREADY_SITTING_OUT"
NOT_SITTING_OUT = "NOT_SITTING_OUT"
UNKNOWN_ACTION = "UNKNOWN_ACTION"


@dataclass
class Seat:
    player_id: str
    stack: int  # between hands; during a hand the hand state holds the live stack
    waiting_for_big_blind: bool = False
    entry_due: bool = False
    sitting_out: bool = False
    leaving: bool = False
    is_bot: bool = False
    time_bank: float = 0.0
    timeouts: int = 0
    missed_small_blind: bool = False
    missed_big_blind: bool = False
    dead_small_due: bool = False


@dataclass
class TableState:
    table_id: str = ""
    config: TableConfig | None = None
    opened_at: float = 0.0
    seats: dict[int, Seat] = field(default_factory=dict)
    button: int | None = None
    last_small_blind: int | None = None
    last_big_blind: int | None = None
    hands_started: int = 0
    hand: HandState | None = None
    hand_id: str = ""
    hand_seats: tuple[int, ...] = ()
    commitment: str = ""
    deck_id: str = ""
    clock_seat: int | None = None
    deadline: float = 0.0
    bank_started_at: float | None = None  # when the time bank began running for this decision
    forced_seat: int | None = None  # the clock is acting for this seat
    revealed_seeds: dict[str, str] = field(default_factory=dict)
    closed: bool = False

    @property
    def hand_in_progress(self) -> bool:
        return self.hand is not None and not self.hand.is_complete

    def seat_of(self, player_id: str) -> int | None:
        for number, seat in self.seats.items():
            if seat.player_id == player_id:
                return number
        return None

    def position_of(self, seat: int) -> int | None:
        try:
            return self.hand_seats.index(seat)
        except ValueError:
            return None

    def acting_seat(self) -> int | None:
        """The seat whose decision the hand waits for (betting or showdown), if any."""
        if not self.hand_in_progress or self.hand is None:
            return None
        actor = self.hand.actor
        if actor is None:
            turn = showdown_turn(self.hand)
            actor = turn.player if turn else None
        return None if actor is None else self.hand_seats[actor]

    def total_chips(self) -> int:
        """Chips at the table: seat stacks, or the hand's view of them while it runs."""
        if self.hand_in_progress and self.hand is not None:
            dealt = set(self.hand_seats)
            outside = sum(s.stack for n, s in self.seats.items() if n not in dealt)
            h = self.hand
            return outside + sum(h.stacks) + sum(h.bets) + h.pot + h.rake
        return sum(s.stack for s in self.seats.values())


# --------------------------------------------------------------------------- evolve


def evolve(state: TableState, event: Event) -> TableState:
    new = copy.deepcopy(state)
    apply(new, event)
    return new


def replay(events: list[Event]) -> TableState:
    state = TableState()
    for event in events:
        apply(state, event)
    return state


def apply(s: TableState, event: Event) -> None:
    if isinstance(event, TableOpened):
        s.table_id, s.config, s.opened_at = event.table_id, event.config, event.at
    elif isinstance(event, PlayerSeated):
        assert s.config is not None
        s.seats[event.seat] = Seat(
            event.player_id,
            event.stack,
            waiting_for_big_blind=event.waits_for_big_blind,
            entry_due=event.posts_entry_bet,
            is_bot=event.is_bot,
            time_bank=s.config.time_bank_seconds,
        )
    elif isinstance(event, PlayerLeft):
        s.seats.pop(event.seat, None)
    elif isinstance(event, PlayerSatOut):
        s.seats[event.seat].sitting_out = True
    elif isinstance(event, PlayerSatIn):
        seat = s.seats[event.seat]
        seat.sitting_out = False
        seat.timeouts = 0
        seat.waiting_for_big_blind = event.waits_for_big_blind
        seat.entry_due = event.posts_entry_bet
        seat.dead_small_due = event.posts_dead_small_blind
    elif isinstance(event, LeaveRequested):
        s.seats[event.seat].leaving = True
    elif isinstance(event, HandBegan):
        if s.config is not None and event.big_blind_seat >= 0:
            _mark_missed_blinds(s, event, s.config.seats)
        s.hands_started = event.hand_number
        s.hand_id, s.button, s.hand_seats = event.hand_id, event.button, event.seats
        s.commitment, s.deck_id = event.commitment, event.deck_id
        for number in event.seats:
            seat = s.seats[number]
            seat.waiting_for_big_blind = seat.entry_due = seat.dead_small_due = False
            seat.missed_small_blind = seat.missed_big_blind = False
    elif isinstance(event, HandStarted):
        s.hand = initial_state(event)
    elif isinstance(event, ClockStarted):
        s.clock_seat, s.deadline, s.bank_started_at = event.seat, event.deadline, None
    elif isinstance(event, TimeBankStarted):
        s.bank_started_at = s.deadline
        s.deadline = event.deadline
    elif isinstance(event, TimeBankUsed):
        seat = s.seats[event.seat]
        seat.time_bank = max(0.0, seat.time_bank - event.seconds)
    elif isinstance(event, PlayerTimedOut):
        s.seats[event.seat].timeouts += 1
        s.forced_seat = event.seat
    elif isinstance(event, SeedRevealed):
        s.revealed_seeds[event.hand_id] = event.seed
    elif isinstance(event, TableClosed):
        s.closed = True
        s.seats.clear()
        s.clock_seat = None
    else:
        _apply_hand_event(s, event)


def _passed(previous: int | None, current: int, seat: int, size: int) -> bool:
    """Did a blind moving clockwise from ``previous`` to ``current`` pass over ``seat``?"""
    if previous is None:
        return False
    span = (current - previous) % size or size
    return 0 < (seat - previous) % size <= span


def _mark_missed_blinds(s: TableState, event: HandBegan, size: int) -> None:
    for number, seat in s.seats.items():
        if not seat.sitting_out or number in event.seats:
            continue
        if _passed(s.last_big_blind, event.big_blind_seat, number, size):
            seat.missed_big_blind = True
        if _passed(s.last_small_blind, event.small_blind_seat, number, size):
            seat.missed_small_blind = True
    s.last_small_blind, s.last_big_blind = event.small_blind_seat, event.big_blind_seat


def _apply_hand_event(s: TableState, event: HandEvent) -> None:
    assert s.hand is not None
    if isinstance(event, ActionTaken):
        seat = s.hand_seats[event.player]
        if s.forced_seat != seat:
            s.seats[seat].timeouts = 0  # a decision of their own ends a run of time-outs
        s.forced_seat = None
        s.clock_seat = None
    apply_hand_event(s.hand, event)
    if isinstance(event, (HandEnded, HandVoided)):
        for position, number in enumerate(s.hand_seats):
            s.seats[number].stack = s.hand.stacks[position]
        s.clock_seat = None


# --------------------------------------------------------------------------- planning a hand


@dataclass(frozen=True, slots=True)
class HandPlan:
    button: int
    seats: tuple[int, ...]  # by position
    config: HandConfig
    stacks: tuple[int, ...]
    small_blind: int  # seats
    big_blind: int


def _after(seat: int, pool: list[int], size: int) -> int:
    """The first seat of ``pool`` clockwise after ``seat`` (``seat`` itself if it is alone)."""
    for k in range(1, size + 1):
        candidate = (seat + k) % size
        if candidate in pool:
            return candidate
    raise ValueError("empty pool")


def plan_hand(s: TableState) -> HandPlan | None:
    """Who is dealt in next, the button and the forced bets; None if a hand cannot start."""
    cfg = s.config
    if cfg is None or s.closed or s.hand_in_progress:
        return None
    ready = sorted(
        n
        for n, seat in s.seats.items()
        if seat.stack > 0 and not seat.sitting_out and not seat.leaving
    )
    active = [n for n in ready if not s.seats[n].waiting_for_big_blind]
    if not active:
        return None
    size = cfg.seats
    button = active[0] if s.button is None else _after(s.button, active, size)
    if len(active) >= 2:
        sb = _after(button, active, size)
        bb = _after(sb, ready, size)
        if bb == button:  # two players: the button posts the small blind
            sb, bb = button, sb
    else:
        waiting = [n for n in ready if n not in active]
        if not waiting:
            return None
        sb, bb = button, _after(button, waiting, size)
    dealt = set(active) | {bb}
    if len(dealt) < cfg.min_players_to_start:
        return None
    order = [(button + k) % size for k in range(1, size + 1) if (button + k) % size in dealt]
    n = len(order)
    blinds = [0] * n
    blinds[order.index(sb)] = cfg.small_blind
    blinds[order.index(bb)] = cfg.big_blind
    big_blind_position = order.index(bb)
    if cfg.straddle and n >= 3:
        blinds[2] = 2 * cfg.big_blind
        big_blind_position = 2
    dead = [0] * n
    for position, number in enumerate(order):
        if blinds[position]:
            continue  # posting a blind in turn settles what was missed
        if s.seats[number].dead_small_due:
            dead[position] = cfg.small_blind  # a missed small blind, dead
        if s.seats[number].entry_due:
            blinds[position] = cfg.big_blind  # a live entry bet (or missed big blind)
    fixed = cfg.structure is BettingStructure.FIXED_LIMIT
    config = HandConfig(
        variant=cfg.variant,
        structure=cfg.structure,
        blinds=tuple(blinds),
        antes=(cfg.ante,) * n,
        min_bet=cfg.big_blind,
        big_bet=2 * cfg.big_blind if fixed else 0,
        rake=cfg.rake,
        big_blind_position=big_blind_position,
        dead_blinds=tuple(dead),
    )
    stacks = tuple(s.seats[number].stack for number in order)
    return HandPlan(button, tuple(order), config, stacks, sb, bb)


def can_start_hand(s: TableState, now: float) -> bool:
    return plan_hand(s) is not None and _room_limit_reached(s, now) is None


def _room_limit_reached(s: TableState, now: float) -> str | None:
    cfg = s.config
    if cfg is None:
        return None
    if cfg.hand_limit and s.hands_started >= cfg.hand_limit:
        return f"the room's limit of {cfg.hand_limit} hands was reached"
    if cfg.duration_seconds and now >= s.opened_at + cfg.duration_seconds:
        return "the room's time limit was reached"
    return None


# --------------------------------------------------------------------------- decide


class _Scratch:
    """A private copy of the state plus the events decided so far."""

    def __init__(self, state: TableState, evaluator: HandEvaluator) -> None:
        self.s = copy.deepcopy(state)
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
            raise IllegalAction(ALREADY_OPEN, f"table {state.table_id} is already open")
        x = _Scratch(state, evaluator)
        x.emit(TableOpened(command.table_id, command.config, command.now))
        return x
    if state.config is None:
        raise IllegalAction(TABLE_NOT_OPEN, "the table is not open")
    if state.closed and not isinstance(command, tc.RevealSeed):  # the last hand's seed still shows
        raise IllegalAction(TABLE_CLOSED, "the table is closed")
    handler = _HANDLERS.get(type(command))
    if handler is None:  # pragma: no cover - exhaustive over TableCommand
        raise InvalidCommand("UNKNOWN_COMMAND", f"unknown command {command!r}")
    x = _Scratch(state, evaluator)
    handler(x, command)
    return x


def _require_seated(s: TableState, player_id: str) -> int:
    number = s.seat_of(player_id)
    if number is None:
        raise IllegalAction(NOT_SEATED, f"{player_id} is not seated at this table")
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
    if not 0 <= c.seat < s.config.seats:
        raise InvalidCommand(NO_SUCH_SEAT, f"seats are numbered 0..{s.config.seats - 1}")
    if c.seat in s.seats:
        raise IllegalAction(SEAT_TAKEN, f"seat {c.seat} is taken")
    if s.seat_of(c.player_id) is not None:
        raise IllegalAction(ALREADY_SEATED, f"{c.player_id} already has a seat here")
    if not s.config.min_buy_in <= c.buy_in <= s.config.max_buy_in:
        raise InvalidCommand(
            BUY_IN_OUT_OF_RANGE,
            f"the buy-in must be within {s.config.min_buy_in}..{s.config.max_buy_in}",
        )
    starting = s.hands_started == 0 or _active_count(s) < 2
    x.emit(
        PlayerSeated(
            c.seat,
            c.player_id,
            c.buy_in,
            waits_for_big_blind=not starting and not c.post_entry_bet,
            posts_entry_bet=not starting and c.post_entry_bet,
            is_bot=c.is_bot,
        )
    )


def _leave(x: _Scratch, c: tc.Leave) -> None:
    s = x.s
    number = _require_seated(s, c.player_id)
    position = s.position_of(number) if s.hand_in_progress else None
    if position is not None and s.hand is not None and not s.hand.folded[position]:
        x.emit(LeaveRequested(number))
        if s.hand.actor == position:
            _hand_step(x, _clock_action(s.hand, position), c.now)
        return
    x.emit(PlayerLeft(number, c.player_id, s.seats[number].stack))


def _sit_out(x: _Scratch, c: tc.SitOut) -> None:
    number = _require_seated(x.s, c.player_id)
    if x.s.seats[number].sitting_out:
        raise IllegalAction(ALREADY_SITTING_OUT, "you are already sitting out")
    x.emit(PlayerSatOut(number, "asked"))


def _sit_in(x: _Scratch, c: tc.SitIn) -> None:
    s = x.s
    number = _require_seated(s, c.player_id)
    if not s.seats[number].sitting_out:
        raise IllegalAction(NOT_SITTING_OUT, "you are not sitting out")
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


def _start_hand(x: _Scratch, c: tc.StartHand) -> None:
    s = x.s
    if s.hand_in_progress:
        raise IllegalAction(HAND_IN_PROGRESS, "a hand is already in progress")
    limit = _room_limit_reached(s, c.now)
    if limit is not None:
        raise IllegalAction(TABLE_CLOSED, limit)
    plan = plan_hand(s)
    if plan is None:
        raise IllegalAction(NOT_ENOUGH_PLAYERS, "a hand needs at least two players ready")
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
            raise IllegalAction(NO_HAND, "no hand is in progress")
        _hand_step(x, deal, c.now)


_ACTIONS: dict[str, Callable[[int, int], hc.Command]] = {
    "fold": lambda p, _a: hc.Fold(p),
    "check": lambda p, _a: hc.Check(p),
    "call": lambda p, _a: hc.Call(p),
    "bet": lambda p, a: hc.BetOrRaise(p, a),
    "raise": lambda p, a: hc.BetOrRaise(p, a),
    "all_in": lambda p, _a: hc.AllIn(p),
}


def _act(x: _Scratch, c: tc.Act) -> None:
    s = x.s
    if c.hand_id and (c.hand_id != s.hand_id or not s.hand_in_progress):
        raise IllegalAction(E.WRONG_HAND, f"hand {c.hand_id} is not in play")
    number = _require_seated(s, c.player_id)
    position = s.position_of(number) if s.hand_in_progress else None
    if position is None:
        raise IllegalAction(NOT_IN_HAND, f"{c.player_id} is not in the hand")
    build = _ACTIONS.get(c.action)
    if build is None:
        raise InvalidCommand(UNKNOWN_ACTION, f"unknown action {c.action!r}")
    _use_time_bank(x, number, c.now)
    _hand_step(x, build(position, c.amount), c.now)


def _show_or_muck(x: _Scratch, c: tc.ShowOrMuck) -> None:
    s = x.s
    number = _require_seated(s, c.player_id)
    position = s.position_of(number)
    if position is None or s.hand is None:
        raise IllegalAction(NOT_IN_HAND, f"{c.player_id} is not in the hand")
    _hand_step(x, hc.Show(position) if c.show else hc.Muck(position), c.now)


def _use_time_bank(x: _Scratch, number: int, now: float) -> None:
    s = x.s
    if s.clock_seat == number and s.bank_started_at is not None:
        used = min(max(0.0, now - s.bank_started_at), s.seats[number].time_bank)
        x.emit(TimeBankUsed(number, used))


def _clock_action(hand: HandState, position: int) -> hc.Command:
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
    _hand_step(x, _clock_action(s.hand, position), c.now)
    if (
        number in s.seats
        and not s.seats[number].sitting_out
        and s.seats[number].timeouts >= s.config.timeouts_before_sit_out
    ):
        x.emit(PlayerSatOut(number, "timed out"))


def _reveal(x: _Scratch, c: tc.RevealSeed) -> None:
    s = x.s
    if c.hand_id != s.hand_id or s.hand_in_progress:
        raise IllegalAction(E.WRONG_HAND, "seeds are revealed only for the hand that just ended")
    x.emit(SeedRevealed(c.hand_id, c.seed))


def _void(x: _Scratch, c: tc.VoidCurrentHand) -> None:
    if not x.s.hand_in_progress:
        raise IllegalAction(NO_HAND, "no hand is in progress")
    _hand_step(x, hc.VoidHand(c.reason), c.now)


def _close(x: _Scratch, c: tc.CloseTable) -> None:
    if x.s.hand_in_progress:
        raise IllegalAction(HAND_IN_PROGRESS, "the table closes after the hand in progress")
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
        return
    _after_hand(x, now)


def _after_hand(x: _Scratch, now: float) -> None:
    s = x.s
    for number in sorted(s.seats):
        seat = s.seats[number]
        if seat.leaving:
            x.emit(PlayerLeft(number, seat.player_id, seat.stack))
        elif seat.stack <= 0 and not seat.sitting_out:
            x.emit(PlayerSatOut(number, "no chips"))
    limit = _room_limit_reached(s, now)
    if limit is not None:
        _emit_close(x, limit)


_HANDLERS: dict[type, Callable[[_Scratch, object], None]] = {
    tc.SitDown: _sit_down,  # type: ignore[dict-item]
    tc.Leave: _leave,  # type: ignore[dict-item]
    tc.SitOut: _sit_out,  # type: ignore[dict-item]
    tc.SitIn: _sit_in,  # type: ignore[dict-item]
    tc.StartHand: _start_hand,  # type: ignore[dict-item]
    tc.Deal: _deal,  # type: ignore[dict-item]
    tc.Act: _act,  # type: ignore[dict-item]
    tc.ShowOrMuck: _show_or_muck,  # type: ignore[dict-item]
    tc.Tick: _tick,  # type: ignore[dict-item]
    tc.RevealSeed: _reveal,  # type: ignore[dict-item]
    tc.VoidCurrentHand: _void,  # type: ignore[dict-item]
    tc.CloseTable: _close,  # type: ignore[dict-item]
}
