"""The tournament service's parts on a real nats-server and Redis: the store, the director's
checkpoints, a director driving ``world.World`` (tables and wallets that do each key once)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import nats
from nats.aio.client import Client as NATS
from redis.asyncio import Redis

from libs.eventstore.redis_snapshots import RedisSnapshotStore
from libs.tournament import commands as C
from libs.tournament.config import TournamentConfig, TournamentKind
from libs.tournament.state import TournamentState
from libs.tournament.structure import LevelUnit, preset
from services.tournament.checkpoint import Checkpoints
from services.tournament.director import Director
from services.tournament.store import Tournaments, open_tournaments
from tests.tournamentservice.world import World


@dataclass
class Parts:
    nc: NATS
    redis: Redis
    prefix: str

    async def tournaments(self, snapshot_every: int = 10) -> Tournaments:
        """A fresh store (no cache: a restarted process)."""
        snapshots = RedisSnapshotStore(self.redis, prefix=f"{self.prefix}snap:")
        return await open_tournaments(self.nc, snapshots, snapshot_every)

    def checkpoints(self) -> Checkpoints:
        return Checkpoints(RedisSnapshotStore(self.redis, prefix=f"{self.prefix}dir:"))

    async def director(self, world: World) -> Director:
        tournaments = await self.tournaments()
        return Director(
            CrashingStore(tournaments, world), self.checkpoints(), world, world, poll=0.01
        )


class CrashingStore(Tournaments):
    """The real store, and the world may kill the director right after an append lands."""

    def __init__(self, inner: Tournaments, world: World) -> None:
        super().__init__(inner.events, None, inner.index)
        self.aggregates = inner.aggregates
        self.world = world

    async def execute(self, tournament_id: str, command: C.Command, msg_id: str) -> TournamentState:
        state = await super().execute(tournament_id, command, msg_id)
        self.world.after_append(msg_id)
        return state


@asynccontextmanager
async def parts(nats_url: str, redis_url: str) -> AsyncIterator[Parts]:
    nc = await nats.connect(nats_url)
    redis = Redis.from_url(redis_url)
    try:
        yield Parts(nc, redis, f"test:{uuid.uuid4().hex}:")
    finally:
        await redis.aclose()
        await nc.close()


def config(
    entrants: int, seats: int, kind: TournamentKind = TournamentKind.SIT_AND_GO
) -> TournamentConfig:
    return TournamentConfig(
        "test",
        kind,
        max_entrants=entrants,
        seats_per_table=seats,
        structure=preset("hyper", LevelUnit.HANDS),
    )


async def create(tournaments: Tournaments, cfg: TournamentConfig, players: int) -> str:
    tid = f"t{uuid.uuid4().hex[:10]}"
    await tournaments.execute(tid, C.CreateTournament(tid, cfg, "test", 1.0), "create")
    for i in range(players):
        await tournaments.execute(tid, C.Register(f"p{i}", f"reg-p{i}", 2.0), f"reg-p{i}")
    return tid
