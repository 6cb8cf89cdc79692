"""The bomb-pot vote's clock through the table application (services/table/driving.py): a vote
proposed between hands holds the next hand; the table sleeps until the vote's deadline (nothing
else is due), then the clock's tick closes it (not agreed) and the next hand, a usual one,
starts by itself."""

from __future__ import annotations

import asyncio

from libs.eventstore import InMemoryEventStore, InMemorySnapshotStore
from libs.table import TableConfig
from libs.table import commands as tc
from libs.table.config import BOMB_POT_VOTE_SECONDS
from libs.table.events import BombPotVoteClosed
from libs.table.timing import wake_at
from libs.tableproto.envelope import decode_commit
from services.table.app import TableApp
from services.table.dealing import LocalDealer


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_vote_nobody_finishes_is_closed_by_the_tick_and_the_next_hand_follows() -> None:
    async def main() -> None:
        clock = Clock()
        events = InMemoryEventStore()
        app = TableApp(events, InMemorySnapshotStore(), LocalDealer(), clock=clock)
        config = TableConfig(seats=4, bomb_pot_ante=4, bomb_pot_vote=True)
        app.auto_start = False
        await app.execute("b", tc.OpenTable("b", config, clock.now), "open")
        await app.execute("b", tc.SitDown("ann", 0, 100), "ann")
        await app.execute("b", tc.SitDown("bob", 1, 100), "bob")
        await app.execute("b", tc.VoteBombPot("ann", True, clock.now), "vote")
        app.auto_start = True
        await app.tick()
        await app.tick()
        state = await app.state("b")
        assert not state.hand_id  # the next hand waits for the vote
        assert wake_at(state) == clock.now + BOMB_POT_VOTE_SECONDS
        assert app.driver.looked == 0  # asleep until then
        clock.now += BOMB_POT_VOTE_SECONDS
        await app.tick()
        for _ in range(200):
            state = await app.state("b")
            if state.hand_in_progress:
                break
            await asyncio.sleep(0.01)
        assert state.hand is not None and not state.hand.config.bomb_pot
        stored = [e for c in await events.read("b") for e in decode_commit(c.data)[1]]
        assert [e for e in stored if isinstance(e, BombPotVoteClosed)] == [
            BombPotVoteClosed(False, "not everyone agreed in time")
        ]
        await app.stop()

    asyncio.run(main())
