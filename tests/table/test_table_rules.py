"""The table aggregate, given-when-then on events: when a hand may start (players, a person,
room limits), the button and blinds, closing, voiding, a whole hand conserving chips and
replaying; the seating and the clock have their own files."""

from __future__ import annotations

import pytest
from holdem.common.v1 import common_pb2

from libs.poker import (
    DealBoard,
    DealHoleCards,
    HandEnded,
    HandVoided,
    IllegalAction,
    Phase,
    legal_actions,
)
from libs.poker.cards import DECK
from libs.table import TableConfig, TableState, replay, step_table
from libs.table import commands as tc
from libs.table.automation import HandDue, next_due
from libs.table.commands import PlayerAction
from libs.table.events import (
    CloseRequested,
    Event,
    HandBegan,
    PlayerLeft,
    TableClosed,
)
from services.table.views import player_view
from tests.table.table_steps import deal_hole, given, seated, when


def test_the_button_moves_every_hand_and_heads_up_the_button_posts_the_small_blind() -> None:
    state = seated(2)
    buttons = []
    for k in range(3):
        state, events = when(state, tc.StartHand(f"h{k}", "c", 1.0))
        began = events[0]
        assert isinstance(began, HandBegan)
        buttons.append(began.button)
        assert state.hand is not None
        assert state.hand.bets == [2, 1]  # position 1 is the button: small blind
        state, _ = when(state, tc.VoidCurrentHand("test"))
    assert buttons == [0, 1, 0]


def test_a_hand_needs_two_players() -> None:
    state = seated(1)
    with pytest.raises(IllegalAction) as err:
        step_table(state, tc.StartHand("h", "c", 1.0))
    assert err.value.code == "NOT_ENOUGH_PLAYERS"


def test_at_a_table_that_needs_a_person_bots_alone_deal_no_hand() -> None:
    config = TableConfig(seats=6, needs_a_person=True)
    bots = given(*(tc.SitDown(f"bot{i}", i, 100, is_bot=True) for i in range(3)), config=config)
    assert next_due(bots, 1.0) is None  # nothing to drive: the table idles
    with pytest.raises(IllegalAction) as err:
        step_table(bots, tc.StartHand("h", "c", 1.0))
    assert err.value.code == "NOT_ENOUGH_PLAYERS" and "person" in err.value.message
    # a person sits down: a hand starts, the bots in it
    with_person, _ = step_table(bots, tc.SitDown("ann", 3, 100))
    assert isinstance(next_due(with_person, 1.0), HandDue)
    started, _ = step_table(with_person, tc.StartHand("h", "c", 1.0))
    assert started.hand_in_progress and len(started.hand_seats) == 4
    # the person sits out: the bots wait again
    away, _ = step_table(with_person, tc.SitOut("ann"))
    assert next_due(away, 1.0) is None
    # the same bots at a table that does not need a person play each other
    alone = given(*(tc.SitDown(f"bot{i}", i, 100, is_bot=True) for i in range(3)))
    assert isinstance(next_due(alone, 1.0), HandDue)


def test_room_hand_limit_closes_the_table_after_the_hand() -> None:
    config = TableConfig(seats=6, hand_limit=1)
    state = seated(2, config=config)
    state, _ = when(state, tc.StartHand("h", "c", 0.0))
    state = deal_hole(state)
    button = state.hand_seats[1]
    state, events = when(state, tc.Act(f"p{button}", PlayerAction.FOLD))
    closed = events[-1]
    assert isinstance(closed, TableClosed) and state.closed
    assert sum(stack for _, _, stack in closed.stacks) == 200
    with pytest.raises(IllegalAction) as err:
        step_table(state, tc.SitDown("x", 3, 100))
    assert err.value.code == "TABLE_CLOSED"


def test_a_close_asked_for_during_a_hand_is_kept_and_closes_the_table_at_its_end() -> None:
    state = seated(3)
    state, _ = when(state, tc.StartHand("h", "c", 0.0))
    state = deal_hole(state)
    state, events = when(state, tc.CloseTable("closed by its creator"))
    assert events == [CloseRequested("closed by its creator")]
    assert state.hand_in_progress and not state.closed  # the hand plays on
    assert player_view("t1", state, 0, None).table_status == common_pb2.TABLE_STATUS_CLOSING
    state, again = when(state, tc.CloseTable("again"))  # asked again: still kept, no error
    assert again == [CloseRequested("again")]
    while state.hand_in_progress:  # everyone folds to the big blind
        seat = state.acting_seat()
        assert seat is not None
        state, events = when(state, tc.Act(state.seats[seat].player_id, PlayerAction.FOLD))
    closed = events[-1]
    assert isinstance(closed, TableClosed) and state.closed and closed.reason == "again"
    assert sum(stack for _, _, stack in closed.stacks) == 300
    assert player_view("t1", state, 0, None).table_status == common_pb2.TABLE_STATUS_CLOSED
    assert next_due(state, 1.0) is None or not isinstance(next_due(state, 1.0), HandDue)


