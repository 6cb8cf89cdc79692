"""Seats: who would be big blind next is the table's own rule (checked against
libs.table.planning over random tables), the draw's shuffle is the seed's alone, and a moved
player takes the seat the big blind reaches first."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from libs.table.config import TableConfig
from libs.table.planning import plan_hand
from libs.table.state import Seat, TableState
from libs.tournament.seating import next_big_blind, shuffled


@st.composite
def tables(draw: st.DrawFn) -> tuple[int, dict[int, int], int | None]:
    size = draw(st.integers(2, 10))
    seats = draw(st.lists(st.integers(0, size - 1), min_size=2, max_size=size, unique=True))
    stacks = {seat: draw(st.integers(1, 10_000)) for seat in seats}
    button = draw(st.none() | st.integers(0, size - 1))
    return size, stacks, button


@given(tables())
def test_the_next_big_blind_is_the_tables_own(
    table: tuple[int, dict[int, int], int | None],
) -> None:
    size, stacks, button = table
    state = TableState(
        table_id="t",
        config=TableConfig(seats=size),
        seats={seat: Seat(f"p{seat}", stack) for seat, stack in stacks.items()},
        button=button,
    )
    plan = plan_hand(state)
    assert plan is not None
    ours = next_big_blind(sorted(stacks), -1 if button is None else button, size)
    assert ours == plan.big_blind


def test_fewer_than_two_players_have_no_big_blind() -> None:
    assert next_big_blind([3], 2, 6) is None


def test_the_shuffle_is_the_seeds_alone() -> None:
    items = list(range(50))
    one = shuffled(items, "seed", "draw")
    assert sorted(one) == items and one != items
    assert shuffled(items, "seed", "draw") == one
    assert shuffled(items, "seed", "other salt") != one
    assert shuffled(items, "other seed", "draw") != one
