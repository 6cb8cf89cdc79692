"""Tournament money through the lobby's wallets, exactly once, with a real lobby and table
service: registrations pay the buy-in (a retried registration pays once, a refused one pays
nothing), an unregistration is refunded once, the prizes reach the winners' wallets once each
while the director is killed and started again, and at the end every chip is back in a wallet
(the lobby's chip audit holds with nothing left in tournaments)."""

from __future__ import annotations

import asyncio
import contextlib
import random
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import nats
import pytest
from holdem.lobby.v1 import lobby_pb2
from redis.asyncio import Redis

from libs.devstack.identity import aio_channel_as
from libs.errors import DomainError
from libs.tournament import commands as C
from libs.tournament.config import TournamentConfig, TournamentKind
from libs.tournament.state import Status, TournamentState
from libs.tournament.structure import LevelUnit, preset
from services.tournament.director import Director
from services.tournament.registration import Registrations
from services.tournament.store import Tournaments
from services.tournament.tables import TableService
from services.tournament.wallets import LobbyWallets
from tests.services.lobby_stack import GRANT, LobbyStack, lobby_stack
from tests.tournamentservice.conftest import Parts

pytestmark = pytest.mark.integration

BUY_IN = 100


async def _direct(
    p: Parts, stack: LobbyStack, tid: str, rng: random.Random
) -> tuple[TournamentState, int]:
    """Directors, each killed after a random while, until one sees the tournament through."""
    kills = 0
    while True:
        async with (
            aio_channel_as(f"127.0.0.1:{stack.table_port}", "tournament") as table_channel,
            aio_channel_as(f"127.0.0.1:{stack.lobby_port}", "tournament") as lobby_channel,
        ):
            tables = TableService(table_channel, p.nc)
            director = Director(
                await p.tournaments(),
                p.checkpoints(),
                tables,
                LobbyWallets(lobby_channel),
                poll=0.2,
            )
            run = asyncio.ensure_future(director.run(tid))
            # the first directors are cut short (a tournament of bots can end within 2 s on a
            # quiet machine, so long windows alone may kill none), later ones have time
            window = rng.uniform(0.05, 0.3) if kills < 3 else rng.uniform(0.2, 2.0)
            done, _ = await asyncio.wait({run}, timeout=window)
            if done:
                await tables.stop()
                return run.result(), kills
            run.cancel()
            await asyncio.gather(run, return_exceptions=True)
            await tables.stop()
            kills += 1


@dataclass
class Money:
    """One tournament of six with its store, its registrations through the lobby's wallets."""

    parts: Parts
    tournaments: Tournaments
    tid: str
    regs: Registrations


@contextlib.asynccontextmanager
async def _money(
    stack: LobbyStack, redis_url: str, name: str, seats: int, chips: int, structure: str
) -> AsyncIterator[Money]:
    """A sit & go of six named ``name`` (``seats`` a table, ``chips`` each, a preset
    ``structure`` by hands, a buy-in of BUY_IN) created in a store of its own on the stack's
    NATS and Redis, and the registration sagas of the tournament service's identity."""
    nc = await nats.connect(stack.nats_url)
    redis = Redis.from_url(redis_url)
    try:
        parts = Parts(nc, redis, f"test:{uuid.uuid4().hex}:")
        tournaments = await parts.tournaments()
        tid = f"{name[0]}{uuid.uuid4().hex[:10]}"
        config = TournamentConfig(
            name,
            TournamentKind.SIT_AND_GO,
            max_entrants=6,
            seats_per_table=seats,
            buy_in=BUY_IN,
            starting_stack=chips,
            structure=preset(structure, LevelUnit.HANDS),
        )
        await tournaments.execute(tid, C.CreateTournament(tid, config, "test", 1.0), "create")
        address = f"127.0.0.1:{stack.lobby_port}"
        async with aio_channel_as(address, "tournament") as channel:
            regs = Registrations(nc, tournaments, LobbyWallets(channel))
            await regs.start()
            yield Money(parts, tournaments, tid, regs)
    finally:
        await redis.aclose()
        await nc.close()


def _kinds(stack: LobbyStack, player_id: str) -> list[int]:
    return [e.kind for e in stack.ledger(player_id)]