def test_a_close_between_hands_closes_at_once() -> None:
    state, events = when(seated(2), tc.CloseTable("done"))
    assert isinstance(events[-1], TableClosed) and state.closed


def test_room_time_limit_refuses_new_hands() -> None:
    config = TableConfig(seats=6, duration_seconds=60)
    state = seated(2, config=config)
    with pytest.raises(IllegalAction) as err:
        step_table(state, tc.StartHand("h", "c", 61.0))
    assert err.value.code == "TABLE_CLOSED"


def test_voiding_returns_every_chip_of_the_hand() -> None:
    state = seated(3)
    before = state.total_chips()
    state, _ = when(state, tc.StartHand("h", "c", 0.0))
    state = deal_hole(state)
    state, _ = when(state, tc.Act(f"p{state.hand_seats[2]}", PlayerAction.RAISE, 10))
    state, events = when(state, tc.VoidCurrentHand("dealer unreachable"))
    assert any(isinstance(e, HandVoided) for e in events)
    assert [state.seats[n].stack for n in range(3)] == [100, 100, 100]
    assert state.total_chips() == before


def test_a_whole_hand_through_the_table_conserves_chips_and_replays() -> None:
    opening: list[tc.TableCommand] = [
        tc.OpenTable("t1", TableConfig(seats=6), 0.0),
        *(tc.SitDown(f"p{i}", i, 100) for i in range(3)),
        tc.StartHand("h", "c", 0.0),
    ]
    state = TableState()
    all_events: list[Event] = []

    def run(command: tc.TableCommand) -> None:
        nonlocal state
        state, events = step_table(state, command)
        all_events.extend(events)

    for command in opening:
        run(command)
    hole = state.hand.config.variant.hole_card_count if state.hand else 0
    for p in range(3):
        run(tc.Deal((DealHoleCards(p, tuple(DECK[p * hole : p * hole + hole])),)))
    board = iter(DECK[20:25])
    while state.hand_in_progress:
        hand = state.hand
        assert hand is not None
        if hand.phase is Phase.DEALING_BOARD:
            count = 3 if hand.street == 0 else 1
            run(tc.Deal((DealBoard(tuple(next(board) for _ in range(count))),)))
            continue
        seat = state.acting_seat()
        assert seat is not None
        options = legal_actions(hand)
        if options is None:
            run(tc.ShowOrMuck(f"p{seat}", show=True))
        else:
            run(tc.Act(f"p{seat}", PlayerAction.CHECK if options.can_check else PlayerAction.CALL))
    assert any(isinstance(e, HandEnded) for e in all_events)
    assert state.total_chips() == 300
    assert sum(seat.stack for seat in state.seats.values()) == 300
    assert replay(all_events) == state  # the events alone rebuild the very same table


def test_events_rebuild_the_same_table() -> None:
    events: list[Event] = []
    state = TableState()
    commands: list[tc.TableCommand] = [
        tc.OpenTable("t", TableConfig(seats=4), 0.0),
        tc.SitDown("a", 0, 100),
        tc.SitDown("b", 2, 100),
        tc.StartHand("h1", "c", 1.0),
    ]
    for command in commands:
        state, new = step_table(state, command)
        events += new
    for p in range(2):
        state, new = step_table(state, tc.Deal((DealHoleCards(p, tuple(DECK[2 * p : 2 * p + 2])),)))
        events += new
    rebuilt = replay(events)
    assert rebuilt.seats == state.seats
    assert rebuilt.hand is not None and state.hand is not None
    assert rebuilt.hand.stacks == state.hand.stacks and rebuilt.clock_seat == state.clock_seat


def test_when_players_leave_the_table_goes_heads_up_with_the_button_on_the_small_blind() -> None:
    state = seated(3)
    state, _ = when(state, tc.StartHand("h1", "c", 0.0))
    state, _ = when(state, tc.VoidCurrentHand("test"))
    state, events = when(state, tc.Leave("p2"))
    assert events == [PlayerLeft(2, "p2", 100)]
    state, events = when(state, tc.StartHand("h2", "c", 1.0))
    began = events[0]
    assert isinstance(began, HandBegan) and len(began.seats) == 2
    assert state.hand is not None
    button_position = began.seats.index(began.button)
    assert button_position == 1 and state.hand.bets == [2, 1]  # the button posts the small blind


def test_a_player_left_alone_waits_and_no_hand_starts() -> None:
    state = seated(2)
    state, _ = when(state, tc.Leave("p1"))
    with pytest.raises(IllegalAction) as err:
        step_table(state, tc.StartHand("h", "c", 1.0))
    assert err.value.code == "NOT_ENOUGH_PLAYERS"
