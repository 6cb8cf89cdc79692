"""The lobby service's wiring (``build``): NATS and its streams and indexes, Redis (bounded
timeouts; snapshots a cache), the table service's channel, the token key ring, the use cases and
their background tasks (cash-outs, the saga process manager, the audit gate), the catalogue's
follower, and the servicer (server.py) on its endpoint."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import secrets
from typing import Any

import structlog
from holdem.lobby.v1 import lobby_pb2_grpc
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.js.api import DeliverPolicy
from nats.js.errors import NotFoundError

from libs.auth import KeyRing
from libs.eventstore.owners import routed_channel
from libs.eventstore.projection import PUBLIC_STREAM, JetStreamProjection
from libs.eventstore.redis_snapshots import RedisSnapshotStore
from libs.eventstore.revoked import Revocations, revoked_bucket
from libs.eventstore.snapshot_cache import SnapshotCache
from libs.platform.callers import LOBBY_CALLERS
from libs.platform.clients import connect_peer
from libs.platform.natsconn import close_nats, connect_nats, nats_readiness
from libs.platform.redisconn import redis_client
from libs.platform.server import Endpoint, Mount
from services.lobby.app import Lobby
from services.lobby.base import ACCOUNTS, CATALOGUE, PLAYERS, Stores
from services.lobby.cashout import CashOuts
from services.lobby.config import LobbyConfig
from services.lobby.configs import table_config
from services.lobby.gate import ClusterGate
from services.lobby.limits import GuestLimiter, LoginLimiter
from services.lobby.player_stats import BOOKS, NOTES, TABLE_BOOKS, PlayerStats
from services.lobby.sagas import Seating
from services.lobby.server import SERVICE_NAME, LobbyServicer, error_mapper
from services.lobby.stats_feed import StatsFeed
from services.lobby.store import (
    LOBBY_STREAM,
    LOBBY_SUBJECTS,
    Aggregates,
    E,
    Index,
    Kind,
    S,
    ensure_lobby_stream,
    jetstream_store,
)
from services.lobby.tables import TableClient

log = structlog.get_logger("lobby.server")

#: Redis holds the login and guest counts, the audit gate and snapshots. A command it does not
#: answer within this fails (a login: UNAVAILABLE, DEPENDENCY_DOWN) instead of waiting out the
#: caller's deadline: a hung Redis (SIGSTOP, a full disk) keeps connections open and says
#: nothing, and redis-py has no timeout by default.
REDIS_TIMEOUT_SECONDS = 2.0


def _key_ring(config: LobbyConfig) -> KeyRing:
    if config.token_keys is not None:
        return config.token_keys
    log.warning("HOLDEM_TOKEN_KEYS is not set: tokens are signed with a key of this process only")
    secret = secrets.token_bytes(32)
    return KeyRing.parse(f"ephemeral:{base64.b64encode(secret).decode()}")


async def follow_catalogue(nc: NATS, lobby: Lobby) -> Any:
    """Keep this replica's catalogue read model (ListTables, GetTable) current with the table
    streams, whichever replica commits to them: an ordered consumer of new commits' headers on
    ``holdem.lobby.table.>``; each commit makes the replica read that table again."""

    async def on_commit(msg: Msg) -> None:
        table_id = msg.subject.rpartition(".")[2]
        try:
            await lobby.refresh_table(table_id)
        except Exception as exc:  # the next commit of that table, or a restart, reads it again
            log.warning("catalogue not refreshed", table_id=table_id, error=str(exc)[:200])

    return await nc.jetstream().subscribe(
        f"{LOBBY_SUBJECTS}.table.>",
        stream=LOBBY_STREAM,
        cb=on_commit,
        ordered_consumer=True,
        deliver_policy=DeliverPolicy.NEW,
        headers_only=True,
    )


async def build(config: LobbyConfig) -> Mount:
    platform = config.platform
    nc = await connect_nats(platform.nats_url, platform.tls, name="lobby")
    redis = redis_client(platform.redis_url, platform.tls, timeout=REDIS_TIMEOUT_SECONDS)
    await ensure_lobby_stream(nc)
    try:  # the tables' public projection, which the cash-out consumer reads
        await nc.jetstream().stream_info(PUBLIC_STREAM)
    except NotFoundError:  # created as the table service would (it owns its limits)
        await JetStreamProjection(nc).ensure_stream()

    def aggregates(kind: Kind[S, E]) -> Aggregates[S, E]:
        return Aggregates(
            kind,
            jetstream_store(nc, kind.name),
            # a cache: Redis failing is a miss (the stream has every commit)
            SnapshotCache(RedisSnapshotStore(redis, prefix=f"holdem:lobby:snapshot:{kind.name}:")),
        )

    indexes = [
        Index(nc, "holdem_lobby_players"),
        Index(nc, "holdem_lobby_tables"),
        Index(nc, "holdem_lobby_sagas"),
    ]
    for index in indexes:
        await index.start()
    stores = Stores(
        aggregates(PLAYERS),
        aggregates(ACCOUNTS),
        aggregates(CATALOGUE),
        *indexes,
    )
    channel = routed_channel(  # each table's calls to its replica (libs/platform/routing.py)
        nc, platform.peer("table"), lambda target: connect_peer(platform, "table", target)
    )
    limiter = LoginLimiter(
        redis,
        per_username=config.login_failures_per_user,
        per_peer=config.login_failures_per_peer,
        per_username_total=config.login_failures_per_user_total,
        window_seconds=config.login_window_seconds,
    )
    revocations = Revocations(await revoked_bucket(nc, config.token_ttl_seconds))
    lobby = Lobby(
        stores,
        TableClient(channel, timeout=platform.rpc_timeout_seconds),
        limiter,
        GuestLimiter(
            redis,
            per_address=config.guests_per_address,
            window_seconds=config.guest_window_seconds,
        ),
        _key_ring(config),
        revocations,
        grant=config.starting_chips,
        token_ttl_seconds=config.token_ttl_seconds,
        open_tables_per_player=config.open_tables_per_player,
        house_ai_max_buy_in=config.house_ai_max_buy_in,
        accounts=GuestLimiter(
            redis,
            per_address=config.guests_per_address,
            window_seconds=config.guest_window_seconds,
            kind="accounts",
        ),
        read_config=table_config,
    )
    lobby.seat_offer_seconds = config.seat_offer_seconds  # waiting lists (waitlists.py)
    follower = await follow_catalogue(nc, lobby)  # before the rebuild: nothing falls between
    await lobby.start()
    gate = ClusterGate(redis)
    cashouts = CashOuts(nc, lobby, gate)
    seating = Seating(
        lobby, gate, cashouts.find_commit, leave_wait_seconds=config.leave_wait_seconds
    )

    stats = PlayerStats(
        aggregates(BOOKS), aggregates(TABLE_BOOKS), aggregates(NOTES), stores.players, lobby.clock
    )
    tasks = [
        asyncio.create_task(cashouts.run()),
        asyncio.create_task(StatsFeed(nc, stats).run()),
        asyncio.create_task(seating.run(config.saga_resume_seconds)),
        asyncio.create_task(gate.run()),
    ]
    servicer = LobbyServicer(lobby, seating, cashouts, gate, nc, stats)

    async def cleanup() -> None:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        with contextlib.suppress(Exception):
            await follower.unsubscribe()
        await channel.close()
        await close_nats(nc)
        await redis.aclose()

    return Mount(
        policy=LOBBY_CALLERS,
        endpoints=[
            Endpoint(
                SERVICE_NAME,
                lambda s: lobby_pb2_grpc.add_LobbyServiceServicer_to_server(servicer, s),
            )
        ],
        error_mapper=error_mapper(),
        cleanups=[cleanup],
        # players, wallets, sagas and the catalogue live on JetStream; Redis holds snapshots
        readiness=lambda: nats_readiness(nc),
    )
