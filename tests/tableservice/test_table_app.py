"""The table application, the same tests on an in-memory store and on real JetStream + Redis:
commits, retries, concurrent writers, snapshots, recovery and the public projection."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import replace

import pytest

from libs.eventstore import (
    EventStore,
    InMemoryEventStore,
    InMemoryProjection,
    InMemorySnapshotStore,
    Projected,
    Projection,
    Snapshot,
    SnapshotStore,
)
from libs.poker import HandEnded, HoleCardsDealt, IllegalAction, StreetDealt
from libs.table import TableConfig, codec
from libs.table import commands as tc
from libs.table.codec import state_dumps
from libs.table.commands import PlayerAction
from libs.table.events import HandBegan
from libs.tableproto.envelope import decode_commit
from libs.tableproto.public import chain_gaps, decode_public
from services.table.app import TableApp
from services.table.dealing import DeckLost, LocalDealer
from tests.eventstore.test_contracts import jetstream_projection

CONFIG = TableConfig(seats=6, small_blind=1, big_blind=2)
Stores = AbstractAsyncContextManager[tuple[EventStore, SnapshotStore]]


def bots_table(table_id: str, players: int = 3, hand_limit: int = 0) -> list[tc.TableCommand]:
    config = replace(CONFIG, hand_limit=hand_limit)
    return [
        tc.OpenTable(table_id, config, 0.0),
        *(tc.SitDown(f"bot{i}", i, 100, is_bot=True) for i in range(players)),
    ]


def seat_two() -> list[tc.TableCommand]:
    return [tc.SitDown("a", 0, 100), tc.SitDown("b", 1, 100)]


class GatedDealer(LocalDealer):
    """Holds a new deck back until ``go`` is set (``asked`` tells that it was asked for)."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = asyncio.Event()
        self.go = asyncio.Event()

    async def start_deck(self, table_id: str, hand_id: str) -> tuple[str, str]:
        self.asked.set()
        await self.go.wait()
        return await super().start_deck(table_id, hand_id)


class HeldDeals(LocalDealer):
    """Deals no card while held (``asked`` tells that a deal waits); ``release`` lets it go."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = asyncio.Event()
        self.go = asyncio.Event()
        self.go.set()

    def hold(self) -> None:
        self.go.clear()

    async def deal(self, deck_id: str, indexes: Sequence[int]) -> list[int]:
        if not self.go.is_set():
            self.asked.set()
            await self.go.wait()
        return await super().deal(deck_id, indexes)


class HeldSaves:
    """A snapshot store whose writes wait while held (``waiting``: a write waits now)."""

    def __init__(self, inner: SnapshotStore) -> None:
        self.inner = inner
        self.waiting = asyncio.Event()
        self.go = asyncio.Event()
        self.go.set()

    async def save(self, key: str, sequence: int, data: bytes) -> bool:
        if not self.go.is_set():
            self.waiting.set()
            await self.go.wait()
        return await self.inner.save(key, sequence, data)

    async def load(self, key: str) -> Snapshot | None:
        return await self.inner.load(key)

    async def delete(self, key: str) -> None:
        await self.inner.delete(key)


async def board_of(app: TableApp, table_id: str, cards: int) -> bool:
    """The hand at ``table_id`` shows ``cards`` board cards within a few seconds."""
    for _ in range(200):
        hand = (await app.table(table_id)).state.hand
        if hand is not None and len(hand.board) >= cards:
            return True
        await asyncio.sleep(0.02)
    return False


async def act_in_turn(app: TableApp, table_id: str, action: PlayerAction, key: str) -> int:
    """The player to act takes ``action`` (answered within seconds); the commit's sequence."""
    state = await app.state(table_id)
    seat = state.acting_seat()
    assert seat is not None
    command = tc.Act(state.seats[seat].player_id, action, now=app.clock())
    return (await asyncio.wait_for(app.act(table_id, command, key), 10)).sequence


class FrozenAfter:
    """A projection whose publisher freezes after ``published`` messages, as an owner that
    stops between appending and publishing; ``go`` wakes it up."""

    def __init__(self, inner: Projection, published: int) -> None:
        self.inner = inner
        self.left = published
        self.stuck = asyncio.Event()
        self.go = asyncio.Event()

    async def last(self, stream_id: str) -> Projected | None:
        return await self.inner.last(stream_id)

    async def publish(
        self, stream_id: str, sequence: int, previous: int, data: bytes, *, expected_position: int
    ) -> int:
        if self.left == 0:
            self.stuck.set()
            await self.go.wait()
        self.left -= 1
        return await self.inner.publish(
            stream_id, sequence, previous, data, expected_position=expected_position
        )

    async def read(self, stream_id: str, after: int = 0, limit: int = 0) -> list[Projected]:
        return await self.inner.read(stream_id, after, limit)


