"""Sitting out and blinds, given-when-then on events (docs/table-features.md): sit out next big
blind (the seat sits out just before posting it, the blinds it misses owed as ever), wait for
the big blind versus an entry bet, the blind question of a seat with auto-post off (answered,
declined, timed out), with chips exact and the button and blinds moving past the seats out."""

from __future__ import annotations

import pytest

from libs.poker.errors import IllegalAction, InvalidCommand
from libs.table import TableConfig, TableState
from libs.table import commands as tc
from libs.table.automation import BlindsDue, HandDue, next_due
from libs.table.commands import PlayerAction
from libs.table.events import BlindAgreed, BlindAsked, HandBegan, PlayerSatOut, SeatOptionsSet
from libs.table.seat_options import AT_BIG_BLIND, BLIND_TIMED_OUT, DECLINED_BLIND
from libs.table.timing import wake_at
from tests.table.table_steps import after_a_hand, deal_hole, given, seated, when


def play_out(state: TableState, hand_id: str, now: float = 1.0) -> tuple[TableState, HandBegan]:
    """Start hand ``hand_id`` (after the blinds' steps a driver's Tick does), deal, and fold to
    the last player in; the chips at the table never change."""
    total = state.total_chips()
    state, _ = when(state, tc.Tick(now))
    state, events = when(state, tc.StartHand(hand_id, "c", now))
    began = events[0]
    assert isinstance(began, HandBegan)
    state = deal_hole(state, now)
    while state.hand_in_progress:
        seat = state.acting_seat()
        assert seat is not None
        state, _ = when(state, tc.Act(state.seats[seat].player_id, PlayerAction.FOLD, now=now))
        assert state.total_chips() == total
    assert state.total_chips() == total
    return state, began


def test_sit_out_next_big_blind_plays_on_then_sits_out_before_posting_it() -> None:
    state = after_a_hand(seated(4))  # next: button 1, SB 2, BB 3
    total = state.total_chips()
    state, events = when(state, tc.SetSeatOptions("p3", sit_out_next_big_blind=True))
    assert events == [SeatOptionsSet(3, True, True, True)]
    assert next_due(state, 1.0) == BlindsDue()
    state, events = when(state, tc.Tick(1.0))
    assert events == [PlayerSatOut(3, AT_BIG_BLIND, "p3")]
    assert not state.seats[3].sit_out_next_big_blind  # done once sat out
    assert next_due(state, 1.0) == HandDue("2")
    state, began = play_out(state, "h1")
    assert (began.button, began.small_blind_seat, began.big_blind_seat) == (1, 2, 0)
    assert 3 not in began.seats and state.seats[3].missed_big_blind
    state, began = play_out(state, "h2")  # button 2, SB 0, BB 1: the small blind passed too
    assert (began.button, began.small_blind_seat, began.big_blind_seat) == (2, 0, 1)
    assert state.seats[3].missed_small_blind
    # back: the seat's setting (wait for the big blind, the default) says wait
    state, _ = when(state, tc.SitIn("p3"))
    assert state.seats[3].waiting_for_big_blind and not state.seats[3].entry_due
    # ... until the player chooses to post now: the big blind live, the small one dead
    state, _ = when(state, tc.SetSeatOptions("p3", wait_for_big_blind=False))
    assert state.seats[3].entry_due and state.seats[3].dead_small_due
    state, _ = when(state, tc.StartHand("h3", "c", 2.0))
    assert state.hand is not None
    position = state.hand_seats.index(3)
    assert state.hand.bets[position] == 2 and state.hand.dead[position] == 1
    assert state.total_chips() == total


def test_heads_up_the_big_blind_sitting_out_stops_the_game_and_returns_owing_nothing() -> None:
    state = after_a_hand(seated(2))  # heads-up: the button posts the small blind
    state, _ = when(state, tc.SetSeatOptions("p0", sit_out_next_big_blind=True))
    state, _ = when(state, tc.SetSeatOptions("p1", sit_out_next_big_blind=True))
    state, events = when(state, tc.Tick(1.0))
    big_blind = events[0]
    assert isinstance(big_blind, PlayerSatOut) and big_blind.reason == AT_BIG_BLIND
    assert len(events) == 1  # one player left: no hand, nobody else's blind comes
    assert next_due(state, 1.0) is None
    with pytest.raises(IllegalAction) as err:
        when(state, tc.StartHand("h1", "c", 1.0))
    assert err.value.code == "NOT_ENOUGH_PLAYERS"
    state, _ = when(state, tc.SitIn(big_blind.player_id))
    seat = state.seats[big_blind.seat]
    assert not seat.waiting_for_big_blind and not seat.entry_due  # nothing owed heads-up


def test_the_next_big_blind_set_to_sit_out_too_sits_out_in_turn() -> None:
    state = after_a_hand(seated(5))  # next: button 1, SB 2, BB 3
    state, _ = when(state, tc.SetSeatOptions("p3", sit_out_next_big_blind=True))
    state, _ = when(state, tc.SetSeatOptions("p4", sit_out_next_big_blind=True))
    state, events = when(state, tc.Tick(1.0))
    assert [e.seat for e in events if isinstance(e, PlayerSatOut)] == [3, 4]
    state, began = play_out(state, "h1")
    assert (began.button, began.small_blind_seat, began.big_blind_seat) == (1, 2, 0)


