"""A table's state and ``evolve``: how each event changes it. Applying an event never fails.

Hand events (libs.poker) are passed to the hand's own state; the table keeps what lives between
hands: seats and stacks, the button, who missed which blind, the clock, revealed seeds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import cast

from libs.poker.cards import Card
from libs.poker.events import ActionTaken, HandEnded, HandMucked, HandShown, HandStarted, HandVoided
from libs.poker.events import Event as HandEvent
from libs.poker.evolve import APPLIERS as HAND_APPLIERS
from libs.poker.evolve import apply as apply_hand_event
from libs.poker.history import PublicAction, public_action
from libs.poker.legal import showdown_turn
from libs.poker.state import HandState, initial_state

from .bombvote import BOMB_EVENTS, BombPotVote, apply_bomb_event
from .config import TableConfig
from .events import (
    AutoMuckSet,
    BlindAgreed,
    BlindAsked,
    ChipsAdded,
    ClockStarted,
    CloseRequested,
    ConnectionMarked,
    Event,
    HandBegan,
    HandReleased,
    LeaveRequested,
    PlayerLeft,
    PlayerSatIn,
    PlayerSatOut,
    PlayerSeated,
    PlayerTimedOut,
    RabbitHunted,
    RabbitHuntOpened,
    RunItClockStarted,
    RunItTimesSet,
    SeatChanged,
    SeatOptionsSet,
    SeedRevealed,
    TableClosed,
    TableOpened,
    TimeBankStarted,
    TimeBankUsed,
)
from .seat_state import Seat as Seat  # re-exported: a seat is part of the state
from .seat_state import apply_seat_event, mark_missed_blinds, seat_gone

#: Players a table names as ever dealt in (``TableState.dealt_players``); past it: unknown.
MAX_DEALT_PLAYERS = 256


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
    released: int = 0  # a tournament's table: the last hand released (may be dealt once)
    # A tournament's table: the prizes the last release carried (payouts still to win, first
    # place first, and the stacks at the other tables); empty: not told, the bots play chips.
    prize_payouts: tuple[int, ...] = ()
    prize_others: tuple[int, ...] = ()
    hand: HandState | None = None
    hand_id: str = ""
    hand_seats: tuple[int, ...] = ()
    # Who was dealt at each position of the last hand (``hand_seats``' players then): a seat
    # taken by somebody else once the hand is over is not that position (its cards are not
    # theirs to see or show). Empty in snapshots from before it was kept.
    hand_players: tuple[str, ...] = ()
    # Everyone ever dealt into a hand here, in the order first dealt: a hand history asked for
    # anybody else is empty without reading the stream. None: not known (a snapshot from before
    # it was kept, or more than MAX_DEALT_PLAYERS players): then histories read the stream.
    dealt_players: tuple[str, ...] | None = None
    commitment: str = ""
    deck_id: str = ""
    clock_seat: int | None = None
    deadline: float = 0.0
    bank_started_at: float | None = None  # when the time bank began running for this decision
    forced_seat: int | None = None  # the clock is acting for this seat
    # The seed of the last hand whose deck was revealed (the reveal of the hand that just ended
    # is all a decision needs; keeping every hand's made the state, each command's copy and the
    # snapshots grow with the table's history). Each hand's seed stays in its SeedRevealed.
    revealed_seeds: dict[str, str] = field(default_factory=dict)
    closed: bool = False
    close_requested: str = ""  # the reason of a close asked for during a hand ("": none)
    # The public history of the hand in play (forced bets included; replaced, never mutated).
    actions: tuple[PublicAction, ...] = ()
    # When the players asked how many times to run the board stop being waited for.
    run_it_deadline: float = 0.0
    # The last rabbit hunt: its hand, first street and cards (shown until the next hand).
    rabbit_hand: str = ""
    rabbit_street: int = 0
    rabbit: tuple[Card, ...] = ()
    rabbit_seat: int = 0  # who asked
    rabbit_until: float = 0.0  # the next hand waits until then for a rabbit hunt (or one done)
    bomb_vote: BombPotVote = field(default_factory=BombPotVote)  # libs/table/bombvote.py
    blind_seat: int | None = None  # the seat asked to post its blind (auto-post off)
    blind_deadline: float = 0.0  # ... which is sat out when it has not answered by then

    @property
    def hand_in_progress(self) -> bool:
        return self.hand is not None and not self.hand.is_complete

    def seat_of(self, player_id: str) -> int | None:
        for number, seat in self.seats.items():
            if seat.player_id == player_id:
                return number
        return None

    def position_of(self, seat: int) -> int | None:
        """The position of ``seat`` in the last hand, if the player sitting there now is the
        one dealt there (a seat keeps its position for the whole hand: nobody leaves or sits
        down in it before the hand is over)."""
        try:
            position = self.hand_seats.index(seat)
        except ValueError:
            return None
        if not self.hand_players:  # a state from before the players were kept
            return position if self.hand_in_progress else None
        occupant = self.seats.get(seat)
        if occupant is None or occupant.player_id != self.hand_players[position]:
            return None
        return position

    def acting_seat(self) -> int | None:
        """The seat whose decision the hand waits for (betting or showdown), if any."""
        if not self.hand_in_progress or self.hand is None:
            return None
        actor = self.hand.actor
        if actor is None:
            turn = showdown_turn(self.hand)
            actor = turn.player if turn else None
        return None if actor is None else self.hand_seats[actor]

    def copy(self) -> TableState:
        """A copy sharing nothing mutable with this state (one per command: ``copy.deepcopy``
        cost a millisecond a command)."""
        new = object.__new__(TableState)
        d = new.__dict__
        d.update(self.__dict__)
        d["seats"] = {number: seat.copy() for number, seat in self.seats.items()}
        d["hand"] = None if self.hand is None else self.hand.copy()
        d["revealed_seeds"] = dict(self.revealed_seeds)
        return new

    def total_chips(self) -> int:
        """Chips at the table: seat stacks, or the hand's view of them while it runs."""
        if self.hand_in_progress and self.hand is not None:
            dealt = set(self.hand_seats)
            outside = sum(s.stack for n, s in self.seats.items() if n not in dealt)
            h = self.hand
            return outside + sum(h.stacks) + sum(h.bets) + h.pot + h.rake
        return sum(s.stack for s in self.seats.values())


