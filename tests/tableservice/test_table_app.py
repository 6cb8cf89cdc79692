"""The table application's commits, the same tests on an in-memory store and on real JetStream +
Redis: retries answered with their first outcome (after restarts, with Redis wiped), the
idempotency window, concurrent writers, snapshots and recovery. The steps no player decides are
tested in test_table_automation.py, the public projection in test_table_projection.py."""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import replace

import pytest

from libs.eventstore import Commit, EventStore, InMemoryEventStore, SnapshotStore
from libs.poker import HandEnded, IllegalAction
from libs.table import codec
from libs.table import commands as tc
from libs.table.codec import state_dumps
from libs.table.commands import PlayerAction
from libs.tableproto.envelope import decode_commit
from services.table.app import TableApp
from services.table.dealing import LocalDealer
from tests.tableservice.harness import (
    CONFIG,
    InMemoryStores,
    RealStores,
    SteppingClock,
    TableAppContract,
    bots_table,
    setup,
)


class CommitsContract(TableAppContract):
    """Commits, retries, concurrent writers, snapshots and recovery."""

    def test_a_retried_command_returns_its_first_outcome_and_appends_once(self) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            app = TableApp(events, snapshots, LocalDealer(), auto_start=False)
            await app.execute("t2", tc.OpenTable("t2", CONFIG, 0.0), "open")
            first = await app.execute("t2", tc.SitDown("a", 0, 100), "sit-a")
            later = await app.execute("t2", tc.SitDown("b", 1, 100), "sit-b")
            assert later.sequence > first.sequence  # the table moved on since the first try
            again = await app.execute("t2", tc.SitDown("a", 0, 100), "sit-a")
            assert again.duplicate and again.sequence == first.sequence
            assert again.events == first.events
            assert len(await events.read("t2")) == 3
            app.forget("t2")  # as after a restart: the key is known from the stream
            third = await app.execute("t2", tc.SitDown("a", 0, 100), "sit-a")
            assert third.duplicate and third.sequence == first.sequence
            assert len(await events.read("t2")) == 3

        self.run(body)

    def test_a_retry_after_a_restart_is_recognised_from_the_snapshot_alone(self) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            app = TableApp(events, snapshots, LocalDealer(), auto_start=False, snapshot_every=1)
            await app.execute("t7", tc.OpenTable("t7", CONFIG, 0.0), "open")
            first = await app.execute("t7", tc.SitDown("a", 0, 100), "sit-a")
            await app.execute("t7", tc.SitDown("b", 1, 100), "sit-b")
            snapshot = await snapshots.load("t7")
            assert snapshot is not None and snapshot.sequence == await events.last_sequence("t7")
            app.forget("t7")  # restarted: the snapshot covers every commit, no tail to read
            again = await app.execute("t7", tc.SitDown("a", 0, 100), "sit-a")
            assert again.duplicate and again.sequence == first.sequence
            assert len(await events.read("t7")) == 3

        self.run(body)

    def test_a_key_retried_after_600_commits_and_a_restart_with_redis_wiped_gets_its_first_outcome(
        self,
    ) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            clock = SteppingClock()
            # deep stacks (1,000 big blinds) so the bots play 600 commits before one is left;
            # the sixth seat starts the game (hands need 2 players: a bust does not stop it)
            config = replace(CONFIG, max_buy_in=2000)
            app = TableApp(events, snapshots, LocalDealer(), clock=clock, snapshot_every=7)
            app.auto_start = False
            await app.execute("w1", tc.OpenTable("w1", config, 0.0), "open")
            for i in range(5):
                await app.execute("w1", tc.SitDown(f"bot{i}", i, 2000, is_bot=True), f"seat-{i}")
            app.auto_start = True
            sixth = tc.SitDown("bot5", 5, 2000, is_bot=True)
            first = await app.execute("w1", sixth, "seat-5")  # the game starts: bots play on
            while len(await events.read("w1", after=first.sequence)) < 600:
                # bots that bust each other end the game: then no step is due and the loop
                # must not spin (it did, and waited out CI); a drive that commits nothing
                # while the background driver takes the steps proves nothing (test_bots.py)
                if await app.drive("w1", limit=100) == 0:
                    assert app.driver.driving("w1"), "the bots stopped playing"
                    await asyncio.sleep(0.01)
            await app.stop()
            played = len(await events.read("w1"))
            assert played > 600
            # the snapshot keeps the window's client keys, not the bots' hundreds of commits
            snapshot = await snapshots.load("w1")
            assert snapshot is not None and snapshot.sequence > first.sequence + 500
            assert [k for k, _, _ in codec.snapshot_loads(snapshot.data)[1]] == [
                "open",
                *(f"seat-{i}" for i in range(6)),
            ]

            restarted = TableApp(events, snapshots, LocalDealer(), clock=clock, auto_start=False)
            again = await restarted.execute("w1", sixth, "seat-5")  # known from the snapshot
            assert again.duplicate and again.sequence == first.sequence
            await snapshots.delete("w1")  # Redis wiped: a full replay finds it in the stream
            wiped = TableApp(events, snapshots, LocalDealer(), clock=clock, auto_start=False)
            third = await wiped.execute("w1", sixth, "seat-5")
            assert third.duplicate and third.sequence == first.sequence
            assert third.events == first.events
            keys = Counter(c.msg_id for c in await events.read("w1"))
            assert keys["seat-5"] == 1  # the retries appended nothing
            await restarted.stop()
            await wiped.stop()

        self.run(body)

    def test_a_key_older_than_the_window_is_forgotten_and_decided_again(self) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            clock = SteppingClock()
            app = TableApp(
                events,
                snapshots,
                LocalDealer(),
                clock=clock,
                auto_start=False,
                snapshot_every=1,
                idempotency_window=120.0,
            )
            await app.execute("w2", tc.OpenTable("w2", CONFIG, 0.0), "open")
            await app.execute("w2", tc.SitDown("a", 0, 100), "sit-a")
            clock.now += 121.0  # the window has passed
            await app.execute("w2", tc.SitDown("b", 1, 100), "sit-b")
            snapshot = await snapshots.load("w2")
            assert snapshot is not None
            assert [k for k, _, _ in codec.snapshot_loads(snapshot.data)[1]] == ["sit-b"]
            app.forget("w2")
            with pytest.raises(IllegalAction):  # decided again: a is seated already
                await app.execute("w2", tc.SitDown("a", 0, 100), "sit-a")
            assert (await app.execute("w2", tc.SitDown("b", 1, 100), "sit-b")).duplicate

        self.run(body)

    def test_a_retry_sent_to_a_replica_that_had_the_table_cached_gets_the_first_outcome(
        self,
    ) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            a = TableApp(events, snapshots, LocalDealer(), auto_start=False)
            b = TableApp(events, snapshots, LocalDealer(), auto_start=False)
            await a.execute("t10", tc.OpenTable("t10", CONFIG, 0.0), "open")
            await b.state("t10")  # b caches the table before the first try lands
            first = await a.execute("t10", tc.SitDown("x", 0, 100), "sit-x")
            again = await b.execute("t10", tc.SitDown("x", 0, 100), "sit-x")
            assert again.duplicate and again.sequence == first.sequence
            assert again.events == first.events
            assert len(await events.read("t10")) == 2
            assert (await b.state("t10")).seats == (await a.state("t10")).seats

        self.run(body)

    def test_a_snapshot_is_written_every_n_commits_and_at_every_hand_end(self) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            app = TableApp(events, snapshots, LocalDealer(), auto_start=False, snapshot_every=2)
            await app.execute("t8", tc.OpenTable("t8", CONFIG, 0.0), "open")
            assert await snapshots.load("t8") is None
            await app.execute("t8", tc.SitDown("a", 0, 100), "sit-a")
            snapshot = await snapshots.load("t8")
            assert snapshot is not None and snapshot.sequence == await events.last_sequence("t8")
            rarely = TableApp(events, snapshots, LocalDealer(), snapshot_every=1000)
            await setup(rarely, "t9", bots_table("t9", hand_limit=1))
            ended = [
                c.sequence
                for c in await events.read("t9")
                if any(isinstance(e, HandEnded) for e in decode_commit(c.data)[1])
            ]
            snapshot = await snapshots.load("t9")
            assert snapshot is not None and [snapshot.sequence] == ended

        self.run(body)

    def test_illegal_commands_append_nothing(self) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            app = TableApp(events, snapshots, LocalDealer())
            await app.execute("t3", tc.OpenTable("t3", CONFIG, 0.0), "open")
            before = await events.last_sequence("t3")
            with pytest.raises(IllegalAction):
                await app.execute("t3", tc.Act("nobody", PlayerAction.FOLD), "bad")
            assert await events.last_sequence("t3") == before

        self.run(body)

    def test_two_writers_never_both_commit_and_the_loser_catches_up(self) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            a = TableApp(events, snapshots, LocalDealer(), auto_start=False)
            b = TableApp(events, snapshots, LocalDealer(), auto_start=False)
            await a.execute("t4", tc.OpenTable("t4", CONFIG, 0.0), "open")
            await b.state("t4")  # b caches the table at the same sequence
            await a.execute("t4", tc.SitDown("x", 0, 100), "sit-x")
            await b.execute("t4", tc.SitDown("y", 1, 100), "sit-y")  # conflict, reload, retry
            assert len(await events.read("t4")) == 3
            state = await TableApp(events, None, LocalDealer()).state("t4")
            assert {s.player_id for s in state.seats.values()} == {"x", "y"}

        self.run(body)

    def test_snapshot_plus_tail_equals_full_replay(self) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            app = TableApp(events, snapshots, LocalDealer(), snapshot_every=3)
            await setup(app, "t5", bots_table("t5", players=4, hand_limit=3))
            live = state_dumps(await app.state("t5"))
            app.forget("t5")
            from_snapshot = state_dumps(await app.state("t5"))
            await snapshots.delete("t5")  # Redis wiped
            app.forget("t5")
            full_replay = state_dumps(await app.state("t5"))
            assert live == from_snapshot == full_replay

        self.run(body)


