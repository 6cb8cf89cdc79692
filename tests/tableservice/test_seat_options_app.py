"""Sitting out and blinds through the table application (in memory): the driver sits a seat out
at its big blind by itself between hands, asks a seat with auto-post off (the question in every
viewer's view, the settings in the owner's only), and the clock's tick sits out a seat that did
not answer in time, then deals the next hand without it; a disconnected player's turn runs out
through the tick. Chips exact."""

from __future__ import annotations

import asyncio

from libs.eventstore import EventStore, InMemoryEventStore, InMemorySnapshotStore
from libs.poker.errors import IllegalAction
from libs.table import TableConfig, TableState
from libs.table import commands as tc
from libs.table.commands import PlayerAction
from libs.table.events import Event, HandBegan, PlayerSatOut, SeatOptionsSet
from libs.table.seat_options import AT_BIG_BLIND, BLIND_TIMED_OUT
from libs.tableproto.envelope import decode_commit, public_event
from services.table.app import TableApp
from services.table.dealing import LocalDealer
from services.table.views import player_view
from tests.conditions import wait_until
from tests.tableservice.harness import SteppingClock, act_in_turn, setup


async def _stream(events: EventStore, table_id: str) -> list[Event]:
    return [e for c in await events.read(table_id) for e in decode_commit(c.data)[1]]


async def _table(players: int, config: TableConfig) -> tuple[TableApp, EventStore, SteppingClock]:
    events, clock = InMemoryEventStore(), SteppingClock()
    app = TableApp(events, InMemorySnapshotStore(), LocalDealer(), clock=clock)
    seats = [tc.SitDown(f"p{i}", i, 100) for i in range(players)]
    await setup(app, "t", [tc.OpenTable("t", config, 0.0), *seats])
    return app, events, clock


async def _fold_until(app: TableApp, done: object, key: str) -> TableState:
    """The player to act folds (checks when free) until ``done(state)``."""
    for i in range(200):
        state = await app.state("t")
        if done(state):  # type: ignore[operator]
            return state
        if state.hand_in_progress and state.acting_seat() is not None:
            try:
                await act_in_turn(app, "t", PlayerAction.FOLD, f"{key}-{i}")
            except IllegalAction:  # checking was free: check
                await act_in_turn(app, "t", PlayerAction.CHECK, f"{key}-c{i}")
        else:
            await asyncio.sleep(0.01)
    raise AssertionError("never got there")


def test_the_driver_sits_a_seat_out_at_its_big_blind() -> None:
    async def body() -> None:
        app, events, _clock = await _table(2, TableConfig(seats=2))
        await app.execute("t", tc.SetSeatOptions("p1", sit_out_next_big_blind=True), "opt")
        since = len(await _stream(events, "t"))
        state = await _fold_until(app, lambda s: s.seats[1].sitting_out, "f")
        assert state.total_chips() == 200
        stream = await _stream(events, "t")
        assert PlayerSatOut(1, AT_BIG_BLIND, "p1") in stream
        began = [e for e in stream[since:] if isinstance(e, HandBegan)]
        assert all(e.big_blind_seat != 1 for e in began)
        assert not state.hand_in_progress  # heads-up: nobody left to play
        await app.stop()

    asyncio.run(body())


def test_an_unanswered_blind_question_times_out_on_the_tick() -> None:
    async def body() -> None:
        app, events, clock = await _table(3, TableConfig(seats=3, action_seconds=10))
        await app.execute("t", tc.SetSeatOptions("p2", auto_post_blinds=False), "opt")
        state = await _fold_until(app, lambda s: s.blind_seat is not None, "f")
        assert state.blind_seat == 2
        seen = player_view("t", state, 0, "p0")
        assert seen.blind_question.seat == 2 and seen.blind_question.amount in (1, 2)
        own = player_view("t", state, 0, "p2")
        assert not next(s for s in own.seats if s.seat == 2).auto_post_blinds
        others = [s for s in seen.seats if s.seat != 0]  # others' settings are not shown
        assert others and not any(s.auto_post_blinds or s.wait_for_big_blind for s in others)
        clock.now += 11  # the question's clock runs out
        await app.tick()

        async def sat_out() -> bool:
            return (await app.state("t")).seats[2].sitting_out

        await wait_until(sat_out, "the seat asked sat out")
        stream = await _stream(events, "t")
        assert PlayerSatOut(2, BLIND_TIMED_OUT, "p2") in stream

        async def dealt() -> bool:
            return (await app.state("t")).hand_in_progress

        await wait_until(dealt, "the next hand, without the seat")
        state = await app.state("t")
        assert 2 not in state.hand_seats and state.total_chips() == 300
        await app.stop()

    asyncio.run(body())


def test_a_disconnected_turn_runs_out_through_the_tick() -> None:
    async def body() -> None:
        config = TableConfig(seats=2, action_seconds=10, time_bank_seconds=5)
        app, events, clock = await _table(2, config)
        state = await app.state("t")
        acting = state.acting_seat()
        assert acting is not None
        player = state.seats[acting].player_id
        await app.execute("t", tc.MarkConnection(player, False, clock()), "gone")
        clock.now += 11
        await app.tick()  # the time bank, once

        async def banked() -> bool:
            return (await app.state("t")).bank_started_at is not None

        await wait_until(banked, "the time bank")
        clock.now += 6
        await app.tick()

        async def sat_out() -> bool:
            return (await app.state("t")).seats[acting].sitting_out

        await wait_until(sat_out, "the disconnected player sat out")
        assert PlayerSatOut(acting, "disconnected", player) in await _stream(events, "t")
        assert (await app.state("t")).total_chips() == 200
        await app.stop()

    asyncio.run(body())


def test_the_public_projection_does_not_tell_a_seats_blind_settings() -> None:
    private = SeatOptionsSet(2, True, False, False)
    assert public_event(private) == SeatOptionsSet(2, False, True, True)
