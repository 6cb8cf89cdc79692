"""Showing and mucking at a table of people: the showdown turn has a clock, a hand that cannot
win may be mucked (by the player, by their auto-muck setting, or by the clock), a hand that must be
shown to win is shown, and a winner without a showdown may show afterwards (RULES.md)."""

from __future__ import annotations

import pytest

from libs.poker import DealBoard, DealHoleCards, HandEnded, IllegalAction, Phase, legal_actions
from libs.poker.cards import parse_cards
from libs.poker.events import HandMucked, HandShown
from libs.table import TableConfig, TableState, replay, step_table
from libs.table import commands as tc
from libs.table.commands import PlayerAction
from libs.table.events import AutoMuckSet, ClockStarted, Event

# p0 holds the nuts on this board; p1 holds nothing.
HOLE = {0: "AsAh", 1: "7c2d"}
BOARD = ("AdAcKs", "9h", "4c")


def to_showdown(
    *, auto_muck_p0: bool = False, auto_muck_p1: bool = False, river_bettor: str = ""
) -> tuple[TableState, list[Event]]:
    """Two players, checked (or called) down to the river's showdown (``river_bettor`` bets the
    river, so shows first); the events so far."""
    state = TableState()
    events: list[Event] = []

    def run(command: tc.TableCommand) -> None:
        nonlocal state
        state, new = step_table(state, command)
        events.extend(new)

    run(tc.OpenTable("t", TableConfig(seats=6), 0.0))
    run(tc.SitDown("p0", 0, 100))
    run(tc.SitDown("p1", 1, 100))
    if auto_muck_p0:
        run(tc.SetAutoMuck("p0", True))
    if auto_muck_p1:
        run(tc.SetAutoMuck("p1", True))
    run(tc.StartHand("h1", "c", 1.0))
    assert state.hand is not None
    for position, seat in enumerate(state.hand_seats):
        run(tc.Deal((DealHoleCards(position, parse_cards(HOLE[seat])),), 1.0))
    streets = iter(BOARD)
    while state.hand is not None and state.hand.phase is not Phase.SHOWDOWN:
        hand = state.hand
        if not state.hand_in_progress:
            break
        if hand.phase is Phase.DEALING_BOARD:
            run(tc.Deal((DealBoard(parse_cards(next(streets))),), 2.0))
            continue
        options = legal_actions(hand)
        assert options is not None
        acting = state.acting_seat()
        if f"p{acting}" == river_bettor and len(hand.board) == 5 and options.can_check:
            run(tc.Act(f"p{acting}", PlayerAction.BET, options.min_to, now=2.0))
            continue
        action = PlayerAction.CHECK if options.can_check else PlayerAction.CALL
        run(tc.Act(f"p{acting}", action, now=2.0))
    return state, events


def test_a_person_s_showdown_turn_has_a_clock_and_waits_for_them() -> None:
    state, events = to_showdown()
    assert state.hand_in_progress and state.acting_seat() is not None
    assert isinstance(events[-1], ClockStarted) and events[-1].seat == state.acting_seat()


def test_the_second_player_may_show_or_muck() -> None:
    state, events = to_showdown()
    first = state.acting_seat()
    assert first is not None
    state, new = step_table(state, tc.ShowOrMuck(f"p{first}", True, 3.0))
    events += new
    second = state.acting_seat()
    assert second is not None and second != first
    if second == 0:
        state, new = step_table(state, tc.ShowOrMuck("p0", True, 3.0))
    else:
        state, new = step_table(state, tc.ShowOrMuck("p1", False, 3.0))
        assert any(isinstance(e, HandMucked) for e in new)
    events += new
    assert any(isinstance(e, HandEnded) for e in events)
    assert state.total_chips() == 200
    assert replay(events) == state


def test_the_clock_mucks_a_beaten_hand_and_shows_one_that_wins() -> None:
    state, events = to_showdown()
    now = 10_000.0
    while state.hand_in_progress:
        now += 1_000.0
        state, new = step_table(state, tc.Tick(now))
        events += new
    shown = {e.player for e in events if isinstance(e, HandShown)}
    mucked = {e.player for e in events if isinstance(e, HandMucked)}
    assert state.hand is not None
    p0, p1 = state.hand_seats.index(0), state.hand_seats.index(1)
    assert p0 in shown
    assert p1 in mucked or p1 in shown  # shown only when p1 had to show first
    if p1 in mucked:
        assert p1 not in shown
    assert state.seats[0].stack == 102 and state.seats[1].stack == 98


