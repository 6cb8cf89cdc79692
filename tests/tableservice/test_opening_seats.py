"""A table opened with its players seated in one command: one commit holds the opening and
every seat, the table is the same as one opened and then seated one command at a time, the
first hand starts from it, and a refusal of any seat (a bad buy-in, a seat taken twice, a player
twice, a seat the table does not have) refuses the whole opening, leaving nothing behind. Over
the wire the seats are bounded (at most ten) and only a caller that may seat may send them."""

from __future__ import annotations

import asyncio

import pytest
from holdem.table.v1 import table_pb2

from libs.eventstore import InMemoryEventStore, InMemorySnapshotStore
from libs.platform.validator import violations
from libs.poker.errors import IllegalAction, InvalidCommand
from libs.table import TableConfig, TableState, step_table
from libs.table import commands as tc
from libs.table.events import PlayerSeated, TableOpened
from libs.tableproto.config import config_to_proto
from libs.tableproto.envelope import decode_commit
from services.table.app import TableApp
from services.table.dealing import LocalDealer
from services.table.requests import table_command

CONFIG = TableConfig(seats=6, small_blind=1, big_blind=2, min_buy_in=40, max_buy_in=200)
SEATS = tuple(tc.SitDown(f"p{i}", i, 100, display_name=f"P {i}") for i in range(6))


def test_an_opening_with_seats_is_the_table_opened_then_seated() -> None:
    together, events = step_table(TableState(), tc.OpenTable("t", CONFIG, 1.0, SEATS))
    assert [type(e) for e in events] == [TableOpened] + [PlayerSeated] * 6
    apart = TableState()
    apart_commands: list[tc.TableCommand] = [tc.OpenTable("t", CONFIG, 1.0), *SEATS]
    for command in apart_commands:
        apart, _ = step_table(apart, command)
    assert together == apart
    assert {n: s.display_name for n, s in together.seats.items()} == {i: f"P {i}" for i in range(6)}


@pytest.mark.parametrize(
    ("seats", "error"),
    [
        ((tc.SitDown("a", 0, 100), tc.SitDown("b", 1, 10)), InvalidCommand),  # buy-in too small
        ((tc.SitDown("a", 0, 100), tc.SitDown("b", 0, 100)), IllegalAction),  # one seat twice
        ((tc.SitDown("a", 0, 100), tc.SitDown("a", 1, 100)), IllegalAction),  # a player twice
        ((tc.SitDown("a", 6, 100),), InvalidCommand),  # seats are 0..5
    ],
)
def test_a_refused_seat_refuses_the_whole_opening(
    seats: tuple[tc.SitDown, ...], error: type[Exception]
) -> None:
    async def body() -> None:
        events = InMemoryEventStore()
        app = TableApp(events, InMemorySnapshotStore(), LocalDealer())
        with pytest.raises(error):
            await app.execute("t", tc.OpenTable("t", CONFIG, 1.0, seats), "open")
        assert await events.read("t") == []  # nothing committed
        # and the table can still be opened properly
        await app.execute("t", tc.OpenTable("t", CONFIG, 1.0, SEATS[:2]), "open-again")
        assert sorted((await app.state("t")).seats) == [0, 1]

    asyncio.run(body())


def test_one_commit_opens_and_seats_and_the_first_hand_starts() -> None:
    async def body() -> None:
        events = InMemoryEventStore()
        app = TableApp(events, InMemorySnapshotStore(), LocalDealer())
        await app.execute("t", tc.OpenTable("t", CONFIG, 1.0, SEATS), "open")
        await app.drive("t")
        commits = [decode_commit(c.data)[1] for c in await events.read("t")]
        assert [type(e) for e in commits[0]] == [TableOpened] + [PlayerSeated] * 6
        assert not any(isinstance(e, PlayerSeated) for c in commits[1:] for e in c)
        state = await app.state("t")
        assert state.hand_in_progress and state.total_chips() == 600

    asyncio.run(body())


def test_the_wire_opening_carries_its_seats_in_order() -> None:
    request = table_pb2.SubmitCommandRequest(
        table_id="t",
        idempotency_key="open",
        open_table=table_pb2.OpenTable(
            config=config_to_proto(CONFIG),
            seats=[
                table_pb2.SeatPlayer(player_id="b", seat=3, buy_in=50, display_name="Bee"),
                table_pb2.SeatPlayer(player_id="a", buy_in=60, wait_for_big_blind=True),
            ],
        ),
    )
    command = table_command(request, "open_table", "t", 2.0)
    assert isinstance(command, tc.OpenTable)
    assert [(s.player_id, s.seat, s.buy_in, s.display_name) for s in command.seats] == [
        ("b", 3, 50, "Bee"),
        ("a", None, 60, ""),
    ]
    assert [s.post_entry_bet for s in command.seats] == [True, False]


def test_the_wire_bounds_the_seats_and_checks_each() -> None:
    def opening(*seats: table_pb2.SeatPlayer) -> table_pb2.SubmitCommandRequest:
        return table_pb2.SubmitCommandRequest(
            table_id="t",
            idempotency_key="open",
            open_table=table_pb2.OpenTable(config=config_to_proto(CONFIG), seats=seats),
        )

    ten = [table_pb2.SeatPlayer(player_id=f"p{i}", buy_in=100) for i in range(10)]
    assert violations(opening(*ten)) == []
    too_many = violations(opening(*ten, table_pb2.SeatPlayer(player_id="p10", buy_in=100)))
    assert [v.field for v in too_many] == ["open_table.seats"]
    bad = violations(opening(table_pb2.SeatPlayer(player_id="", buy_in=-5)))
    assert sorted(v.field for v in bad) == [
        "open_table.seats[0].buy_in",
        "open_table.seats[0].player_id",
    ]
