"""Disconnect protection, given-when-then on events: a disconnected player's turn gets the time
bank once, then they are folded (checked when that is free) and sat out at once; their later
turns in the hand are played at once; reconnecting marks them connected (and gives the
protection back). Chips exact throughout."""

from __future__ import annotations

import pytest

from libs.poker import DealBoard
from libs.poker.cards import DECK
from libs.poker.errors import IllegalAction
from libs.table import TableConfig, TableState, codec
from libs.table import commands as tc
from libs.table.commands import PlayerAction
from libs.table.events import (
    BlindAgreed,
    BlindAsked,
    ConnectionMarked,
    Event,
    PlayerSatOut,
    PlayerTimedOut,
    SeatOptionsSet,
    TimeBankStarted,
)
from tests.table.table_steps import deal_hole, seated, when

CONFIG = TableConfig(seats=6, action_seconds=10, time_bank_seconds=5, timeouts_before_sit_out=3)


def started(n: int = 3) -> TableState:
    state = seated(n, config=CONFIG)
    state, _ = when(state, tc.StartHand("h", "c", 100.0))
    return deal_hole(state, now=100.0)


def test_a_disconnected_player_gets_the_time_bank_once_then_is_folded_and_sat_out() -> None:
    state = started()
    total = state.total_chips()
    seat = state.hand_seats[2]  # first to act (the button, three-handed)
    state, events = when(state, tc.MarkConnection(f"p{seat}", connected=False, now=101.0))
    assert events == [ConnectionMarked(seat, False)]
    state, events = when(state, tc.Tick(110.0))
    assert events == [TimeBankStarted(seat, 115.0)]  # the whole bank
    assert state.seats[seat].disconnect_bank_used
    state, events = when(state, tc.Tick(115.0))
    assert PlayerTimedOut(seat) in events
    assert PlayerSatOut(seat, "disconnected", f"p{seat}") in events  # at once: one time-out
    assert state.hand is not None and state.hand.folded[2]
    assert state.total_chips() == total


def test_later_turns_of_a_disconnected_player_sat_out_are_played_at_once() -> None:
    state = started()
    big_blind = state.hand_seats[1]
    state, _ = when(state, tc.Act(f"p{state.hand_seats[2]}", PlayerAction.CALL, now=101.0))
    state, _ = when(state, tc.Act(f"p{state.hand_seats[0]}", PlayerAction.CALL, now=102.0))
    state, _ = when(state, tc.MarkConnection(f"p{big_blind}", connected=False))
    state, _ = when(state, tc.Tick(112.0))  # the bank
    state, events = when(state, tc.Tick(117.0))  # checking is free: checked, then sat out
    assert PlayerSatOut(big_blind, "disconnected", f"p{big_blind}") in events
    state, _ = when(state, tc.Deal((DealBoard(tuple(DECK[20:23])),), now=120.0))
    state, _ = when(state, tc.Act(f"p{state.hand_seats[0]}", PlayerAction.CHECK, now=121.0))
    # the big blind's flop turn is played for them at once: the button is to act
    assert state.hand is not None and state.acting_seat() == state.hand_seats[2]
    assert state.clock_seat == state.hand_seats[2]


def test_the_bank_is_given_once_until_the_player_reconnects() -> None:
    state = started()
    seat = state.hand_seats[2]
    state, _ = when(state, tc.MarkConnection(f"p{seat}", connected=False))
    state, _ = when(state, tc.Tick(110.0))  # the bank starts...
    state, _ = when(state, tc.Act(f"p{seat}", PlayerAction.CALL, now=111.0))  # ...a last click
    assert state.seats[seat].time_bank == 4.0 and state.seats[seat].disconnect_bank_used
    state, _ = when(state, tc.Act(f"p{state.hand_seats[0]}", PlayerAction.CALL, now=112.0))
    state, _ = when(state, tc.Act(f"p{state.hand_seats[1]}", PlayerAction.CHECK, now=113.0))
    state, _ = when(state, tc.Deal((DealBoard(tuple(DECK[20:23])),), now=114.0))
    state, _ = when(state, tc.Act(f"p{state.hand_seats[0]}", PlayerAction.CHECK, now=115.0))
    state, _ = when(state, tc.Act(f"p{state.hand_seats[1]}", PlayerAction.CHECK, now=116.0))
    assert state.clock_seat == seat
    state, events = when(state, tc.Tick(126.0))  # no bank again: checked and sat out
    assert not any(isinstance(e, TimeBankStarted) for e in events)
    assert PlayerSatOut(seat, "disconnected", f"p{seat}") in events
    state, events = when(state, tc.MarkConnection(f"p{seat}", connected=True))
    assert events == [ConnectionMarked(seat, True)]
    assert not state.seats[seat].disconnected and not state.seats[seat].disconnect_bank_used
    assert state.seats[seat].sitting_out  # they sit in themselves


def test_marking_a_connection_as_it_is_changes_nothing_and_strangers_are_refused() -> None:
    state = started()
    assert when(state, tc.MarkConnection("p0", connected=True))[1] == []
    with pytest.raises(IllegalAction) as err:
        when(state, tc.MarkConnection("ghost", connected=False))
    assert err.value.code == "NOT_SEATED"


def test_the_new_events_and_seat_fields_survive_the_codec_and_snapshots() -> None:
    events: list[Event] = [
        SeatOptionsSet(1, True, False, False),
        BlindAsked(2, 12.5),
        BlindAgreed(2),
        ConnectionMarked(3, False),
    ]
    assert codec.loads(codec.dumps(events)) == events
    state = started()
    state, _ = when(state, tc.MarkConnection("p1", connected=False))
    state, _ = when(state, tc.SetSeatOptions("p2", sit_out_next_big_blind=True))
    loaded = codec.state_loads(codec.state_dumps(state))
    assert loaded.seats[1].disconnected and loaded.seats[2].sit_out_next_big_blind
