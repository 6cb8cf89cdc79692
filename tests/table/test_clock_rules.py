"""The table's clock, given-when-then on events: check if free else fold when time runs out, at
its deadline and not before, the time bank spent as used, repeated time-outs sitting the
player out, and a leaving player's turn."""

from __future__ import annotations

from libs.poker import (
    ActionKind,
    ActionTaken,
    DealBoard,
)
from libs.poker.cards import DECK
from libs.table import TableConfig
from libs.table import commands as tc
from libs.table.commands import PlayerAction
from libs.table.events import (
    ClockStarted,
    PlayerLeft,
    PlayerSatOut,
    PlayerTimedOut,
    TimeBankStarted,
    TimeBankUsed,
)
from tests.table.table_steps import deal_hole, seated, when


def test_the_clock_checks_when_free_else_folds_and_repeated_timeouts_sit_out() -> None:
    config = TableConfig(seats=6, action_seconds=10, time_bank_seconds=5, timeouts_before_sit_out=2)
    state = seated(3, config=config)
    state, _ = when(state, tc.StartHand("h", "c", 100.0))
    state = deal_hole(state, now=100.0)
    assert state.clock_seat == state.hand_seats[2] and state.deadline == 110.0
    # the clock runs out: the time bank extends it once
    state, events = when(state, tc.Tick(111.0))
    assert events == [TimeBankStarted(state.hand_seats[2], 115.0)]
    state, events = when(state, tc.Tick(116.0))
    assert PlayerTimedOut(state.hand_seats[2]) in events
    assert state.hand is not None and state.hand.folded[2]  # facing the blind: fold
    assert state.seats[state.hand_seats[2]].time_bank == 0
    assert isinstance(events[-1], ClockStarted)
    # the small blind calls; the big blind's clock runs out when checking is free: it checks
    small_blind, big_blind = state.hand_seats[0], state.hand_seats[1]
    state, _ = when(state, tc.Act(f"p{small_blind}", PlayerAction.CALL, now=120.0))
    assert state.clock_seat == big_blind and state.deadline == 130.0
    state, events = when(state, tc.Tick(131.0))
    assert events == [TimeBankStarted(big_blind, 135.0)]
    state, events = when(state, tc.Tick(136.0))
    assert PlayerTimedOut(big_blind) in events
    assert ActionTaken(1, ActionKind.CHECK, 0, 2, False) in events
    assert state.hand is not None and not state.hand.folded[1] and state.hand_in_progress
    # one time-out of the two allowed
    assert PlayerSatOut(big_blind, "timed out", f"p{big_blind}") not in events
    assert not state.seats[big_blind].sitting_out
    # on the flop the big blind times out again (time bank spent): a second time-out in a row
    state, _ = when(state, tc.Deal((DealBoard(tuple(DECK[20:23])),), now=140.0))
    state, _ = when(state, tc.Act(f"p{small_blind}", PlayerAction.CHECK, now=141.0))
    assert state.clock_seat == big_blind and state.deadline == 151.0
    state, events = when(state, tc.Tick(151.5))
    assert PlayerTimedOut(big_blind) in events
    assert ActionTaken(1, ActionKind.CHECK, 0, 0, False) in events  # checking is free: check
    assert PlayerSatOut(big_blind, "timed out", f"p{big_blind}") in events
    assert state.seats[big_blind].sitting_out


def test_repeated_timeouts_sit_the_player_out() -> None:
    config = TableConfig(seats=6, action_seconds=10, time_bank_seconds=0, timeouts_before_sit_out=1)
    state = seated(3, config=config)
    state, _ = when(state, tc.StartHand("h", "c", 0.0))
    state = deal_hole(state)
    seat = state.hand_seats[2]
    state, events = when(state, tc.Tick(20.0))
    assert PlayerSatOut(seat, "timed out", f"p{seat}") in events


def test_a_player_who_leaves_mid_hand_folds_on_their_turn_and_leaves_at_the_end() -> None:
    state = seated(3)
    state, _ = when(state, tc.StartHand("h", "c", 0.0))
    state = deal_hole(state)
    actor = state.hand_seats[2]
    state, events = when(state, tc.Leave(f"p{actor}"))
    assert state.hand is not None and state.hand.folded[2]
    assert actor in state.seats and state.seats[actor].leaving
    # the others finish: small blind folds -> hand over, the leaver is gone with their stack
    sb = state.hand_seats[0]
    state, events = when(state, tc.Act(f"p{sb}", PlayerAction.FOLD))
    assert PlayerLeft(actor, f"p{actor}", 100) in events
    assert actor not in state.seats


def test_the_clock_runs_out_at_its_deadline_not_a_moment_before() -> None:
    config = TableConfig(seats=6, action_seconds=10, time_bank_seconds=5)
    state = seated(3, config=config)
    state, _ = when(state, tc.StartHand("h", "c", 100.0))
    state = deal_hole(state, now=100.0)
    seat = state.hand_seats[2]
    assert when(state, tc.Tick(109.999))[1] == []
    state, events = when(state, tc.Tick(110.0))
    assert events == [TimeBankStarted(seat, 115.0)]
    assert when(state, tc.Tick(114.999))[1] == []
    state, events = when(state, tc.Tick(115.0))
    assert PlayerTimedOut(seat) in events


def test_acting_while_the_time_bank_runs_spends_what_was_used() -> None:
    config = TableConfig(seats=6, action_seconds=10, time_bank_seconds=5)
    state = seated(3, config=config)
    state, _ = when(state, tc.StartHand("h", "c", 100.0))
    state = deal_hole(state, now=100.0)
    seat = state.hand_seats[2]
    state, _ = when(state, tc.Tick(110.0))  # the bank starts running at the deadline
    state, events = when(state, tc.Act(f"p{seat}", PlayerAction.CALL, now=112.0))
    assert events[0] == TimeBankUsed(seat, 2.0)
    assert state.seats[seat].time_bank == 3.0  # what is left for later decisions
