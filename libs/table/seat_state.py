"""A seat (``Seat``: what the table keeps of each between hands) and what the seat events of
sitting out and blinds do to a table's state (``state.apply`` sends them here): the blind
settings, the blind question, the connection, and the blinds a sitting-out seat misses when a
hand begins. Applying an event never fails."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from .config import BotDifficulty
from .events import BlindAgreed, BlindAsked, ConnectionMarked, HandBegan, SeatOptionsSet


@dataclass
class Seat:
    player_id: str
    stack: int  # between hands; during a hand the hand state holds the live stack
    waiting_for_big_blind: bool = False
    entry_due: bool = False
    sitting_out: bool = False
    leaving: bool = False
    is_bot: bool = False
    bot_difficulty: BotDifficulty | None = None  # bots only
    time_bank: float = 0.0
    timeouts: int = 0
    missed_small_blind: bool = False
    missed_big_blind: bool = False
    dead_small_due: bool = False
    auto_muck: bool = False  # at showdown, a hand that cannot win is mucked unasked
    run_it_times: int = 0  # asked to run the board: 0 ask me, 1 once, 2-3 agree up to that
    straddle: bool = False  # posts the straddle when first left of the big blind (if allowed)
    # blinds and connection (libs/table/seat_state.py; docs/table-features.md)
    sit_out_next_big_blind: bool = False  # sit out when the big blind would come here
    wait_for_big_blind: bool = True  # owing an entry bet: wait for the big blind (else post)
    auto_post_blinds: bool = True  # off: asked before each blind, with a short clock
    blind_agreed: bool = False  # answered "post" to the blind question of the next hand
    disconnected: bool = False
    disconnect_bank_used: bool = False  # the time bank a disconnected turn gets once
    display_name: str = ""  # the name the player was seated under (shown to every viewer)

    def copy(self) -> Seat:
        """A copy (every field is immutable: a shallow copy is a full one)."""
        new = object.__new__(Seat)
        new.__dict__.update(self.__dict__)
        return new


class TableState(Protocol):
    """What of ``state.TableState`` the seat events change."""

    seats: dict[int, Seat]
    blind_seat: int | None
    blind_deadline: float
    last_small_blind: int | None
    last_big_blind: int | None


SeatEvent = SeatOptionsSet | BlindAsked | BlindAgreed | ConnectionMarked


def apply_seat_event(s: TableState, event: SeatEvent) -> None:
    match event:
        case SeatOptionsSet():
            seat = s.seats[event.seat]
            seat.sit_out_next_big_blind = event.sit_out_next_big_blind
            seat.auto_post_blinds = event.auto_post_blinds
            seat.wait_for_big_blind = event.wait_for_big_blind
            if seat.waiting_for_big_blind or seat.entry_due:  # owing: the choice applies now
                seat.waiting_for_big_blind = event.wait_for_big_blind
                seat.entry_due = not event.wait_for_big_blind
                seat.dead_small_due = seat.entry_due and seat.missed_small_blind
            if event.auto_post_blinds and s.blind_seat == event.seat:
                s.blind_seat = None  # nothing to ask any more
        case BlindAsked():
            s.blind_seat, s.blind_deadline = event.seat, event.deadline
        case BlindAgreed():
            s.seats[event.seat].blind_agreed = True
            s.blind_seat = None
        case ConnectionMarked():
            seat = s.seats[event.seat]
            seat.disconnected = not event.connected
            if event.connected:
                seat.disconnect_bank_used = False


def seat_gone(s: TableState, number: int) -> None:
    """``number`` sat out, left or moved: its blind question and one-shot settings are done."""
    seat = s.seats.get(number)
    if seat is not None:
        seat.sit_out_next_big_blind = False
        seat.blind_agreed = False
    if s.blind_seat == number:
        s.blind_seat = None


def _passed(previous: int | None, current: int, seat: int, size: int) -> bool:
    """Did a blind moving clockwise from ``previous`` to ``current`` pass over ``seat``?"""
    if previous is None:
        return False
    span = (current - previous) % size or size
    return 0 < (seat - previous) % size <= span


def mark_missed_blinds(s: TableState, event: HandBegan, size: int) -> None:
    for number, seat in s.seats.items():
        if not seat.sitting_out or number in event.seats:
            continue
        if _passed(s.last_big_blind, event.big_blind_seat, number, size):
            seat.missed_big_blind = True
        if _passed(s.last_small_blind, event.small_blind_seat, number, size):
            seat.missed_small_blind = True
    s.last_small_blind, s.last_big_blind = event.small_blind_seat, event.big_blind_seat
