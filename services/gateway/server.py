"""Gateway gRPC servicer: the public holdem.gateway.v1 API, one GatewayService put together from
its parts (each a class of RPCs on the shared ``GatewayBase``, base.py): lobby_calls.py
(accounts, wallets, the catalogue and seats, forwarded to the lobby: contract-13 §3),
commands.py (actions, showdown choices, sitting out and in: one table call each), watching.py
(WatchTable, on the table's public projection: watch.py), histories.py (hand histories and
decks, asked of the table, which reads its own stream), chat.py (chat rooms, kept in NATS),
tournaments.py (tournaments for players, asked of the tournament service).
Every call but Register, Login, GuestLogin and ListTables carries a bearer token, verified by
admission.py (auth.py, revocations.py); the player it names is the only player the call acts
for. Here too: the
guards every RPC runs in (a failing NATS is UNAVAILABLE; relayed messages repeat little of the
request: echo.py) and the service's wiring (``build``).

Statuses, limits and the resume rules of WatchTable: docs/gateway.md."""

from __future__ import annotations

from pathlib import Path

import grpc
import structlog
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from holdem.lobby.v1 import lobby_pb2_grpc
from holdem.table.v1 import table_pb2_grpc
from holdem.tournament.v1 import tournament_pb2_grpc

from libs.eventstore.owners import routed_channel
from libs.eventstore.projection import JetStreamProjection
from libs.platform.clients import aio_channel, connect_peer, service_config
from libs.platform.config import PlatformConfig
from libs.platform.httpsite import HttpSite
from libs.platform.natsconn import close_nats, connect_nats, nats_readiness
from libs.platform.server import Endpoint, Mount
from libs.platform.unavailable import unavailable_on_failure
from services.gateway.auth import Authenticator
from services.gateway.chat import Chatting
from services.gateway.chatstore import ChatStore
from services.gateway.commands import TableCommands
from services.gateway.config import GatewayConfig
from services.gateway.echo import echoes_clipped
from services.gateway.histories import Histories
from services.gateway.lobby_calls import LobbyCalls
from services.gateway.player_stats import PlayerStatsCalls
from services.gateway.revocations import RevocationCheck
from services.gateway.tournaments import TournamentCalls
from services.gateway.waitlists import WaitlistWatching
from services.gateway.watch import TableFeeds
from services.gateway.watching import Watching

log = structlog.get_logger("gateway")

GATEWAY_SERVICE = gateway_pb2.DESCRIPTOR.services_by_name["GatewayService"]
SERVICE_NAME = GATEWAY_SERVICE.full_name
#: What a call answers (UNAVAILABLE) when NATS fails under it: a watch's reads, revocations.
NATS_DOWN = "NATS is not answering: retry"


@echoes_clipped(GATEWAY_SERVICE.methods_by_name)
@unavailable_on_failure(GATEWAY_SERVICE.methods_by_name, NATS_DOWN)
class GatewayServicer(
    PlayerStatsCalls,
    LobbyCalls,
    TableCommands,
    Watching,
    Histories,
    Chatting,
    TournamentCalls,
    WaitlistWatching,
    gateway_pb2_grpc.GatewayServiceServicer,
):
    """Every RPC of GatewayService, from its parts (the constructor is ``GatewayBase``'s)."""


def fast_channel(platform: PlatformConfig, target: str | None = None) -> grpc.aio.Channel:
    """The channel to the table, on every Act's path: the shared retry settings, but no client
    interceptor (grpc.aio's Python interceptors cost more than the rest of the hop); the gateway
    passes each call's deadline, request id and service token itself (base.py ``_meta``).
    ``target``: one replica (routing), else HOLDEM_TABLE_ADDR."""
    config = service_config(platform.rpc_max_attempts)
    return aio_channel(
        target or platform.peer("table"),
        platform.tls,
        "table",
        options=[("grpc.enable_retries", 1), ("grpc.service_config", config)],
    )


async def build(config: GatewayConfig) -> Mount:
    lobby_channel = connect_peer(config.platform, "lobby")
    tournament_channel = connect_peer(config.platform, "tournament")
    nc = await connect_nats(config.platform.nats_url, config.platform.tls, name="gateway")
    # each table's calls go to the replica holding it (libs/platform/routing.py)
    table_channel = routed_channel(
        nc, config.platform.peer("table"), lambda target: fast_channel(config.platform, target)
    )
    # watched from the start when the bucket is there; else tried again in the background, and
    # each token read from the bucket until then (services/gateway/revocations.py)
    revocations = RevocationCheck(nc)
    await revocations.start()
    if config.token_keys is None:
        log.warning("HOLDEM_TOKEN_KEYS is not set: no token verifies at this gateway")
    auth = Authenticator(config.token_keys)
    feeds = TableFeeds(nc, JetStreamProjection(nc))
    servicer = GatewayServicer(
        config,
        lobby_pb2_grpc.LobbyServiceStub(lobby_channel),
        table_pb2_grpc.TableServiceStub(table_channel),
        auth,
        feeds,
        revocations=revocations,
        tournaments=tournament_pb2_grpc.TournamentServiceStub(tournament_channel),
    )
    chat = config.chat
    servicer.chat_store = ChatStore(
        nc,
        retention_seconds=chat.retention_seconds,
        keep_per_room=chat.keep_per_room,
        replicas=config.platform.nats_replicas,
    )
    await servicer.chat_store.start()

    async def close() -> None:
        servicer.presence.stop()  # streams cut by the shutdown are no players leaving
        await revocations.stop()
        await close_nats(nc)
        await lobby_channel.close()
        await table_channel.close()
        await tournament_channel.close()

    return Mount(
        endpoints=[
            Endpoint(
                SERVICE_NAME,
                lambda s: gateway_pb2_grpc.add_GatewayServiceServicer_to_server(servicer, s),
            )
        ],
        cleanups=[close],
        # revocations and the tables' public streams come from NATS
        readiness=lambda: nats_readiness(nc),
        http=None
        if config.http_listen is None
        else HttpSite(
            config.http_listen,
            GATEWAY_SERVICE,
            allowed_origins=config.http_origins,
            max_body_bytes=config.http_max_body_bytes,
            max_streams=config.http_max_streams,
            static_root=config.web_root or default_web_root(),
        ),
    )


def default_web_root() -> str:
    """web/dist of this checkout, when the web client was built (``make web``), else none."""
    built = Path(__file__).resolve().parents[2] / "web" / "dist"
    return str(built) if (built / "index.html").is_file() else ""