def test_buy_ins_refunds_and_prizes_move_through_the_wallets_once(
    tmp_path: Path, redis_url: str
) -> None:
    with lobby_stack(tmp_path, redis_url) as stack:
        players = [stack.register().player_id for _ in range(7)]

        async def scenario() -> None:
            async with _money(stack, redis_url, "money", 6, 200, "hyper") as m:
                tid, regs = m.tid, m.regs
                for i in range(5):
                    await regs.register(tid, players[i], f"k{i}", True, "normal")
                await regs.register(tid, players[0], "k0", True, "normal")  # a retry
                with pytest.raises(DomainError):  # registered already: refused, not paid
                    await regs.register(tid, players[1], "k1-again", True, "normal")
                wallets = [await asyncio.to_thread(stack.wallet, x) for x in players[:5]]
                assert [w.balance for w in wallets] == [GRANT - BUY_IN] * 5
                unregister = C.Unregister(players[4], "u4", 3.0)
                await m.tournaments.execute(tid, unregister, "unregister:u4")
                await regs.register(tid, players[4], "k4b", True, "hard")
                await regs.register(tid, players[5], "k5", True, "easy")  # full: it starts
                s, kills = await _direct(m.parts, stack, tid, random.Random(6))
                with pytest.raises(DomainError):  # too late: refused, nothing paid
                    await regs.register(tid, players[6], "k6", True, "easy")
                assert await regs.resume_all(grace_seconds=0) == 0  # no saga left open

            assert s.status is Status.FINISHED and not s.payments and kills >= 1
            balances = {x: (await asyncio.to_thread(stack.wallet, x)).balance for x in players}
            assert sum(balances.values()) == 7 * GRANT  # the pool went back, exactly
            assert balances[players[6]] == GRANT
            for e in s.entrants.values():
                assert balances[e.player_id] == GRANT - BUY_IN + e.prize
            buy_in, prize = (
                lobby_pb2.LEDGER_ENTRY_KIND_TOURNAMENT_BUY_IN,
                lobby_pb2.LEDGER_ENTRY_KIND_TOURNAMENT_PRIZE,
            )
            kinds = {x: await asyncio.to_thread(_kinds, stack, x) for x in players}
            assert kinds[players[4]].count(buy_in) == 2  # registered twice
            assert kinds[players[4]].count(lobby_pb2.LEDGER_ENTRY_KIND_REFUND) == 1
            assert all(kinds[x].count(buy_in) == 1 for x in players[:4] + players[5:6])
            assert kinds[players[6]].count(buy_in) == 0
            paid = [e for e in s.entrants.values() if e.prize]
            assert sum(kinds[e.player_id].count(prize) for e in s.entrants.values()) == len(paid)
            audit = await asyncio.to_thread(stack.audit)
            assert audit.holds and audit.in_tournaments == 0

        asyncio.run(scenario())


def test_a_cancelled_tournament_refunds_everyone_once(tmp_path: Path, redis_url: str) -> None:
    """Cancelled while its hands are being played (a director killed around it): every entrant
    gets back exactly what they paid, once, and every table closes with the tournament's chips
    going to no wallet."""
    with lobby_stack(tmp_path, redis_url) as stack:
        players = [stack.register().player_id for _ in range(6)]

        async def scenario() -> None:
            async with _money(stack, redis_url, "cancel", 3, 5000, "regular") as m:
                # 5000 chips: long enough to be cancelled while it runs
                for i, player in enumerate(players):
                    await m.regs.register(m.tid, player, f"k{i}", True, "normal")

                async def cancel_soon() -> None:
                    while (await m.tournaments.get(m.tid)).reports < 3:
                        await asyncio.sleep(0.1)
                    await m.tournaments.execute(m.tid, C.Cancel("test", 5.0), "cancel")

                cancelling = asyncio.ensure_future(cancel_soon())
                s, _ = await _direct(m.parts, stack, m.tid, random.Random(7))
                await cancelling

            assert s.status is Status.CANCELLED and not s.payments
            assert len(s.settled) == 6
            for player in players:
                assert (await asyncio.to_thread(stack.wallet, player)).balance == GRANT
                kinds = await asyncio.to_thread(_kinds, stack, player)
                assert kinds.count(lobby_pb2.LEDGER_ENTRY_KIND_REFUND) == 1
            audit = await asyncio.to_thread(stack.audit)
            assert audit.holds and audit.in_tournaments == 0

        asyncio.run(scenario())
