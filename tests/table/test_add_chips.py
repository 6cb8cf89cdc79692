"""A top-up (AddChips, sent by the lobby's top-up saga): more chips on a seat between that seat's
hands, never above the maximum buy-in."""

from __future__ import annotations

import pytest

from libs.poker import IllegalAction, InvalidCommand
from libs.table import TableConfig
from libs.table import commands as tc
from libs.table.events import ChipsAdded
from tests.table.table_steps import given, when

CONFIG = TableConfig(seats=6, min_buy_in=40, max_buy_in=200, min_players_to_start=3)


def test_chips_are_added_to_the_seat() -> None:
    state = given(tc.SitDown("p1", None, 100), config=CONFIG)
    state, events = when(state, tc.AddChips("p1", 60))
    assert events == [ChipsAdded(0, "p1", 60)]
    assert state.seats[0].stack == 160
    assert state.total_chips() == 160


def test_never_above_the_maximum_buy_in_nor_for_someone_not_seated() -> None:
    state = given(tc.SitDown("p1", None, 100), config=CONFIG)
    with pytest.raises(InvalidCommand):
        when(state, tc.AddChips("p1", 101))
    with pytest.raises(IllegalAction):
        when(state, tc.AddChips("p2", 10))


def test_not_during_the_seats_hand() -> None:
    state = given(
        tc.SitDown("p1", None, 100),
        tc.SitDown("p2", None, 100),
        config=TableConfig(seats=6, min_buy_in=40, max_buy_in=200),
    )
    state, _ = when(state, tc.StartHand("h1", "c", 0.5))
    with pytest.raises(IllegalAction):
        when(state, tc.AddChips("p1", 10))
