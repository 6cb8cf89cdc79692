"""An idle table costs the action clock's tick nothing (services/table/driving.py): the tick
looks only at tables that changed, whose clock ran out, or all of them once every SWEEP_TICKS,
a share of them each tick."""

from __future__ import annotations

import asyncio

from libs.eventstore import InMemoryEventStore, InMemorySnapshotStore
from libs.table import TableConfig
from libs.table import commands as tc
from services.table.app import TableApp
from services.table.dealing import LocalDealer
from services.table.driving import SWEEP_TICKS


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_idle_tables_sleep_and_a_running_clock_wakes_its_table() -> None:
    async def main() -> None:
        clock = Clock()
        app = TableApp(InMemoryEventStore(), InMemorySnapshotStore(), LocalDealer(), clock=clock)
        config = TableConfig(seats=4, action_seconds=10, time_bank_seconds=0)
        for i in range(30):  # one player each: nothing can happen until someone sits down
            await app.execute(f"idle{i}", tc.OpenTable(f"idle{i}", config, clock.now), f"o{i}")
            await app.execute(f"idle{i}", tc.SitDown(f"p{i}", 0, 100), f"s{i}")
        await app.execute("live", tc.OpenTable("live", config, clock.now), "o-live")
        await app.execute("live", tc.SitDown("ann", 0, 100), "s-ann")
        await app.execute("live", tc.SitDown("bob", 1, 100), "s-bob")  # a hand starts
        assert (await app.state("live")).clock_seat is not None
        await app.tick()
        assert app.driver.looked == 31  # each changed since: looked at once
        await app.tick()
        assert app.driver.looked == 0  # all asleep: the idle ones and the one waiting a player
        before = (await app.table("live")).sequence
        clock.now += 11  # the live table's action clock runs out
        await app.tick()
        assert app.driver.looked == 1
        await asyncio.sleep(0)
        assert (await app.table("live")).sequence > before  # the clock acted for the player
        # the sweep: every table once in a while, a share of them each tick (all asleep now,
        # so a tick looks at nothing else): over two rounds every table at least once, and no
        # tick at more than its share, one in SWEEP_TICKS of them rounded up
        looks = []
        for _ in range(2 * SWEEP_TICKS):
            await app.tick()
            looks.append(app.driver.looked)
        assert sum(looks) >= len(app.tables)
        assert max(looks) == -(-len(app.tables) // SWEEP_TICKS)
        await app.stop()

    asyncio.run(main())


def test_a_table_idle_for_long_leaves_memory_and_comes_back_as_it_was() -> None:
    async def main() -> None:
        clock = Clock()
        app = TableApp(
            InMemoryEventStore(),
            InMemorySnapshotStore(),
            LocalDealer(),
            clock=clock,
            idle_unload=600,
            idempotency_window=300,
        )
        config = TableConfig(seats=4, action_seconds=10, time_bank_seconds=0)
        for i in range(5):  # one player each: idle until someone else sits down
            await app.execute(f"idle{i}", tc.OpenTable(f"idle{i}", config, clock.now), f"o{i}")
            await app.execute(f"idle{i}", tc.SitDown(f"p{i}", 0, 100), f"s{i}")

        async def sweep() -> None:
            for _ in range(SWEEP_TICKS):
                await app.tick()

        await sweep()
        clock.now += 599
        await app.execute("idle0", tc.Leave("p0"), "l-p0")  # idle0 changed: idle anew
        await sweep()
        assert len(app.tables) == 5  # none idle for long enough yet
        clock.now += 2
        await sweep()
        assert set(app.tables) == {"idle0"}  # the others left memory
        state = await app.state("idle1")  # loaded again from its snapshot and stream
        assert [seat.player_id for seat in state.seats.values()] == ["p1"]
        first = await app.execute("idle1", tc.SitDown("r1", 1, 100), "s-r1")  # plays on
        again = await app.execute("idle1", tc.SitDown("r1", 1, 100), "s-r1")
        assert again.duplicate and again.sequence == first.sequence  # a retry: its outcome
        await app.stop()

    asyncio.run(main())
