"""Tournaments of AI bots played to the end at real tables: the director (in this process) on a
real nats-server and Redis drives a real table service (tournament mode: hands released one by
one, seats and chips only by the director's keyed commands) and reads each hand's result from
the table's public projection. A sit & go, a multi-table field with balancing moves and broken
tables, and a director killed at random moments and started again: every entrant one place, the
prizes adding up to the pool, paid once each, and every chip where the books say.

The wallets here are in memory (credits kept once by key): the lobby's tournament sagas are not
built yet."""

from __future__ import annotations

import asyncio
import random

import pytest

from libs.devstack.identity import aio_channel_as
from libs.eventstore.projection import read_public
from libs.poker.events import AntePosted
from libs.table.events import HandBegan, TableClosed
from libs.tableproto.public import decode_public
from libs.tournament import commands as C
from libs.tournament.config import TournamentConfig, TournamentKind
from libs.tournament.events import Payment, PaymentReason
from libs.tournament.state import Status, TournamentState
from libs.tournament.structure import BlindLevel, BlindStructure, LevelUnit, preset
from services.tournament.director import Director
from services.tournament.tables import TableService
from tests.services.conftest import ServiceProcess, Starter
from tests.tournamentservice.conftest import Parts, parts

pytestmark = pytest.mark.integration

LEVELS = ("easy", "normal", "hard")


class Wallets:
    def __init__(self) -> None:
        self.credits: dict[str, Payment] = {}

    async def credit(self, payment: Payment) -> None:
        self.credits.setdefault(payment.key, payment)


def _table(start: Starter, nats_url: str, redis_url: str) -> ServiceProcess:
    return start(
        "table",
        {
            "HOLDEM_NATS_URL": nats_url,
            "HOLDEM_REDIS_URL": redis_url,
            "HOLDEM_TABLE_DEALER": "local",
            "HOLDEM_TABLE_EVALUATOR": "local",
            "HOLDEM_TABLE_AI": "local",
        },
    )


async def _create(
    p: Parts, entrants: int, seats: int, structure: BlindStructure | None = None
) -> str:
    tournaments = await p.tournaments()
    tid = f"r{random.getrandbits(40):010x}"
    config = TournamentConfig(
        "bots",
        TournamentKind.SIT_AND_GO,
        max_entrants=entrants,
        seats_per_table=seats,
        starting_stack=200,
        structure=structure or preset("hyper", LevelUnit.HANDS),
    )
    await tournaments.execute(tid, C.CreateTournament(tid, config, "test", 1.0), "create")
    for i in range(entrants):
        register = C.Register(f"{tid}b{i}", f"reg{i}", 2.0, True, LEVELS[i % 3])
        await tournaments.execute(tid, register, f"reg{i}")
    return tid


async def _check(p: Parts, s: TournamentState, wallets: Wallets, entrants: int) -> None:
    assert s.status is Status.FINISHED and not s.payments
    places = sorted((e.place, e.tied) for e in s.entrants.values())
    expected: list[tuple[int, int]] = []
    while len(expected) < entrants:
        place, tied = places[len(expected)]
        assert place == len(expected) + 1
        expected += [(place, tied)] * tied
    assert places == expected
    prizes = [x for x in wallets.credits.values() if x.reason is PaymentReason.PRIZE]
    assert sum(x.amount for x in prizes) == s.prize_pool == entrants * s.cfg.buy_in
    assert {x.key for x in prizes} == s.settled
    total = entrants * s.cfg.starting_stack
    closes: dict[str, TableClosed] = {}
    dealt: dict[str, list[int]] = {}
    for table_id in s.closed:  # every table closed, every chip at the winner's seat
        for message in await read_public(p.nc, table_id):
            for event in decode_public(message).events:
                if isinstance(event, TableClosed):
                    closes[table_id] = event
                if isinstance(event, HandBegan):
                    dealt.setdefault(table_id, []).append(event.hand_number)
    # every hand released was dealt once and recorded once: none lost, none doubled
    assert sum(len(hands) for hands in dealt.values()) == s.reports
    assert all(hands == list(range(1, len(hands) + 1)) for hands in dealt.values())
    assert {t: len(hands) for t, hands in dealt.items()} == {t: n for t, n in s.closed.items() if n}
    assert set(closes) == set(s.closed)
    left = [(player, stack) for c in closes.values() for _, player, stack in c.stacks if stack]
    assert left == [(s.winner, total)] and all(c.tournament for c in closes.values())


