"""One poll loop per tournament in a gateway (services/gateway/tournament_feeds.py): N watchers of
a tournament share one loop and every read reaches each of them; the loop stops when the last
watcher leaves or the tournament is over; a failed read ends every watcher's stream with it; at
most ``limit`` tournaments are fed at once. Waits on conditions, never on time."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator

import pytest
from holdem.tournament.v1 import tournament_pb2 as tpb

from libs.errors import NotFound, ResourceExhausted
from services.gateway.tournament_feeds import TournamentFeeds


class Service:
    """A tournament service that answers each read with the next hand count, counting reads,
    and lets the test say when each read may be answered."""

    def __init__(self) -> None:
        self.reads: dict[str, int] = {}
        self.gate = asyncio.Semaphore(0)
        self.status = "running"
        self.fail: Exception | None = None

    async def read(self, tournament_id: str) -> tpb.Tournament:
        await self.gate.acquire()
        if self.fail is not None:
            raise self.fail
        self.reads[tournament_id] = self.reads.get(tournament_id, 0) + 1
        summary = tpb.TournamentSummary(
            tournament_id=tournament_id, status=self.status, hands=self.reads[tournament_id]
        )
        return tpb.Tournament(summary=summary)


async def _next(updates: AsyncGenerator[tpb.Tournament, None]) -> tpb.Tournament:
    return await anext(updates)


def test_n_watchers_share_one_loop_and_each_sees_every_read() -> None:
    async def run() -> None:
        service = Service()
        feeds = TournamentFeeds(service.read, lambda: 0.0)
        watchers = [feeds.watch("t1") for _ in range(5)]
        pending = [asyncio.create_task(_next(w)) for w in watchers]
        await asyncio.sleep(0)
        assert feeds.loops == 1
        service.gate.release()  # one read, for all five
        firsts = await asyncio.gather(*pending)
        assert {t.summary.hands for t in firsts} == {1} and service.reads == {"t1": 1}
        service.gate.release()
        seconds = await asyncio.gather(*(_next(w) for w in watchers))
        assert {t.summary.hands for t in seconds} == {2} and service.reads == {"t1": 2}
        other = feeds.watch("t2")  # another tournament: a loop of its own
        task = asyncio.create_task(_next(other))
        await asyncio.sleep(0)
        assert feeds.loops == 2
        for w in watchers:  # the last watcher of t1 leaving stops its loop
            await w.aclose()
        assert feeds.loops == 1
        service.gate.release()
        assert (await task).summary.tournament_id == "t2"
        await other.aclose()
        assert feeds.loops == 0

    asyncio.run(run())


def test_the_read_showing_the_tournament_over_is_the_last() -> None:
    async def run() -> None:
        service = Service()
        service.status = "finished"
        feeds = TournamentFeeds(service.read, lambda: 0.0)
        service.gate.release()
        seen = [t.summary.status async for t in feeds.watch("t1")]
        assert seen == ["finished"] and feeds.loops == 0

    asyncio.run(run())


def test_a_failed_read_ends_every_watchers_stream_with_its_error() -> None:
    async def run() -> None:
        service = Service()
        service.fail = NotFound("TOURNAMENT_NOT_FOUND", "no such tournament")
        feeds = TournamentFeeds(service.read, lambda: 0.0)
        watchers = [feeds.watch("nope") for _ in range(3)]
        pending = [asyncio.create_task(_next(w)) for w in watchers]
        await asyncio.sleep(0)
        service.gate.release()
        for task in pending:
            with pytest.raises(NotFound):
                await task
        assert feeds.loops == 0

    asyncio.run(run())


def test_at_most_limit_tournaments_are_fed_at_once() -> None:
    async def run() -> None:
        service = Service()
        feeds = TournamentFeeds(service.read, lambda: 0.0, limit=2)
        first, second = feeds.watch("a"), feeds.watch("b")
        tasks = [asyncio.create_task(_next(w)) for w in (first, second)]
        await asyncio.sleep(0)
        with pytest.raises(ResourceExhausted):
            await _next(feeds.watch("c"))
        more = feeds.watch("a")  # one more watcher of a fed tournament is fine
        task = asyncio.create_task(_next(more))
        await asyncio.sleep(0)
        assert feeds.loops == 2
        for _ in range(2):
            service.gate.release()
        await asyncio.gather(*tasks, task)
        for w in (first, second, more):
            with contextlib.suppress(StopAsyncIteration):
                await w.aclose()
        assert feeds.loops == 0

    asyncio.run(run())