class SteppingClock:
    """A table clock that moves on a millisecond each time it is read."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        self.now += 0.001
        return self.now


async def setup(app: TableApp, table_id: str, commands: list[tc.TableCommand]) -> None:
    """Seat everybody first, then let the hands run."""
    auto_start, app.auto_start = app.auto_start, False
    for i, command in enumerate(commands):
        await app.execute(table_id, command, f"{table_id}-setup-{i}")
    app.auto_start = auto_start
    await app.drive(table_id)


class TableAppContract:
    """Subclasses provide ``stores()``: an async context manager yielding (events, snapshots)."""

    def stores(self) -> Stores:
        raise NotImplementedError

    def projections(self) -> AbstractAsyncContextManager[Projection]:
        raise NotImplementedError

    def run(self, body: Callable[[EventStore, SnapshotStore], Awaitable[None]]) -> None:
        async def main() -> None:
            async with self.stores() as (events, snapshots):
                await body(events, snapshots)

        asyncio.run(main())

    def run_public(
        self, body: Callable[[EventStore, SnapshotStore, Projection], Awaitable[None]]
    ) -> None:
        async def main() -> None:
            async with self.stores() as (events, snapshots), self.projections() as public:
                await body(events, snapshots, public)

        asyncio.run(main())

    def test_bot_hands_play_themselves_until_the_room_limit(self) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            app = TableApp(events, snapshots, LocalDealer())
            await setup(app, "t1", bots_table("t1", hand_limit=5))
            state = await app.state("t1")
            assert state.closed and state.hands_started == 5
            # only the last hand's seed is kept (each hand's is in its commit)
            assert list(state.revealed_seeds) == [state.hand_id]
            # the commit that ends a hand also reveals its seed
            for commit in await events.read("t1"):
                kinds = [type(e).__name__ for e in decode_commit(commit.data)[1]]
                if "HandEnded" in kinds:
                    assert kinds.index("SeedRevealed") > kinds.index("HandEnded")

        self.run(body)

    def test_a_table_due_with_nothing_driving_it_is_woken_by_the_tick_after_next(
        self,
    ) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            app = TableApp(events, snapshots, LocalDealer())
            app.auto_start = False  # seated, nothing driving: as after a lost lease taken back
            for i, command in enumerate(bots_table("t9", hand_limit=3)):
                await app.execute("t9", command, f"t9-setup-{i}")
            app.auto_start = True
            before = (await app.table("t9")).sequence
            await app.tick()  # the first tick only notes that the table stands still
            await asyncio.sleep(0.05)
            assert (await app.table("t9")).sequence == before
            await app.tick()
            for _ in range(400):  # the woken driver plays the hands out
                if (await app.state("t9")).closed:
                    break
                await asyncio.sleep(0.05)
            assert (await app.state("t9")).closed
            await app.stop()

        self.run(body)

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
                # must not spin (it did, and waited out CI)
                assert await app.drive("w1", limit=100) > 0, "the bots stopped playing"
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

    def test_an_automatic_step_worked_out_before_the_table_moved_is_dropped(self) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            dealer = GatedDealer()
            app = TableApp(events, snapshots, dealer, auto_start=False)
            await setup(app, "t11", [tc.OpenTable("t11", CONFIG, 0.0), *seat_two()])
            app.auto_start = True
            driving = asyncio.create_task(app.drive("t11"))
            await dealer.asked.wait()  # "start a hand" was worked out; the deck is on its way
            await app.execute("t11", tc.Leave("b"), "leave-b")  # now one player is left
            dealer.go.set()
            assert await driving == 0  # dropped, and nothing else is due
            assert (await app.state("t11")).hands_started == 0

        self.run(body)

    def test_an_automatic_step_that_lost_a_race_to_another_writer_is_dropped(self) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            other = TableApp(events, snapshots, LocalDealer(), auto_start=False)
            await setup(other, "t12", [tc.OpenTable("t12", CONFIG, 0.0), *seat_two()])
            dealer = GatedDealer()
            app = TableApp(events, snapshots, dealer)
            await app.state("t12")
            driving = asyncio.create_task(app.drive("t12"))
            await dealer.asked.wait()
            await other.execute("t12", tc.Leave("b"), "leave-b")  # app's copy is stale now
            dealer.go.set()
            assert await driving == 0  # its append conflicted: reloaded, nothing is due
            state = await app.state("t12")
            assert state.hands_started == 0 and set(state.seats) == {0}

        self.run(body)

    def test_an_action_is_answered_at_its_own_commit_before_the_steps_it_enables(self) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            dealer = HeldDeals()
            app = TableApp(events, snapshots, dealer)
            await setup(app, "t13", [tc.OpenTable("t13", CONFIG, 0.0), *seat_two()])
            dealer.hold()  # the flop will wait for the dealer
            await act_in_turn(app, "t13", PlayerAction.CALL, "call")
            checked = await act_in_turn(app, "t13", PlayerAction.CHECK, "check")  # round over
            assert (await app.table("t13")).sequence == checked  # answered before the flop
            await dealer.asked.wait()  # a background driver asks for it
            dealer.go.set()
            assert await board_of(app, "t13", 3)
            state = await app.state("t13")
            retry = tc.Act(state.seats[state.acting_seat() or 0].player_id, PlayerAction.CHECK)
            again = await app.act("t13", retry, "check")  # the key's first outcome, nothing new
            assert again.duplicate and again.sequence == checked
            await app.stop()

        self.run(body)

    def test_a_driver_that_found_nothing_due_looks_again_for_an_action_made_meanwhile(
        self,
    ) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            saves = HeldSaves(snapshots)
            app = TableApp(events, saves, LocalDealer(), snapshot_every=1)
            await setup(app, "t14", [tc.OpenTable("t14", CONFIG, 0.0), *seat_two()])
            saves.go.clear()
            await act_in_turn(app, "t14", PlayerAction.CALL, "call")
            await saves.waiting.wait()
            await asyncio.sleep(0.05)  # its driver found nothing due and waits for the write
            await act_in_turn(app, "t14", PlayerAction.CHECK, "check")  # the flop is due now
            saves.go.set()
            assert await board_of(app, "t14", 3)  # no tick runs here: only the driver deals it
            await app.stop()

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

    def test_the_public_projection_never_carries_hidden_cards(self) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore, public: Projection) -> None:
            app = TableApp(events, snapshots, LocalDealer(), projection=public)
            await setup(app, "t6", bots_table("t6", hand_limit=2))
            await app.stream.stop()  # everything queued is published
            published = [p.data for p in await public.read("t6")]
            dealt = seated = 0
            for payload in published:
                for event in decode_commit(payload)[1]:
                    if isinstance(event, HandBegan):
                        seated += len(event.seats)  # 3, or 2 after a bot went broke
                    if isinstance(event, HoleCardsDealt):
                        dealt += 1
                        assert event.cards == ()
                    if isinstance(event, StreetDealt):
                        assert event.burn is None
            assert dealt == seated >= 5

        self.run_public(body)

    def test_every_commit_is_projected_once_in_order_with_its_previous_sequence(self) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore, public: Projection) -> None:
            app = TableApp(events, snapshots, LocalDealer(), projection=public)
            await setup(app, "p1", bots_table("p1", hand_limit=3))
            await app.stream.stop()
            commits = await events.read("p1")
            projected = [decode_public(p) for p in await public.read("p1")]
            assert [p.sequence for p in projected] == [c.sequence for c in commits]
            assert chain_gaps(projected) == []
            assert projected[0].previous == 0
            assert [p.causation_id for p in projected] == [c.msg_id for c in commits]
            tail = await public.read("p1", after=commits[10].sequence)
            assert [p.sequence for p in tail] == [c.sequence for c in commits[11:]]

        self.run_public(body)

    def test_commits_an_owner_appended_but_never_published_are_projected_by_the_next(
        self,
    ) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore, public: Projection) -> None:
            frozen = FrozenAfter(public, published=4)
            dying = TableApp(events, snapshots, LocalDealer(), projection=frozen)
            await setup(dying, "p2", bots_table("p2", hand_limit=2))
            await frozen.stuck.wait()  # the owner froze between appending and publishing
            assert len(await public.read("p2")) == 4
            successor = TableApp(events, snapshots, LocalDealer(), projection=public)
            await successor.state("p2")  # loading it projects what is missing, first
            commits = await events.read("p2")
            projected = [decode_public(p) for p in await public.read("p2")]
            assert [p.sequence for p in projected] == [c.sequence for c in commits]
            assert chain_gaps(projected) == []
            frozen.go.set()  # the old owner wakes up and publishes what it had queued
            await dying.stream.stop()
            again = [p.sequence for p in await public.read("p2")]
            assert again == [c.sequence for c in commits]  # nothing twice

        self.run_public(body)


def test_a_hand_the_dealer_can_no_longer_deal_is_voided_and_play_goes_on() -> None:
    async def main() -> None:
        dealer = LocalDealer()
        app = TableApp(InMemoryEventStore(), InMemorySnapshotStore(), dealer)
        await app.execute("tv", tc.OpenTable("tv", CONFIG, 0.0), "open")
        await app.execute("tv", tc.SitDown("a", 0, 100), "sit-a")
        await app.execute("tv", tc.SitDown("b", 1, 100), "sit-b")
        state = await app.state("tv")
        assert state.hand_in_progress and state.hands_started == 1
        dealer._seeds.clear()  # the dealer's store was wiped mid-hand
        actor = state.acting_seat()
        assert actor is not None
        await app.execute(
            "tv", tc.Act(state.seats[actor].player_id, PlayerAction.CALL, now=app.clock()), "call"
        )
        other = (await app.state("tv")).acting_seat()
        assert other is not None
        outcome = await app.execute(
            "tv", tc.Act(state.seats[other].player_id, PlayerAction.CHECK, now=app.clock()), "check"
        )
        assert outcome.events  # the round closed; dealing the flop failed: the hand is void
        state = await app.state("tv")
        assert state.hands_started == 2  # voided, seed marked, and the next hand began
        assert state.total_chips() == 200
        commits = await app.events.read("tv")
        types = [type(e).__name__ for c in commits for e in decode_commit(c.data)[1]]
        assert "HandVoided" in types

    asyncio.run(main())


def test_a_hand_whose_deck_was_revealed_by_a_lost_hand_end_is_voided_and_play_goes_on() -> None:
    """The table asks for the seed just before appending the commit that ends a hand; when that
    append never lands (killed, or a conflict) and the step is decided again differently (a
    bot's new decision), the hand goes on with a deck the dealer no longer deals from. It is
    voided, not left waiting for cards (chaos stood still on it, DECK_CLOSED for good)."""

    class ClosingDealer(LocalDealer):
        """Deals no card once a deck's seed is out, as the dealer service (DECK_CLOSED)."""

        def __init__(self) -> None:
            super().__init__()
            self.revealed: set[str] = set()

        async def deal(self, deck_id: str, indexes: Sequence[int]) -> list[int]:
            if deck_id in self.revealed:
                raise DeckLost(f"{deck_id} was revealed")
            return await super().deal(deck_id, indexes)

        async def reveal(self, deck_id: str) -> str:
            self.revealed.add(deck_id)
            return await super().reveal(deck_id)

    async def main() -> None:
        dealer = ClosingDealer()
        app = TableApp(InMemoryEventStore(), InMemorySnapshotStore(), dealer)
        await app.execute("tr", tc.OpenTable("tr", CONFIG, 0.0), "open")
        await app.execute("tr", tc.SitDown("a", 0, 100), "sit-a")
        await app.execute("tr", tc.SitDown("b", 1, 100), "sit-b")
        state = await app.state("tr")
        assert state.hand_in_progress and state.hands_started == 1 and state.deck_id
        await dealer.reveal(state.deck_id)  # the lost hand-end commit's reveal
        actor = state.acting_seat()
        assert actor is not None
        await app.execute(
            "tr", tc.Act(state.seats[actor].player_id, PlayerAction.CALL, now=app.clock()), "call"
        )
        other = (await app.state("tr")).acting_seat()
        assert other is not None
        await app.execute(
            "tr", tc.Act(state.seats[other].player_id, PlayerAction.CHECK, now=app.clock()), "check"
        )
        state = await app.state("tr")
        assert state.hands_started == 2  # voided, and the next hand began with a new deck
        assert state.total_chips() == 200
        commits = await app.events.read("tr")
        types = [type(e).__name__ for c in commits for e in decode_commit(c.data)[1]]
        assert "HandVoided" in types

    asyncio.run(main())


class TestInMemory(TableAppContract):
    @asynccontextmanager
    async def stores(self) -> AsyncIterator[tuple[EventStore, SnapshotStore]]:
        yield InMemoryEventStore(), InMemorySnapshotStore()

    @asynccontextmanager
    async def projections(self) -> AsyncIterator[Projection]:
        yield InMemoryProjection()


@pytest.mark.integration
class TestRealNatsAndRedis(TableAppContract):
    @pytest.fixture(autouse=True)
    def _urls(self, nats_url: str, redis_url: str) -> None:
        self.nats_url = nats_url
        self.redis_url = redis_url

    @asynccontextmanager
    async def stores(self) -> AsyncIterator[tuple[EventStore, SnapshotStore]]:
        import nats
        from redis.asyncio import Redis

        from libs.eventstore.jetstream import JetStreamEventStore
        from libs.eventstore.redis_snapshots import RedisSnapshotStore

        nc = await nats.connect(self.nats_url)
        name = f"T{uuid.uuid4().hex[:12]}"
        events = JetStreamEventStore(nc, stream=name, subject_prefix=f"test.{name}")
        await events.ensure_stream()
        redis = Redis.from_url(self.redis_url)
        try:
            yield events, RedisSnapshotStore(redis, prefix=f"test:{name}:")
        finally:
            await nc.jetstream().delete_stream(name)
            await nc.close()
            await redis.aclose()

    def projections(self) -> AbstractAsyncContextManager[Projection]:
        return jetstream_projection(self.nats_url, "testpublic")
