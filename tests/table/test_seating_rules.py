"""The table's seating rules, given-when-then on events: buy-ins, seats, when a newcomer plays
(at once, with an entry bet or at the big blind), missed blinds owed on return."""

from __future__ import annotations

import pytest

from libs.poker import (
    IllegalAction,
    InvalidCommand,
)
from libs.table import TableConfig, step_table
from libs.table import commands as tc
from libs.table.commands import PlayerAction
from libs.table.events import (
    HandBegan,
    PlayerSeated,
)
from tests.table.table_steps import after_a_hand, given, next_hand, seated, when


def test_a_buy_in_must_be_within_the_table_limits() -> None:
    state = given()
    with pytest.raises(InvalidCommand) as err:
        step_table(state, tc.SitDown("a", 0, 10))
    assert err.value.code == "BUY_IN_OUT_OF_RANGE"
    with pytest.raises(InvalidCommand):
        step_table(state, tc.SitDown("a", 0, 201))


def test_fixed_limit_tables_require_ten_small_bets() -> None:
    with pytest.raises(InvalidCommand):
        TableConfig.fixed_limit(10, min_buy_in=50)
    assert TableConfig.fixed_limit(5).small_blind == 2


def test_a_seat_holds_one_player_and_a_player_one_seat() -> None:
    state = given(tc.SitDown("a", 0, 100))
    with pytest.raises(IllegalAction) as err:
        step_table(state, tc.SitDown("b", 0, 100))
    assert err.value.code == "SEAT_TAKEN"
    with pytest.raises(IllegalAction) as err:
        step_table(state, tc.SitDown("a", 1, 100))
    assert err.value.code == "ALREADY_SEATED"


def test_the_first_players_play_at_once_later_ones_wait_for_the_big_blind() -> None:
    state, events = when(seated(2), tc.SitDown("early", 4, 100))
    assert events == [PlayerSeated(4, "early", 100, waits_for_big_blind=False)]
    state = after_a_hand(seated(4))  # button 0 played; next: button 1, SB 2, BB 3
    state, events = when(state, tc.SitDown("late", 5, 100))
    assert events == [PlayerSeated(5, "late", 100, waits_for_big_blind=True)]
    state, events = when(state, tc.StartHand("h1", "c1", 1.0))
    began = events[0]
    assert isinstance(began, HandBegan) and began.button == 1 and began.seats == (2, 3, 0, 1)


def test_a_waiting_player_is_dealt_in_when_the_big_blind_reaches_them() -> None:
    state = after_a_hand(seated(3))
    state, _ = when(state, tc.SitDown("late", 3, 100))
    seen = []
    for k in range(4):
        state, events = when(state, tc.StartHand(f"h{k}", "c", 1.0))
        began = events[0]
        assert isinstance(began, HandBegan)
        seen.append(began.seats)
        state, _ = when(state, tc.VoidCurrentHand("test"))
    # seat 3 joins in the hand where it is the big blind (position 1), and stays in after
    first = next(i for i, seats in enumerate(seen) if 3 in seats)
    assert seen[first][1] == 3
    assert all(3 in seats for seats in seen[first:])


def test_an_entry_bet_is_a_live_big_blind_in_thenext_hand() -> None:
    state = after_a_hand(seated(3))
    state, _ = when(state, tc.SitDown("late", 4, 100, post_entry_bet=True))
    state, _ = when(state, tc.StartHand("h1", "c", 1.0))
    assert state.hand is not None
    position = state.hand_seats.index(4)
    assert state.hand.bets[position] == 2 and state.hand.config.big_blind_position == 1


def test_a_command_from_someone_not_seated_is_refused() -> None:
    state = seated(2)
    with pytest.raises(IllegalAction) as err:
        step_table(state, tc.Act("ghost", PlayerAction.FOLD))
    assert err.value.code == "NOT_SEATED"