def test_auto_muck_mucks_a_hand_that_cannot_win_without_asking() -> None:
    state, events = to_showdown(auto_muck_p1=True, river_bettor="p0")
    assert state.acting_seat() == 0  # p0 bet last: shows first
    state, new = step_table(state, tc.ShowOrMuck("p0", True, 3.0))
    events += new
    assert not state.hand_in_progress  # p1's hand cannot win: mucked without asking
    assert state.hand is not None
    p1 = state.hand_seats.index(1)
    assert any(isinstance(e, HandMucked) and e.player == p1 for e in events)
    assert not any(isinstance(e, HandShown) and e.player == p1 for e in events)
    assert replay(events) == state


def test_auto_muck_is_a_seat_setting_recorded_once() -> None:
    state, _ = to_showdown()
    state, new = step_table(state, tc.SetAutoMuck("p1", True))
    assert new == [AutoMuckSet(1, True)]
    _, again = step_table(state, tc.SetAutoMuck("p1", True))
    assert again == []


def test_a_winner_without_showdown_may_show_after_the_hand() -> None:
    state = TableState()
    for command in (
        tc.OpenTable("t", TableConfig(seats=6), 0.0),
        tc.SitDown("p0", 0, 100),
        tc.SitDown("p1", 1, 100),
        tc.StartHand("h1", "c", 1.0),
    ):
        state, _ = step_table(state, command)
    assert state.hand is not None
    for position, seat in enumerate(state.hand_seats):
        state, _ = step_table(
            state, tc.Deal((DealHoleCards(position, parse_cards(HOLE[seat])),), 1.0)
        )
    folder = state.acting_seat()
    state, _ = step_table(state, tc.Act(f"p{folder}", PlayerAction.FOLD, now=2.0))
    assert not state.hand_in_progress
    winner = 1 - (folder or 0)
    with pytest.raises(IllegalAction):
        step_table(state, tc.ShowOrMuck(f"p{winner}", False, 3.0))
    with pytest.raises(IllegalAction):
        step_table(state, tc.ShowOrMuck(f"p{winner}", True, 3.0, hand_id="other"))
    state, new = step_table(state, tc.ShowOrMuck(f"p{winner}", True, 3.0, hand_id="h1"))
    assert [type(e) for e in new] == [HandShown]
    assert not any(isinstance(e, (HandEnded,)) for e in new)


def test_a_player_who_takes_a_seat_after_the_hand_cannot_show_its_last_occupants_cards() -> None:
    """The last hand's cards at a seat belong to whoever was dealt them: once that player left
    and somebody else sat down there, a voluntary show of that hand is refused (it would make
    the previous occupant's unshown cards public), and the newcomer's view holds none of them."""
    from services.table.views import player_view

    state = TableState()
    for command in (
        tc.OpenTable("t", TableConfig(seats=6), 0.0),
        tc.SitDown("p0", 0, 100),
        tc.SitDown("p1", 1, 100),
        tc.StartHand("h1", "c", 1.0),
    ):
        state, _ = step_table(state, command)
    for position, seat in enumerate(state.hand_seats):
        state, _ = step_table(
            state, tc.Deal((DealHoleCards(position, parse_cards(HOLE[seat])),), 1.0)
        )
    folder = state.acting_seat()
    assert folder is not None
    state, _ = step_table(state, tc.Act(f"p{folder}", PlayerAction.FOLD, now=2.0))
    assert not state.hand_in_progress
    state, _ = step_table(state, tc.Leave(f"p{folder}", 3.0))
    state, _ = step_table(state, tc.SitDown("newcomer", folder, 100))
    assert state.seats[folder].player_id == "newcomer" and state.position_of(folder) is None
    with pytest.raises(IllegalAction):
        step_table(state, tc.ShowOrMuck("newcomer", True, 4.0, hand_id="h1"))
    view = player_view("t", state, 9, "newcomer")
    assert all(not seat.hole_cards for seat in view.seats)
    winner = 1 - folder  # the one who was dealt at the other seat still may
    state, new = step_table(state, tc.ShowOrMuck(f"p{winner}", True, 4.0, hand_id="h1"))
    assert [type(e) for e in new] == [HandShown]
    # the same holds for a state rebuilt from its events, and one read from a snapshot
    from libs.table import codec

    again = codec.snapshot_loads(codec.snapshot_dumps(state, []))[0]
    assert again.hand_players == state.hand_players and again.position_of(folder) is None