def test_a_newcomer_chooses_to_wait_for_the_big_blind_or_post_an_entry_bet() -> None:
    state = after_a_hand(seated(3))
    state, _ = when(state, tc.SitDown("p5", 5, 100))
    assert state.seats[5].waiting_for_big_blind
    state, _ = when(state, tc.SetSeatOptions("p5", wait_for_big_blind=False))
    assert state.seats[5].entry_due and not state.seats[5].waiting_for_big_blind
    state, _ = when(state, tc.SetSeatOptions("p5", wait_for_big_blind=True))
    assert state.seats[5].waiting_for_big_blind and not state.seats[5].entry_due
    state, began = play_out(state, "h1")  # button 1, SB 2, BB 5: dealt in at the big blind
    assert began.big_blind_seat == 5 and 5 in began.seats


def test_auto_post_off_asks_before_the_blind_and_the_answer_posts_it() -> None:
    config = TableConfig(seats=6, action_seconds=10)
    state = after_a_hand(seated(4, config=config))  # next: SB 2, BB 3
    state, _ = when(state, tc.SetSeatOptions("p3", auto_post_blinds=False))
    state, events = when(state, tc.Tick(100.0))
    assert events == [BlindAsked(3, 110.0)]  # the blind clock: at most the action clock
    assert next_due(state, 105.0) is None and wake_at(state) == 110.0
    with pytest.raises(IllegalAction) as err:
        when(state, tc.StartHand("h1", "c", 101.0))
    assert err.value.code == "BLIND_PENDING"
    with pytest.raises(IllegalAction) as err:
        when(state, tc.AnswerBlind("p2", post=True, now=101.0))
    assert err.value.code == "NO_BLIND_DUE"
    state, events = when(state, tc.AnswerBlind("p3", post=True, now=102.0))
    assert events == [BlindAgreed(3)]
    assert next_due(state, 102.0) == HandDue("2")
    state, began = play_out(state, "h1", now=102.0)
    assert began.big_blind_seat == 3
    # the answer holds for one hand: the next blind is asked again
    assert not state.seats[3].blind_agreed


def test_a_declined_or_unanswered_blind_sits_the_seat_out_and_the_blind_moves_on() -> None:
    config = TableConfig(seats=6, action_seconds=10)
    state = after_a_hand(seated(4, config=config))
    state, _ = when(state, tc.SetSeatOptions("p3", auto_post_blinds=False))
    declined, _ = when(state, tc.Tick(100.0))
    declined, events = when(declined, tc.AnswerBlind("p3", post=False, now=101.0))
    assert events == [PlayerSatOut(3, DECLINED_BLIND, "p3")]
    state, _ = when(state, tc.Tick(100.0))
    assert when(state, tc.Tick(109.9))[1] == []  # not before its deadline
    state, events = when(state, tc.Tick(110.0))
    assert events == [PlayerSatOut(3, BLIND_TIMED_OUT, "p3")]
    assert state.blind_seat is None
    state, began = play_out(state, "h1", now=111.0)
    assert began.big_blind_seat == 0 and state.seats[3].missed_big_blind


def test_a_small_blind_and_an_entry_bet_are_asked_too() -> None:
    state = after_a_hand(seated(4))  # next: SB 2
    state, _ = when(state, tc.SetSeatOptions("p2", auto_post_blinds=False))
    state, events = when(state, tc.Tick(5.0))
    assert [type(e) for e in events] == [BlindAsked] and state.blind_seat == 2
    # turning auto-post back on answers the question: the hand may start
    state, _ = when(state, tc.SetSeatOptions("p2", auto_post_blinds=True))
    assert state.blind_seat is None and next_due(state, 5.0) == HandDue("2")


def test_bad_seat_options_and_answers_are_refused_and_change_nothing() -> None:
    state = after_a_hand(seated(3))
    with pytest.raises(InvalidCommand) as bad:
        when(state, tc.SetSeatOptions("p1"))
    assert bad.value.code == "NO_SEAT_OPTION"
    with pytest.raises(IllegalAction) as err:
        when(state, tc.SetSeatOptions("ghost", auto_post_blinds=False))
    assert err.value.code == "NOT_SEATED"
    with pytest.raises(IllegalAction) as err:
        when(state, tc.AnswerBlind("p1", post=True))
    assert err.value.code == "NO_BLIND_DUE"
    assert when(state, tc.SetSeatOptions("p1", auto_post_blinds=True))[1] == []  # as it was
    tournament = given(tc.SitDown("a", 0, 100), config=TableConfig(seats=6, tournament=True))
    with pytest.raises(IllegalAction) as err:
        when(tournament, tc.SetSeatOptions("a", sit_out_next_big_blind=True))
    assert err.value.code == "NOT_AT_TOURNAMENT"


def test_the_settings_move_with_a_seat_change() -> None:
    state = after_a_hand(seated(3))
    state, _ = when(state, tc.SetSeatOptions("p2", sit_out_next_big_blind=True))
    state, _ = when(state, tc.SetSeatOptions("p2", auto_post_blinds=False))
    state, _ = when(state, tc.ChangeSeat("p2", 5))
    assert state.seats[5].sit_out_next_big_blind and not state.seats[5].auto_post_blinds
