"""What the table application's tests share: a table config, tables of bots, doubles that hold
a dealer, a snapshot store or a projection back at a chosen moment, and the contract base that
runs each test on an in-memory store and on real JetStream + Redis (``InMemoryStores``,
``RealStores``)."""

from __future__ import annotations

import asyncio
import uuid
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
from libs.table import TableConfig
from libs.table import commands as tc
from libs.table.commands import PlayerAction
from services.table.app import TableApp
from services.table.dealing import LocalDealer
from tests.eventstore.backends import jetstream_projection

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


class InMemoryStores:
    """The contract's stores in memory."""

    @asynccontextmanager
    async def stores(self) -> AsyncIterator[tuple[EventStore, SnapshotStore]]:
        yield InMemoryEventStore(), InMemorySnapshotStore()

    @asynccontextmanager
    async def projections(self) -> AsyncIterator[Projection]:
        yield InMemoryProjection()


class RealStores:
    """The contract's stores on real JetStream and Redis (a stream and key prefix per test)."""

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
