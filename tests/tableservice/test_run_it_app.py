"""Run it twice and the rabbit hunt through the table application, on an in-memory store and on
real JetStream + Redis: both players agree, the table deals the second run from the deck and the
stream verifies against the revealed seed (what ``holdem verify`` checks), chips exact; a table
restarted between the answers and the second run deals the same cards; the rabbit hunt after a
fold, refused during a hand with nothing appended."""

from __future__ import annotations

import asyncio

import pytest
from holdem.table.v1 import table_pb2

from libs.eventstore import EventStore, SnapshotStore
from libs.fairdeck.audit import outcomes_from_stream
from libs.poker import IllegalAction
from libs.poker.events import PotAwarded, RunDealt
from libs.table import TableConfig
from libs.table import commands as tc
from libs.table import errors as TE
from libs.table.commands import PlayerAction
from libs.table.events import Event, RabbitHunted
from libs.tableproto.envelope import decode_commit
from services.table.app import TableApp
from services.table.requests import rabbit_command
from tests.tableservice.harness import (
    HeldDeals,
    InMemoryStores,
    RealStores,
    TableAppContract,
    act_in_turn,
    setup,
)

CONFIG = TableConfig(seats=2, run_it_max=2, rabbit_hunt=True)


async def _stream(events: EventStore, table_id: str) -> list[Event]:
    return [e for c in await events.read(table_id) for e in decode_commit(c.data)[1]]


async def _hand_over(app: TableApp, table_id: str) -> None:
    for _ in range(500):
        state = await app.state(table_id)
        if not state.hand_in_progress and state.hand_id in state.revealed_seeds:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the hand did not end")


async def _start(app: TableApp, table_id: str) -> None:
    await setup(
        app,
        table_id,
        [
            tc.OpenTable(table_id, CONFIG, 0.0),
            tc.SitDown("ann", 0, 100),
            tc.SitDown("bob", 1, 100),
        ],
    )
    app.auto_start = False  # one hand only
    state = await app.state(table_id)
    assert state.hand_in_progress and state.acting_seat() is not None


async def _asked(app: TableApp, table_id: str) -> None:
    for _ in range(500):
        state = await app.state(table_id)
        if state.hand is not None and state.hand.run_asked:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("nobody was asked to run it twice")


class RunItContract(TableAppContract):
    def test_two_runs_agreed_are_dealt_from_the_deck_and_verify(self) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            app = TableApp(events, snapshots, HeldDeals())
            await _start(app, "r1")
            await act_in_turn(app, "r1", PlayerAction.ALL_IN, "shove")
            await act_in_turn(app, "r1", PlayerAction.CALL, "call")
            await _asked(app, "r1")
            await app.act("r1", tc.AnswerRunIt("ann", 2, app.clock()), "ann-2")
            await app.act("r1", tc.AnswerRunIt("bob", 2, app.clock()), "bob-2")
            await _hand_over(app, "r1")
            stream = await _stream(events, "r1")
            assert [e.run for e in stream if isinstance(e, RunDealt)] == [2]
            awards = [e for e in stream if isinstance(e, PotAwarded)]
            assert sum(a.amount for a in awards) == 200 and {a.run for a in awards} == {0, 1}
            state = await app.state("r1")
            assert sum(seat.stack for seat in state.seats.values()) == 200
            [outcome] = outcomes_from_stream(stream)
            assert outcome.ok, outcome.failures
            assert outcome.cards == 4 + 8 + 8  # hole cards, the first run, the second

        self.run(body)

    def test_a_restart_before_the_second_run_deals_the_same_deck(self) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            dealer = HeldDeals()
            app = TableApp(events, snapshots, dealer)
            await _start(app, "r2")
            await act_in_turn(app, "r2", PlayerAction.ALL_IN, "shove")
            await act_in_turn(app, "r2", PlayerAction.CALL, "call")
            await _asked(app, "r2")
            dealer.hold()  # the flop is held: the process "dies" with the runs agreed
            await app.act("r2", tc.AnswerRunIt("ann", 2, app.clock()), "ann-2")
            await app.act("r2", tc.AnswerRunIt("bob", 2, app.clock()), "bob-2")
            await asyncio.wait_for(dealer.asked.wait(), 10)
            await app.stop()
            again = TableApp(events, snapshots, dealer, auto_start=False)  # same deck store
            dealer.go.set()
            await again.drive("r2")
            await _hand_over(again, "r2")
            stream = await _stream(events, "r2")
            assert len([e for e in stream if isinstance(e, RunDealt)]) == 1
            [outcome] = outcomes_from_stream(stream)
            assert outcome.ok, outcome.failures
            state = await again.state("r2")
            assert sum(seat.stack for seat in state.seats.values()) == 200
            await again.stop()

        self.run(body)

    def test_rabbit_hunt_after_a_fold_and_refused_during_a_hand(self) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            app = TableApp(events, snapshots, HeldDeals())
            await _start(app, "r3")
            state = await app.state("r3")
            appended = len(await events.read("r3"))
            with pytest.raises(IllegalAction) as during:
                rabbit_command(state, table_pb2.RabbitHunt(player_id="ann"), app.clock())
            assert during.value.code == TE.HAND_IN_PROGRESS
            assert len(await events.read("r3")) == appended  # nothing changed
            await act_in_turn(app, "r3", PlayerAction.FOLD, "fold")
            await _hand_over(app, "r3")
            state = await app.state("r3")
            hunt = rabbit_command(state, table_pb2.RabbitHunt(player_id="bob"), app.clock())
            await app.execute("r3", hunt, "hunt")
            stream = await _stream(events, "r3")
            [rabbit] = [e for e in stream if isinstance(e, RabbitHunted)]
            assert len(rabbit.cards) == 5 and rabbit.first_street == 1
            [outcome] = outcomes_from_stream(stream)
            assert outcome.ok, outcome.failures
            assert outcome.cards == 4 + 5  # the hole cards and the rabbit, checked by the seed
            state = await app.state("r3")
            assert sum(seat.stack for seat in state.seats.values()) == 200

        self.run(body)


class TestInMemory(InMemoryStores, RunItContract):
    pass


@pytest.mark.integration
class TestRealNatsAndRedis(RealStores, RunItContract):
    pass
