"""Showing and mucking at a table of people: a hand that must be shown to win is shown without
asking; a hand that cannot win is asked about on the showdown's own short clock (no time bank, no
time-out) and may be mucked (by the player, by their auto-muck setting, or by the clock); a winner
without a showdown may show afterwards (RULES.md)."""

from __future__ import annotations

import pytest

from libs.poker import DealBoard, DealHoleCards, HandEnded, IllegalAction, Phase, legal_actions
from libs.poker.cards import parse_cards
from libs.poker.events import HandMucked, HandShown
from libs.table import TableConfig, TableState, replay, step_table
from libs.table import commands as tc
from libs.table.commands import PlayerAction
from libs.table.config import SHOWDOWN_SECONDS
from libs.table.events import (
    AutoMuckSet,
    ClockStarted,
    Event,
    PlayerTimedOut,
    TimeBankStarted,
    TimeBankUsed,
)

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


def test_a_hand_that_must_be_shown_to_win_is_shown_without_asking() -> None:
    """p1 bets the river and shows first: nothing is shown yet, so p1's hand could win and is
    shown at once; p0's nuts beat it and are shown at once too. Nobody is asked."""
    state, events = to_showdown(river_bettor="p1")
    assert not state.hand_in_progress
    assert state.hand is not None
    assert {e.player for e in events if isinstance(e, HandShown)} == {0, 1}
    first_shown = next(i for i, e in enumerate(events) if isinstance(e, HandShown))
    assert not any(isinstance(e, (ClockStarted, HandMucked)) for e in events[first_shown:])
    assert state.seats[0].stack == 104 and state.total_chips() == 200
    assert replay(events) == state


def test_a_beaten_hand_is_asked_on_a_short_clock() -> None:
    """p0 bets the river, so shows first (at once); p1's hand cannot win, and mucking it is a
    real choice: p1 is asked, with the showdown's own clock, not the action clock."""
    state, events = to_showdown(river_bettor="p0")
    assert state.hand_in_progress and state.acting_seat() == 1
    assert state.hand is not None and state.hand.shown[state.hand_seats.index(0)] is not None
    clock = events[-1]
    assert isinstance(clock, ClockStarted) and clock.seat == 1
    config = TableConfig(seats=6)
    assert config.showdown_seconds == SHOWDOWN_SECONDS < config.action_seconds
    assert clock.deadline == 2.0 + config.showdown_seconds


@pytest.mark.parametrize("show", [True, False])
def test_the_beaten_player_shows_or_mucks(show: bool) -> None:
    state, events = to_showdown(river_bettor="p0")
    state, new = step_table(state, tc.ShowOrMuck("p1", show, 3.0))
    events += new
    kind = HandShown if show else HandMucked
    assert type(new[0]) is kind
    assert any(isinstance(e, HandEnded) for e in new)
    assert state.seats[0].stack == 104 and state.total_chips() == 200
    assert replay(events) == state


def test_the_showdown_clock_spends_no_time_bank_and_is_no_time_out() -> None:
    state, events = to_showdown(river_bettor="p0")
    bank = state.seats[1].time_bank
    state, new = step_table(state, tc.Tick(2.0 + SHOWDOWN_SECONDS))
    events += new
    assert not any(isinstance(e, (TimeBankStarted, TimeBankUsed, PlayerTimedOut)) for e in new)
    assert any(isinstance(e, HandMucked) for e in new)  # the clock mucks a hand that cannot win
    assert not state.hand_in_progress
    assert state.seats[1].time_bank == bank and state.seats[1].timeouts == 0
    assert replay(events) == state


def test_a_short_action_clock_bounds_the_showdown_clock() -> None:
    assert TableConfig(action_seconds=4).showdown_seconds == 4


def test_auto_muck_mucks_a_hand_that_cannot_win_without_asking() -> None:
    state, events = to_showdown(auto_muck_p1=True, river_bettor="p0")
    assert not state.hand_in_progress  # p0 shown at once; p1's hand cannot win: mucked
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


def test_the_view_says_the_showdown_choice_to_its_player_only() -> None:
    from libs.client.view import can_muck, is_my_turn, is_showdown_turn
    from services.table.views import player_view

    state, _ = to_showdown(river_bettor="p0")
    asked = player_view("t", state, 1, "p1")
    assert asked.HasField("showdown") and asked.showdown.can_muck
    assert not asked.HasField("legal_actions")
    assert is_showdown_turn(asked) and can_muck(asked)
    for viewer in ("p0", None):  # the other player, a spectator
        other = player_view("t", state, 1, viewer)
        assert not other.HasField("showdown") and not is_my_turn(other)
        assert not is_showdown_turn(other) and not can_muck(other)
