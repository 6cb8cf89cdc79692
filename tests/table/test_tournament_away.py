"""An away player at a tournament's table (docs/tournaments.md, "Away players"): sitting out -
asked, or timed out ``timeouts_before_sit_out`` times in a row - they keep their seat and are
blinded off: dealt in, they post their blinds and antes, and the table folds (or checks) for them
at once when it is their turn, with no clock; they sit in to play again. At a cash table a player
sitting out is not dealt in at all."""

from __future__ import annotations

from libs.poker.events import ActionTaken, BlindPosted, HandEnded
from libs.table import TableConfig, TableState
from libs.table import commands as tc
from libs.table.events import ClockStarted, Event, HandBegan, PlayerSatOut, PlayerTimedOut
from tests.table.table_steps import deal_hole, given, when

CONFIG = TableConfig(seats=6, small_blind=10, big_blind=20, tournament=True)
FOLD, CALL, CHECK = tc.PlayerAction.FOLD, tc.PlayerAction.CALL, tc.PlayerAction.CHECK


def _three(config: TableConfig = CONFIG) -> TableState:
    return given(*(tc.SitDown(f"p{i}", i, 1000) for i in range(3)), config=config)


def _deal(state: TableState, number: int, ante: int = 5) -> tuple[TableState, list[Event]]:
    """Release and start hand ``number``, deal the hole cards: the events of starting it."""
    state, _ = when(state, tc.ReleaseHand(number, 10, 20, ante, float(number)))
    state, events = when(state, tc.StartHand(f"h{number}", "c", float(number)))
    return deal_hole(state, float(number)), events


def _clocks(events: list[Event]) -> set[int]:
    return {e.seat for e in events if isinstance(e, ClockStarted)}


def _acts(state: TableState, events: list[Event]) -> list[tuple[int, str]]:
    """(seat, action) of each action in ``events``."""
    return [(state.hand_seats[e.player], str(e.kind)) for e in events if isinstance(e, ActionTaken)]


def test_an_away_player_is_dealt_in_posts_and_is_folded_for_at_once() -> None:
    state, _ = when(_three(), tc.SitOut("p1"))
    state, began = _deal(state, 1)
    assert isinstance(began[0], HandBegan) and began[0].seats == (1, 2, 0)  # button seat 0
    posted = [(state.hand_seats[e.player], e.amount) for e in began if isinstance(e, BlindPosted)]
    assert posted == [(1, 10), (2, 20)]  # the away seat 1 posts its small blind (and ante)
    state, events = when(state, tc.Act("p0", tc.PlayerAction.RAISE, 60, now=2.0))
    assert _acts(state, events) == [(0, "raise"), (1, "fold")]  # seat 0 first, then seat 1
    assert _clocks(events) == {2}  # the clock runs for the big blind, never for the away seat
    state, events = when(state, tc.Act("p2", FOLD, now=3.0))
    assert any(isinstance(e, HandEnded) for e in events)
    assert state.seats[1].sitting_out and state.seats[1].stack == 1000 - 5 - 10
    assert state.total_chips() == 3000


def test_an_away_big_blind_checks_when_that_is_free_and_sits_in_to_play_again() -> None:
    state, _ = when(_three(), tc.SitOut("p2"))
    state, _ = _deal(state, 1, ante=0)
    state, _ = when(state, tc.Act("p0", CALL, now=2.0))
    state, events = when(state, tc.Act("p1", CALL, now=2.0))
    assert _acts(state, events) == [(1, "call"), (2, "check")]  # the away big blind's option
    assert 2 not in _clocks(events)
    state, _ = when(state, tc.VoidCurrentHand("test"))
    state, _ = when(state, tc.SitIn("p2"))
    state, _ = _deal(state, 2, ante=0)  # button seat 1: p2 small blind, p0 big blind, p1 first
    state, events = when(state, tc.Act("p1", CALL, now=3.0))
    assert _clocks(events) == {2}  # back: their own decision, on the clock


def test_a_player_who_times_out_is_sat_out_and_then_blinded_off_without_the_clock() -> None:
    config = TableConfig(
        seats=6, small_blind=10, big_blind=20, tournament=True, timeouts_before_sit_out=1
    )
    state, _ = _deal(_three(config), 1)
    assert state.clock_seat == 0  # seat 0 first to act, and it never does
    events: list[Event] = []
    while not any(isinstance(e, PlayerTimedOut) for e in events):  # the clock, then the bank
        state, events = when(state, tc.Tick(state.deadline))
    assert PlayerSatOut(0, "timed out", "p0") in events
    state, _ = when(state, tc.VoidCurrentHand("test"))
    state, _ = _deal(state, 2)  # button seat 1, p2 small blind, the away p0 big blind
    state, _ = when(state, tc.Act("p1", CALL, now=3.0))
    state, events = when(state, tc.Act("p2", tc.PlayerAction.RAISE, 60, now=3.0))
    assert _acts(state, events) == [(2, "raise"), (0, "fold")]
    assert _clocks(events) == {1}
    state, _ = when(state, tc.Act("p1", FOLD, now=4.0))
    assert state.seats[0].sitting_out and state.seats[0].stack == 1000 - 5 - 20
    assert state.total_chips() == 3000


def test_at_a_cash_table_a_player_sitting_out_is_not_dealt_in() -> None:
    state = given(*(tc.SitDown(f"p{i}", i, 100) for i in range(3)))
    state, _ = when(state, tc.SitOut("p1"))
    state, events = when(state, tc.StartHand("h1", "c", 1.0))
    assert isinstance(events[0], HandBegan) and sorted(events[0].seats) == [0, 2]