def evolve(state: TableState, event: Event) -> TableState:
    new = state.copy()
    apply(new, event)
    return new


def replay(events: list[Event]) -> TableState:
    state = TableState()
    for event in events:
        apply(state, event)
    return state


#: The hand events no case of ``apply`` takes (every case is a table event, or HandStarted):
#: most events of a table, sent to the hand at once instead of through every case.
_HAND_ONLY = frozenset(HAND_APPLIERS) - {HandStarted}


def apply(s: TableState, event: Event) -> None:
    """Apply ``event`` to ``s`` in place."""
    if type(event) in _HAND_ONLY:
        _apply_hand_event(s, cast(HandEvent, event))
        return
    if type(event) in BOMB_EVENTS:
        apply_bomb_event(s, event)  # type: ignore[arg-type]
        return
    match event:
        case TableOpened():
            s.table_id, s.config, s.opened_at = event.table_id, event.config, event.at
            s.dealt_players = ()
        case PlayerSeated():
            assert s.config is not None
            s.seats[event.seat] = Seat(
                event.player_id,
                event.stack,
                waiting_for_big_blind=event.waits_for_big_blind,
                entry_due=event.posts_entry_bet,
                is_bot=event.is_bot,
                bot_difficulty=event.bot_difficulty,
                time_bank=s.config.time_bank_seconds,
                display_name=event.display_name,
            )
        case PlayerLeft():
            seat_gone(s, event.seat)
            s.seats.pop(event.seat, None)
        case PlayerSatOut():
            seat_gone(s, event.seat)
            s.seats[event.seat].sitting_out = True
        case PlayerSatIn():
            seat = s.seats[event.seat]
            seat.sitting_out = False
            seat.timeouts = 0
            seat.waiting_for_big_blind = event.waits_for_big_blind
            seat.entry_due = event.posts_entry_bet
            seat.dead_small_due = event.posts_dead_small_blind
        case AutoMuckSet():
            s.seats[event.seat].auto_muck = event.auto_muck
        case RunItTimesSet():
            s.seats[event.seat].run_it_times = event.times
        case RunItClockStarted():
            s.run_it_deadline = event.deadline
        case RabbitHuntOpened():
            s.rabbit_until = event.until
        case RabbitHunted():
            s.rabbit_hand, s.rabbit_street = event.hand_id, event.first_street
            s.rabbit, s.rabbit_seat = event.cards, event.seat
        case SeatChanged():  # the settings move with the player; a question asked is void
            s.blind_seat = None if s.blind_seat == event.from_seat else s.blind_seat
            moved = s.seats.pop(event.from_seat)
            moved.waiting_for_big_blind = moved.waiting_for_big_blind or event.waits_for_big_blind
            moved.entry_due = moved.entry_due and not event.waits_for_big_blind
            s.seats[event.to_seat] = moved
        case ChipsAdded():
            s.seats[event.seat].stack += event.amount
        case HandReleased():
            assert s.config is not None
            s.released = event.number
            s.prize_payouts, s.prize_others = event.payouts, event.others
            s.config = replace(
                s.config,
                small_blind=event.small_blind,
                big_blind=event.big_blind,
                ante=event.ante,
                big_blind_ante=event.big_blind_ante,
            )
        case LeaveRequested():
            s.seats[event.seat].leaving = True
        case HandBegan():
            if s.config is not None and event.big_blind_seat >= 0:
                mark_missed_blinds(s, event, s.config.seats)
            s.hands_started = event.hand_number
            s.hand_id, s.button, s.hand_seats = event.hand_id, event.button, event.seats
            players = tuple(s.seats[number].player_id for number in event.seats)
            if s.dealt_players is not None:
                s.dealt_players = _with_dealt(s.dealt_players, players, s.hand_players)
            s.hand_players = players
            s.commitment, s.deck_id = event.commitment, event.deck_id
            for number in event.seats:
                seat = s.seats[number]
                seat.waiting_for_big_blind = seat.entry_due = seat.dead_small_due = False
                seat.missed_small_blind = seat.missed_big_blind = seat.blind_agreed = False
            s.blind_seat = None
        case HandStarted():
            s.hand = initial_state(event)
            s.actions = ()
            s.run_it_deadline = 0.0
        case ClockStarted():
            s.clock_seat, s.deadline, s.bank_started_at = event.seat, event.deadline, None
        case TimeBankStarted():
            s.bank_started_at = s.deadline
            s.seats[event.seat].disconnect_bank_used |= s.seats[event.seat].disconnected
            s.deadline = event.deadline
        case TimeBankUsed():
            seat = s.seats[event.seat]
            seat.time_bank = max(0.0, seat.time_bank - event.seconds)
        case PlayerTimedOut():
            s.seats[event.seat].timeouts += 1
            s.forced_seat = event.seat
        case SeedRevealed():
            s.revealed_seeds = {event.hand_id: event.seed}  # the last hand's only
        case CloseRequested():
            s.close_requested = event.reason
        case SeatOptionsSet() | BlindAsked() | BlindAgreed() | ConnectionMarked():
            apply_seat_event(s, event)
        case TableClosed():
            s.closed = True
            s.seats.clear()
            s.clock_seat = None
        case _:
            _apply_hand_event(s, cast(HandEvent, event))