def test_missed_blinds_are_posted_on_return_big_live_and_small_dead() -> None:
    state = after_a_hand(seated(4))  # button 0 played: next button 1, SB 2, BB 3
    state, _ = when(state, tc.SitOut("p3"))
    state, began = next_hand(state, "h1")  # p3 out: button 1, SB 2, BB 0
    assert 3 not in began.seats
    state, began = next_hand(state, "h2")  # button 2, SB 0, BB 1: both passed seat 3
    assert state.seats[3].missed_big_blind and state.seats[3].missed_small_blind
    state, _ = when(state, tc.SitIn("p3", post_entry_bet=True))
    state, _events = when(state, tc.StartHand("h3", "c", 2.0))
    assert state.hand is not None
    position = state.hand_seats.index(3)
    assert state.hand.bets[position] == 2  # the missed big blind, live
    assert state.hand.dead[position] == 1  # the missed small blind, dead in the pot
    assert state.hand.pot == 1 and state.hand.stacks[position] == 97
    assert not state.seats[3].missed_big_blind


def test_a_returning_player_who_missed_the_big_blind_may_wait_for_it_instead() -> None:
    state = after_a_hand(seated(4))
    state, _ = when(state, tc.SitOut("p3"))
    state, _ = next_hand(state, "h1")
    state, _ = next_hand(state, "h2")
    state, _events = when(state, tc.SitIn("p3"))
    assert state.seats[3].waiting_for_big_blind


def test_a_player_who_missed_no_blind_plays_at_once_on_return() -> None:
    state = after_a_hand(seated(4))  # next: button 1, SB 2, BB 3
    state, _ = when(state, tc.SitOut("p0"))
    state, _began = next_hand(state, "h1")  # seat 0 is behind the blinds: nothing missed
    assert not state.seats[0].missed_big_blind and not state.seats[0].missed_small_blind
    state, _events = when(state, tc.SitIn("p0"))
    assert not state.seats[0].waiting_for_big_blind and not state.seats[0].entry_due


def test_a_player_without_a_seat_choice_gets_the_lowest_free_seat_until_the_table_is_full() -> None:
    state = given(tc.SitDown("a", 0, 100), tc.SitDown("b", 2, 100), config=TableConfig(seats=4))
    state, events = when(state, tc.SitDown("c", None, 100))
    assert events == [PlayerSeated(1, "c", 100, waits_for_big_blind=False)]
    state, events = when(state, tc.SitDown("d", None, 100))
    assert events == [PlayerSeated(3, "d", 100, waits_for_big_blind=False)]
    with pytest.raises(IllegalAction) as err:
        step_table(state, tc.SitDown("e", None, 100))
    assert err.value.code == "SEAT_TAKEN"


def test_a_player_who_sits_out_right_after_the_big_blind_owes_none_on_return() -> None:
    state = after_a_hand(seated(4))  # button 0 played: SB 1 and BB 2 were posted
    state, _ = when(state, tc.SitOut("p2"))
    state, began = next_hand(state, "h1")  # button 1, SB 3, BB 0: past seat 2, paid just now
    assert 2 not in began.seats and not state.seats[2].missed_big_blind
    state, _events = when(state, tc.SitIn("p2"))
    assert not state.seats[2].waiting_for_big_blind and not state.seats[2].entry_due


def test_a_table_whose_buy_ins_no_request_could_pay_is_refused() -> None:
    """Buy-ins, given or derived from the blinds, are at most MAX_CHIPS (what any request may
    name), else nobody could ever sit down: refused naming what to change."""
    from libs.table.config import MAX_CHIPS, TableConfigError

    with pytest.raises(TableConfigError) as derived:
        TableConfig(big_blind=MAX_CHIPS // 50, small_blind=1)  # 100 bb above the cap
    assert derived.value.field == "big_blind"
    with pytest.raises(TableConfigError) as given:
        TableConfig(big_blind=2, small_blind=1, max_buy_in=MAX_CHIPS + 1)
    assert given.value.field == "max_buy_in"
    ok = TableConfig(big_blind=MAX_CHIPS // 100, small_blind=1)
    assert ok.max_buy_in == MAX_CHIPS
