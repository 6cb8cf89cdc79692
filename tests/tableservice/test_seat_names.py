"""A seat's display name is the table's: the name the lobby seated the player under travels in
the SeatPlayer command, is kept by the PlayerSeated event (so a reload, a snapshot and the public
projection have it) and is in every viewer's view, so the gateway has no name to ask the lobby
for. A commit stored before tables kept names reads with none."""

from __future__ import annotations

from holdem.table.v1 import table_pb2

from libs.table import TableConfig, TableState, codec, replay, step_table
from libs.table import commands as tc
from libs.table.events import Event, PlayerSeated
from services.table.requests import table_command
from services.table.views import player_view


def _seated() -> tuple[TableState, list[Event]]:
    state, events = TableState(), []
    for command in (
        tc.OpenTable("t", TableConfig(seats=3), 0.0),
        tc.SitDown("ann", 0, 100, display_name="Ann the Bold"),
        tc.SitDown("tool", 2, 100),
    ):
        state, new = step_table(state, command)
        events += new
    return state, events


def test_the_name_a_player_sat_down_under_is_in_every_viewers_view() -> None:
    state, events = _seated()
    seated = [e for e in events if isinstance(e, PlayerSeated)]
    assert [(e.player_id, e.display_name) for e in seated] == [
        ("ann", "Ann the Bold"),
        ("tool", ""),
    ]
    for viewer in ("ann", "tool", None, "a stranger"):
        view = player_view("t", state, len(events), viewer)
        assert {s.player_id: s.display_name for s in view.seats} == {
            "ann": "Ann the Bold",
            "tool": "",  # seated without a name (tools): the gateway asks the lobby
        }


def test_the_name_survives_storage_and_a_snapshot() -> None:
    state, events = _seated()
    assert codec.loads(codec.dumps(events)) == events
    assert replay(codec.loads(codec.dumps(events))).seats[0].display_name == "Ann the Bold"
    assert codec.state_loads(codec.state_dumps(state)).seats[0].display_name == "Ann the Bold"


def test_a_seat_stored_before_tables_kept_names_reads_with_none() -> None:
    record = codec.encode(PlayerSeated(1, "old", 100, waits_for_big_blind=False))
    del record["data"]["display_name"]
    old = codec.decode(record)
    assert isinstance(old, PlayerSeated) and old.display_name == ""
    assert codec.decode(record, generic=True) == old


def test_seat_player_carries_the_name_into_the_command() -> None:
    request = table_pb2.SubmitCommandRequest(
        table_id="t",
        idempotency_key="k",
        seat_player=table_pb2.SeatPlayer(player_id="ann", display_name="Ann", buy_in=100),
    )
    command = table_command(request, "seat_player", "t", 1.0)
    assert isinstance(command, tc.SitDown) and command.display_name == "Ann"
