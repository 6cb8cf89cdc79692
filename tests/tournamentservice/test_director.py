"""The director drives tournaments to their end on a real nats-server and Redis: a sit & go, a
multi-table field with balancing moves and broken tables, and directors killed at random calls
(before or after the call's effect) and started again, with nothing lost or doubled."""

from __future__ import annotations

import asyncio
import random

from libs.tournament.events import PaymentReason
from libs.tournament.state import Status, TournamentState
from services.tournament.store import Tournaments
from tests.tournamentservice.conftest import Parts, config, create, parts
from tests.tournamentservice.world import Crash, World


def check_finished(s: TournamentState, world: World, entrants: int) -> None:
    """Every entrant one place, the prizes paid once each adding up to the pool, chips kept."""
    assert s.status is Status.FINISHED and not s.payments
    places = sorted((e.place, e.tied) for e in s.entrants.values())
    expected: list[tuple[int, int]] = []
    while len(expected) < entrants:  # a ranking: ties cover exactly the places they share
        place, tied = places[len(expected)]
        assert place == len(expected) + 1
        expected += [(place, tied)] * tied
    assert places == expected and len(places) == entrants
    prizes = [p for p in world.credits.values() if p.reason is PaymentReason.PRIZE]
    assert sum(p.amount for p in prizes) == s.prize_pool == entrants * s.cfg.buy_in
    assert {p.key for p in prizes} == s.settled
    assert all(n == 1 for n in world.done.values())
    winner = s.entrants[s.winner]
    assert winner.place == 1 and winner.stack == entrants * s.cfg.starting_stack
    held = [t for t in world.tables.values() if not t.closed]
    assert not held, "every table closed at the end"
    last = {p: stack for t in world.tables.values() for p, stack in t.seats.values()}
    assert last == {s.winner: entrants * s.cfg.starting_stack}, "chips created or lost"
    # every hand the tournament recorded was played once, and every one played was recorded
    assert s.reports == world.hands


async def play(p: Parts, world: World, tid: str) -> TournamentState:
    director = await p.director(world)
    return await asyncio.wait_for(director.run(tid), 120)


def test_a_sit_and_go_is_played_to_the_end(nats_url: str, redis_url: str) -> None:
    async def scenario() -> None:
        async with parts(nats_url, redis_url) as p:
            tid = await create(await p.tournaments(), config(6, 6), 6)
            world = World(seed=6)
            s = await play(p, world, tid)
            check_finished(s, world, 6)
            assert s.tables_opened == 1 and world.moves == 0

    asyncio.run(scenario())


def test_a_multi_table_tournament_balances_and_breaks_tables(nats_url: str, redis_url: str) -> None:
    async def scenario() -> None:
        async with parts(nats_url, redis_url) as p:
            tid = await create(await p.tournaments(), config(30, 6), 30)
            world = World(seed=30)
            s = await play(p, world, tid)
            check_finished(s, world, 30)
            assert s.most_tables == 5 and s.tables_opened == 5
            assert world.moves == s.moves_ordered > 0
            assert len(s.closed) == 5

    asyncio.run(scenario())


async def _crashing(
    p: Parts, world: World, tid: str, rng: random.Random
) -> tuple[TournamentState, int]:
    """Run directors until one finishes; each is killed at a random call, before or after
    its effect, and the next starts from what the stores hold (fresh caches)."""
    crashes = 0
    while True:
        world.crash_at = world.calls + rng.randint(1, 12)
        world.crash_after = rng.random() < 0.5
        try:
            return await play(p, world, tid), crashes
        except Crash:
            crashes += 1


def test_directors_killed_anywhere_finish_with_nothing_lost_or_doubled(
    nats_url: str, redis_url: str
) -> None:
    async def scenario() -> None:
        async with parts(nats_url, redis_url) as p:
            tid = await create(await p.tournaments(), config(20, 6), 20)
            world = World(seed=20)
            s, crashes = await _crashing(p, world, tid, random.Random(20))
            check_finished(s, world, 20)
            assert crashes >= 8
            assert max(world.asked.values()) >= 2  # directives were redone after crashes
            assert world.moves == s.moves_ordered > 0
            fresh: Tournaments = await p.tournaments()
            assert await fresh.get(tid) == s

    asyncio.run(scenario())
