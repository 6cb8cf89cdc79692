"""The acting seat's clock as views tell it: before the clock runs out, ``action_deadline`` is
the clock's end and the seat's time bank is still to come; once the bank runs, the deadline is
the bank's end and ``time_bank_running`` says so, so a client does not count the bank twice
(the terminal client showed "60s (+60s bank)" with 60 seconds left)."""

from __future__ import annotations

from holdem.common.v1 import common_pb2

from libs.table import TableConfig
from libs.table import commands as tc
from libs.tui.model import TableModel
from services.table.views import player_view
from tests.table.table_steps import deal_hole, seated, when


def test_the_time_bank_is_counted_once_in_every_view_and_by_the_terminal_client() -> None:
    config = TableConfig(seats=6, action_seconds=10, time_bank_seconds=5)
    state = seated(3, config=config)
    state, _ = when(state, tc.StartHand("h", "c", 100.0))
    state = deal_hole(state, now=100.0)
    seat = state.hand_seats[2]
    me = f"p{seat}"

    def views() -> list[common_pb2.PlayerView]:
        return [player_view("t", state, 1, who) for who in (me, f"p{state.hand_seats[0]}", None)]

    for view in views():  # the clock runs: the bank is still to come
        assert view.acting_seat == seat and view.action_deadline.seconds == 110
        assert not view.time_bank_running
    model = TableModel("t")
    model.set_view(player_view("t", state, 1, me))
    assert model.turn_line(104.0) == "Your turn 6s (+5s bank)"

    state, _ = when(state, tc.Tick(110.0))  # the clock ran out: the bank runs
    for view in views():
        assert view.action_deadline.seconds == 115 and view.time_bank_running
    model.set_view(player_view("t", state, 1, me))
    assert model.turn_line(111.0) == "Your turn 4s (time bank)"
    watcher = TableModel("t")
    watcher.set_view(player_view("t", state, 1, None))
    assert watcher.turn_line(111.0).endswith("to act 4s (time bank)")

    state, _ = when(state, tc.Act(me, tc.PlayerAction.CALL, now=112.0))  # the next seat's clock
    view = player_view("t", state, 1, me)
    assert view.acting_seat != seat and not view.time_bank_running
