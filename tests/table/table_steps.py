"""Given-when-then on the table aggregate's events: ``given`` commands build a table, ``when``
one more runs, and the helpers below seat players and play or void a first hand."""

from __future__ import annotations

from libs.poker import (
    DealHoleCards,
)
from libs.poker.cards import DECK
from libs.table import TableConfig, TableState, step_table
from libs.table import commands as tc
from libs.table.events import (
    Event,
    HandBegan,
)


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


def next_hand(state: TableState, hand_id: str) -> tuple[TableState, HandBegan]:
    state, events = when(state, tc.StartHand(hand_id, "c", 1.0))
    began = events[0]
    assert isinstance(began, HandBegan)
    state, _ = when(state, tc.VoidCurrentHand("test"))
    return state, began