def _with_dealt(
    dealt: tuple[str, ...], players: tuple[str, ...], last: tuple[str, ...]
) -> tuple[str, ...] | None:
    """``dealt`` and ``players`` (a hand's), each once; None past MAX_DEALT_PLAYERS. Players of
    the last hand are known dealt already (most hands: no search of ``dealt`` at all)."""
    new = [p for p in players if p not in last and p not in dealt]
    if not new:
        return dealt
    if len(dealt) + len(new) > MAX_DEALT_PLAYERS:
        return None
    return (*dealt, *new)


def _apply_hand_event(s: TableState, event: HandEvent) -> None:
    assert s.hand is not None
    if isinstance(event, ActionTaken):
        _acted(s, event.player)
    elif isinstance(event, (HandShown, HandMucked)):
        _showed(s, event.player)
    action = public_action(event, s.hand.street)
    if action is not None:
        s.actions = (*s.actions, action)
    apply_hand_event(s.hand, event)
    if isinstance(event, (HandEnded, HandVoided)):
        _ended(s, s.hand.stacks)


# What a hand's events do to the table beside the hand itself (``_apply_hand_event`` and
# ``settle``: one place for both).


def _acted(s: TableState, position: int) -> None:
    seat = s.hand_seats[position]
    if s.forced_seat != seat:
        s.seats[seat].timeouts = 0  # a decision of their own ends a run of time-outs
    s.forced_seat = None
    s.clock_seat = None


def _showed(s: TableState, position: int) -> None:
    if s.clock_seat == s.hand_seats[position]:
        s.clock_seat = None  # the showdown turn's clock (the next turn starts its own)


def _ended(s: TableState, stacks: Sequence[int]) -> None:
    for position, number in enumerate(s.hand_seats):
        s.seats[number].stack = stacks[position]
    s.clock_seat = None


#: The events ``settle`` takes, by record type name: every hand event (HandStarted too).
SETTLED: frozenset[str] = frozenset(kind.__name__ for kind in HAND_APPLIERS)
#: Of those, the ones that change the table (the rest change only their hand).
_SETTLE_PLAYER = frozenset({"ActionTaken", "HandShown", "HandMucked"})
_SETTLE_STACKS = frozenset({"HandEnded", "HandVoided"})


def settle(s: TableState, kind: str, player: int = -1, stacks: Sequence[int] = ()) -> None:
    """``apply`` of a hand event of type ``kind`` (its ``player`` or final ``stacks`` where it
    has them) to a table whose hand is over and replaced by a later HandStarted before anyone
    looks: only what the event does to the table, not to the hand, whose state the next
    HandStarted replaces (``s.hand`` and ``s.actions`` are left as they are until then). A
    replay of a long table settles every hand but the last (libs/table/settling.py)."""
    if kind in _SETTLE_PLAYER:
        if kind == "ActionTaken":
            _acted(s, player)
        else:
            _showed(s, player)
    elif kind in _SETTLE_STACKS:
        _ended(s, stacks)


def settles_with(kind: str) -> tuple[bool, bool]:
    """Whether ``settle`` of ``kind`` needs its (player, stacks)."""
    return kind in _SETTLE_PLAYER, kind in _SETTLE_STACKS