async def _run(p: Parts, address: str, tid: str, wallets: Wallets) -> TournamentState:
    async with aio_channel_as(address, "tournament") as channel:
        tables = TableService(channel, p.nc)
        director = Director(await p.tournaments(), p.checkpoints(), tables, wallets, poll=0.2)
        try:
            return await asyncio.wait_for(director.run(tid), 600)
        finally:
            await tables.stop()


def test_a_sit_and_go_of_bots_is_played_to_the_end(
    start: Starter, nats_url: str, redis_url: str
) -> None:
    table = _table(start, nats_url, redis_url)

    async def scenario() -> None:
        async with parts(nats_url, redis_url) as p:
            tid = await _create(p, 6, 6)
            wallets = Wallets()
            s = await _run(p, table.address, tid, wallets)
            await _check(p, s, wallets, 6)
            assert s.tables_opened == 1 and s.reports > 0

    asyncio.run(scenario())


def test_a_multi_table_field_balances_and_breaks_its_tables(
    start: Starter, nats_url: str, redis_url: str
) -> None:
    table = _table(start, nats_url, redis_url)

    async def scenario() -> None:
        async with parts(nats_url, redis_url) as p:
            tid = await _create(p, 18, 6)
            wallets = Wallets()
            s = await _run(p, table.address, tid, wallets)
            await _check(p, s, wallets, 18)
            assert s.most_tables == 3 and len(s.closed) == 3
            assert s.moves_ordered > 0

    asyncio.run(scenario())


def test_a_director_killed_anywhere_resumes_with_nothing_lost_or_doubled(
    start: Starter, nats_url: str, redis_url: str
) -> None:
    """The director is cancelled at random moments (in a directive, between a table's answer
    and the report, in a move's saga, in a payout) and a new one (fresh caches, fresh
    connections' state) takes over from the checkpoint."""
    table = _table(start, nats_url, redis_url)

    async def scenario() -> None:
        async with parts(nats_url, redis_url) as p:
            tid = await _create(p, 12, 6)
            wallets = Wallets()
            rng = random.Random(12)
            kills = 0
            while True:
                run = asyncio.ensure_future(_run(p, table.address, tid, wallets))
                # the first eight directors are cut short (twelve bots can finish within a few
                # seconds on a quiet machine, so long windows alone may kill few), later ones
                # have time to see it through
                window = rng.uniform(0.03, 0.3) if kills < 8 else rng.uniform(0.05, 1.5)
                done, _ = await asyncio.wait({run}, timeout=window)
                if done:
                    s = run.result()
                    break
                run.cancel()
                await asyncio.gather(run, return_exceptions=True)
                kills += 1
            await _check(p, s, wallets, 12)
            assert kills >= 5 and s.moves_ordered > 0

    asyncio.run(scenario())


def test_a_big_blinds_ante_is_posted_by_the_big_blind_alone_at_real_tables(
    start: Starter, nats_url: str, redis_url: str
) -> None:
    """Levels with a big blind's ante: every hand at the real table has exactly one ante, from
    the big blind's seat, and the chips still add up to the end (``_check``)."""
    table = _table(start, nats_url, redis_url)
    levels = tuple(
        BlindLevel(bb // 2, bb, ante=bb, big_blind_ante=True, length=3)
        for bb in (20, 40, 60, 100, 160, 240, 400)
    )

    async def scenario() -> None:
        async with parts(nats_url, redis_url) as p:
            structure = BlindStructure("bb-ante", LevelUnit.HANDS, levels)
            tid = await _create(p, 4, 4, structure)
            wallets = Wallets()
            s = await _run(p, table.address, tid, wallets)
            await _check(p, s, wallets, 4)
            (table_id,) = s.closed
            began: HandBegan | None = None
            antes: dict[int, list[tuple[int, int]]] = {}
            for message in await read_public(p.nc, table_id):
                for event in decode_public(message).events:
                    if isinstance(event, HandBegan):
                        began = event
                    elif isinstance(event, AntePosted) and began is not None:
                        seat = began.seats[event.player]
                        antes.setdefault(began.hand_number, []).append((seat, event.amount))
                        assert seat == began.big_blind_seat
            assert len(antes) == s.reports  # every hand: one ante, the big blind's
            assert all(len(posted) == 1 for posted in antes.values())

    asyncio.run(scenario())
