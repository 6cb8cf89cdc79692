"""The table aggregate, given-when-then on events: seating, blinds, the clock, limits, voiding."""

from __future__ import annotations

import pytest
from holdem.common.v1 import common_pb2

from libs.poker import (
    ActionKind,
    ActionTaken,
    DealBoard,
    DealHoleCards,
    HandEnded,
    HandVoided,
    IllegalAction,
    InvalidCommand,
    Phase,
    legal_actions,
)
from libs.poker.cards import DECK
from libs.table import TableConfig, TableState, replay, step_table
from libs.table import commands as tc
from libs.table.automation import HandDue, next_due
from libs.table.commands import PlayerAction
from libs.table.events import (
    ClockStarted,
    CloseRequested,
    Event,
    HandBegan,
    PlayerLeft,
    PlayerSatOut,
    PlayerSeated,
    PlayerTimedOut,
    TableClosed,
    TimeBankStarted,
    TimeBankUsed,
)
from services.table.views import player_view


def given(*commands: tc.TableCommand, config: TableConfig | None = None) -> TableState:
    state = TableState()
    for command in (tc.OpenTable("t1", config or TableConfig(seats=6), 0.0), *commands):
        state, _ = step_table(state, command)
    return state


def when(state: TableState, command: tc.TableCommand) -> tuple[TableState, list[Event]]:
    new, events = step_table(state, command)
    return new, list(events)


def deal_hole(state: TableState, now: float = 0.0) -> TableState:
    assert state.hand is not None
    n = state.hand.player_count
    k = state.hand.config.variant.hole_card_count
    for p in range(n):
        state, _ = step_table(
            state, tc.Deal((DealHoleCards(p, tuple(DECK[p * k : p * k + k])),), now)
        )
    return state


def seated(n: int, stack: int = 100, config: TableConfig | None = None) -> TableState:
    return given(*(tc.SitDown(f"p{i}", i, stack) for i in range(n)), config=config)


def after_a_hand(state: TableState) -> TableState:
    """The table once a first hand was played (voided here): newcomers no longer join freely."""
    state, _ = step_table(state, tc.StartHand("h0", "c", 0.5))
    state, _ = step_table(state, tc.VoidCurrentHand("test"))
    return state


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


def test_an_entry_bet_is_a_live_big_blind_in_the_next_hand() -> None:
    state = after_a_hand(seated(3))
    state, _ = when(state, tc.SitDown("late", 4, 100, post_entry_bet=True))
    state, _ = when(state, tc.StartHand("h1", "c", 1.0))
    assert state.hand is not None
    position = state.hand_seats.index(4)
    assert state.hand.bets[position] == 2 and state.hand.config.big_blind_position == 1


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


def test_a_command_from_someone_not_seated_is_refused() -> None:
    state = seated(2)
    with pytest.raises(IllegalAction) as err:
        step_table(state, tc.Act("ghost", PlayerAction.FOLD))
    assert err.value.code == "NOT_SEATED"


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


def _next_hand(state: TableState, hand_id: str) -> tuple[TableState, HandBegan]:
    state, events = when(state, tc.StartHand(hand_id, "c", 1.0))
    began = events[0]
    assert isinstance(began, HandBegan)
    state, _ = when(state, tc.VoidCurrentHand("test"))
    return state, began


def test_missed_blinds_are_posted_on_return_big_live_and_small_dead() -> None:
    state = after_a_hand(seated(4))  # button 0 played: next button 1, SB 2, BB 3
    state, _ = when(state, tc.SitOut("p3"))
    state, began = _next_hand(state, "h1")  # p3 out: button 1, SB 2, BB 0
    assert 3 not in began.seats
    state, began = _next_hand(state, "h2")  # button 2, SB 0, BB 1: both passed seat 3
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
    state, _ = _next_hand(state, "h1")
    state, _ = _next_hand(state, "h2")
    state, _events = when(state, tc.SitIn("p3"))
    assert state.seats[3].waiting_for_big_blind


def test_a_player_who_missed_no_blind_plays_at_once_on_return() -> None:
    state = after_a_hand(seated(4))  # next: button 1, SB 2, BB 3
    state, _ = when(state, tc.SitOut("p0"))
    state, _began = _next_hand(state, "h1")  # seat 0 is behind the blinds: nothing missed
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


def test_a_player_who_sits_out_right_after_the_big_blind_owes_none_on_return() -> None:
    state = after_a_hand(seated(4))  # button 0 played: SB 1 and BB 2 were posted
    state, _ = when(state, tc.SitOut("p2"))
    state, began = _next_hand(state, "h1")  # button 1, SB 3, BB 0: past seat 2, paid just now
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
