"""A player who folded and leaves during the hand keeps the seat until the hand ends: the chips
they put in stay in the pot, they are cashed out with their stack after the hand, and the end of
the hand finds every seat it dealt in (it used to fail with a KeyError, found by tests/e2e)."""

from __future__ import annotations

from libs.poker.cards import DECK
from libs.poker.commands import DealHoleCards
from libs.table import TableConfig, TableState, step_table
from libs.table import commands as tc
from libs.table.commands import PlayerAction
from libs.table.events import LeaveRequested, PlayerLeft


def test_a_folded_player_leaving_mid_hand_is_cashed_out_after_the_hand() -> None:
    state = TableState()
    setup: tuple[tc.TableCommand, ...] = (
        tc.OpenTable("t", TableConfig(seats=6), 0.0),
        *(tc.SitDown(f"p{i}", i, 100) for i in range(3)),
        tc.StartHand("1", "c", 1.0, "d"),
    )
    for command in setup:
        state, _ = step_table(state, command)
    assert state.hand is not None
    deals = tuple(DealHoleCards(p, tuple(DECK[p * 2 : p * 2 + 2])) for p in range(3))
    state, _ = step_table(state, tc.Deal(deals, 1.0))
    first = state.hand_seats[2]  # first to act preflop with three players (the button)
    small = state.hand_seats[0]
    state, _ = step_table(state, tc.Act(f"p{first}", PlayerAction.CALL, now=2.0))
    state, _ = step_table(state, tc.Act(f"p{small}", PlayerAction.FOLD, now=2.0))
    state, events = step_table(state, tc.Leave(f"p{small}", 2.0))
    assert events == [LeaveRequested(small)]  # not yet: the small blind is in the pot
    big = state.hand_seats[1]
    state, _ = step_table(state, tc.Act(f"p{big}", PlayerAction.RAISE, 4, now=3.0))
    state, events = step_table(state, tc.Act(f"p{first}", PlayerAction.FOLD, now=3.0))
    left = [e for e in events if isinstance(e, PlayerLeft)]
    assert left == [PlayerLeft(small, f"p{small}", 99)]  # 100 less the small blind
    assert small not in state.seats
    assert sum(seat.stack for seat in state.seats.values()) + 99 == 300
