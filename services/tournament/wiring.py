"""The tournament service's wiring (``build``): NATS (the tournaments' stream and index, the
registration sagas' bucket, the directors' leases), Redis (snapshots and the directors'
checkpoints, under ``holdem:tournament:``), channels to the table service (the director's
tables) and the lobby (wallets), the registration sagas resumed at start and every few seconds,
the supervisor of directors, and the servicer (server.py) on its endpoint."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import uuid

import structlog
from holdem.tournament.v1 import tournament_pb2_grpc

from libs.eventstore.lease import Leases
from libs.eventstore.owners import routed_channel
from libs.eventstore.redis_snapshots import RedisSnapshotStore
from libs.eventstore.snapshot_cache import SnapshotCache
from libs.platform.callers import TOURNAMENT_CALLERS
from libs.platform.clients import connect_peer
from libs.platform.natsconn import close_nats, connect_nats, nats_readiness
from libs.platform.redisconn import redis_client
from libs.platform.server import Endpoint, Mount
from libs.tournament.state import TournamentState

from .app import TournamentApp
from .checkpoint import Checkpoints
from .config import TournamentServiceConfig
from .director import Director
from .registration import Registrations
from .server import SERVICE_NAME, TournamentServicer, error_mapper
from .store import open_tournaments
from .supervisor import LEASE_BUCKET, Supervisor
from .tables import TableService
from .wallets import LobbyWallets

log = structlog.get_logger("tournament.server")

REDIS_PREFIX = "holdem:tournament:"


async def resume_registrations(registrations: Registrations, every: float) -> None:
    """Drive the registration sagas a crash left open: at start, then every ``every`` s."""
    while True:
        try:
            resumed = await registrations.resume_all()
            if resumed:
                log.info("registration sagas resumed", count=resumed)
        except Exception as exc:  # a dependency away: the next pass tries again
            log.warning("registration sagas not resumed", error=str(exc)[:300])
        await asyncio.sleep(every)


async def build(config: TournamentServiceConfig) -> Mount:
    platform = config.platform
    nc = await connect_nats(platform.nats_url, platform.tls, name="tournament")
    redis = redis_client(platform.redis_url, platform.tls)
    snapshots = SnapshotCache(RedisSnapshotStore(redis, prefix=f"{REDIS_PREFIX}snapshot:"))
    tournaments = await open_tournaments(nc, snapshots, config.snapshot_every)
    checkpoints = Checkpoints(RedisSnapshotStore(redis, prefix=f"{REDIS_PREFIX}director:"))
    table_channel = routed_channel(  # each table's calls to its replica (libs/platform/routing.py)
        nc, platform.peer("table"), lambda target: connect_peer(platform, "table", target)
    )
    lobby_channel = connect_peer(platform, "lobby")
    wallets = LobbyWallets(lobby_channel, timeout=platform.rpc_timeout_seconds)
    registrations = Registrations(nc, tournaments, wallets)
    await registrations.start()
    owner = f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    leases = Leases(
        nc,
        owner,
        bucket=LEASE_BUCKET,
        ttl=config.lease_ttl_seconds,
        replicas=platform.nats_replicas,
    )
    await leases.start()

    async def direct(tournament_id: str) -> TournamentState:
        tables = TableService(table_channel, nc, timeout=platform.rpc_timeout_seconds)
        director = Director(
            tournaments, checkpoints, tables, wallets, poll=config.director_poll_seconds
        )
        try:
            return await director.run(tournament_id)
        finally:
            await tables.stop()

    supervisor = Supervisor(tournaments, leases, direct, leases.ttl / 3)
    tasks = [
        asyncio.create_task(resume_registrations(registrations, config.saga_resume_seconds)),
        asyncio.create_task(supervisor.run()),
    ]
    servicer = TournamentServicer(TournamentApp(tournaments, registrations))

    async def cleanup() -> None:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        await table_channel.close()
        await lobby_channel.close()
        await close_nats(nc)
        await redis.aclose()

    return Mount(
        policy=TOURNAMENT_CALLERS,
        endpoints=[
            Endpoint(
                SERVICE_NAME,
                lambda s: tournament_pb2_grpc.add_TournamentServiceServicer_to_server(servicer, s),
            )
        ],
        error_mapper=error_mapper(),
        cleanups=[cleanup],
        readiness=lambda: nats_readiness(nc),
    )