class LateRead(InMemoryEventStore):
    """An event store whose next read, once ``hold`` is called, answers only when ``go`` is
    set, with the commits the stream held when it was asked (``asked``: it was)."""

    def __init__(self) -> None:
        super().__init__()
        self.held = False
        self.asked = asyncio.Event()
        self.go = asyncio.Event()

    def hold(self) -> None:
        self.held = True

    async def read(self, stream_id: str, after: int = 0) -> list[Commit]:
        commits = await super().read(stream_id, after)
        if self.held:
            self.held = False
            self.asked.set()
            await self.go.wait()
        return commits


def test_a_commit_made_while_another_load_of_the_table_runs_is_kept() -> None:
    """A replica that takes a table (back) loads it for its drive while a player's command
    loads it too: the command commits on the first load to finish, and the slower load, older,
    must not replace it (it did: the replica kept the table at the sequence before the
    player's move and waited for that move for good, a stall seen in the e2e test)."""

    async def main() -> None:
        events = LateRead()
        before = TableApp(events, None, LocalDealer(), auto_start=False)
        await before.execute("t", tc.OpenTable("t", CONFIG, 0.0), "open")
        await before.execute("t", tc.SitDown("a", 0, 100), "sit-a")
        app = TableApp(events, None, LocalDealer(), auto_start=False)  # took the table over
        events.hold()
        slow = asyncio.create_task(app.state("t"))
        await events.asked.wait()  # the first load read the stream and is not back yet
        outcome = await app.execute("t", tc.SitDown("b", 1, 100), "sit-b")
        events.go.set()
        await slow
        table = await app.table("t")
        assert table.sequence == outcome.sequence == await events.last_sequence("t")
        assert {seat.player_id for seat in table.state.seats.values()} == {"a", "b"}

    asyncio.run(main())


class TestInMemory(InMemoryStores, CommitsContract):
    pass


@pytest.mark.integration
class TestRealNatsAndRedis(RealStores, CommitsContract):
    pass
