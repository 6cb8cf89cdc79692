"""Lobby gRPC servicer: translates holdem.lobby.v1 messages to and from the use cases (app.py,
sagas.py, audit.py), and wires the service (NATS, Redis, the table service, background tasks)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import secrets
from datetime import UTC, datetime
from typing import Any, TypeVar

import structlog
from google.protobuf.timestamp_pb2 import Timestamp
from holdem.common.v1 import common_pb2
from holdem.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.js.api import DeliverPolicy
from nats.js.errors import NotFoundError
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError

from libs.auth import KeyRing
from libs.auth.revocation import Revocations, revoked_bucket
from libs.errors import ErrorKind, Unavailable
from libs.eventstore import StoreError
from libs.eventstore.projection import PUBLIC_STREAM, JetStreamProjection
from libs.eventstore.redis_snapshots import RedisSnapshotStore
from libs.eventstore.snapshot_cache import SnapshotCache
from libs.lobby import catalogue
from libs.lobby.catalogue import Listing
from libs.lobby.wallet import Entry, Wallet
from libs.platform.callers import LOBBY_CALLERS, caller_of, client_address
from libs.platform.clients import connect_peer
from libs.platform.errors import ErrorMapper
from libs.platform.natsconn import close_nats, connect_nats, nats_readiness
from libs.platform.server import Context, Endpoint, Mount
from libs.platform.tls import TlsFiles, redis_options
from libs.platform.unavailable import DEPENDENCY_FAILURES, unavailable_on_failure
from libs.table import TableConfig
from libs.table.errors import TABLE_NOT_FOUND
from libs.tableproto.config import STRUCTURES, VARIANTS, config_from_proto, config_to_proto
from services.lobby.app import (
    ACCOUNTS,
    CATALOGUE,
    PLAYERS,
    Lobby,
    Session,
    Stores,
    ai_levels,
    decode_config,
)
from services.lobby.audit import audit_chips
from services.lobby.cashout import CashOuts
from services.lobby.config import LobbyConfig
from services.lobby.gate import ClusterGate, Gate, GateUnavailable
from services.lobby.limits import GuestLimiter, LoginLimiter
from services.lobby.sagas import Seating
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
from services.lobby.tables import TableClient, TableRefusal

log = structlog.get_logger("lobby.server")

T = TypeVar("T")
LOBBY_SERVICE = lobby_pb2.DESCRIPTOR.services_by_name["LobbyService"]
SERVICE_NAME = LOBBY_SERVICE.full_name

_STATUSES = {
    catalogue.OPEN: common_pb2.TABLE_STATUS_OPEN,
    catalogue.CLOSED: common_pb2.TABLE_STATUS_CLOSED,
}
_LEDGER_KINDS = {
    "GRANT": lobby_pb2.LEDGER_ENTRY_KIND_GRANT,
    "BUY_IN": lobby_pb2.LEDGER_ENTRY_KIND_BUY_IN,
    "CASH_OUT": lobby_pb2.LEDGER_ENTRY_KIND_CASH_OUT,
    "TOP_UP": lobby_pb2.LEDGER_ENTRY_KIND_TOP_UP,
    "REFUND": lobby_pb2.LEDGER_ENTRY_KIND_REFUND,
}


def _timestamp(seconds: float) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(datetime.fromtimestamp(seconds, UTC))
    return stamp


def table_to_proto(listing: Listing) -> common_pb2.TableSummary:
    return common_pb2.TableSummary(
        table_id=listing.table_id,
        name=listing.name,
        config=config_to_proto(_config(listing)),
        status=_STATUSES.get(listing.status, common_pb2.TABLE_STATUS_OPEN),
        seated_players=listing.seated,
        created_by_player_id=listing.created_by,
        created_at=_timestamp(listing.created_at),
    )


def _config(listing: Listing) -> TableConfig:
    return config_from_proto(decode_config(listing.config))


def player_to_proto(player: Wallet) -> lobby_pb2.Player:
    return lobby_pb2.Player(
        player_id=player.player_id,
        username=player.username,
        display_name=player.display_name,
        is_bot=player.bot,
        created_at=_timestamp(player.created_at),
    )


def wallet_to_proto(player: Wallet) -> lobby_pb2.Wallet:
    return lobby_pb2.Wallet(
        player_id=player.player_id,
        balance=player.balance,
        on_tables=player.on_tables,
        reserved=player.reserved,
    )


def entry_to_proto(entry: Entry) -> lobby_pb2.LedgerEntry:
    return lobby_pb2.LedgerEntry(
        index=entry.index,
        kind=_LEDGER_KINDS.get(entry.kind, lobby_pb2.LEDGER_ENTRY_KIND_UNSPECIFIED),
        amount=entry.amount,
        balance_after=entry.balance_after,
        table_id=entry.table_id,
        reference=entry.reference,
        at=_timestamp(entry.at),
    )


AUDIT_UNAVAILABLE = "AUDIT_UNAVAILABLE"
#: What the lobby's stores raise when NATS, JetStream or Redis fail under a call (besides the
#: platform's list): any Redis error, and the event store's uncoded errors (a read cut short).
STORE_FAILURES: tuple[type[BaseException], ...] = (*DEPENDENCY_FAILURES, RedisError, StoreError)


@unavailable_on_failure(
    LOBBY_SERVICE.methods_by_name, "storage is not reachable: retry", STORE_FAILURES
)
class LobbyServicer(lobby_pb2_grpc.LobbyServiceServicer):
    def __init__(
        self, lobby: Lobby, seating: Seating, cashouts: CashOuts, gate: Gate, nc: NATS
    ) -> None:
        self.lobby = lobby
        self.seating = seating
        self.cashouts = cashouts
        self.gate = gate
        self.nc = nc

    def _login_response(self, session: Session) -> lobby_pb2.LoginResponse:
        return lobby_pb2.LoginResponse(
            token=session.token,
            expires_at=_timestamp(session.claims.expires_at),
            player=player_to_proto(session.player),
        )

    async def RegisterPlayer(
        self, request: lobby_pb2.RegisterPlayerRequest, context: Context
    ) -> lobby_pb2.RegisterPlayerResponse:
        player = await self.lobby.register(
            request.username,
            request.password,
            request.display_name,
            peer=client_address(context),
            bot=request.is_bot,
            client=caller_of(context).service == "gateway",
        )
        return lobby_pb2.RegisterPlayerResponse(player=player_to_proto(player))

    async def Login(
        self, request: lobby_pb2.LoginRequest, context: Context
    ) -> lobby_pb2.LoginResponse:
        session = await self.lobby.login(
            request.username, request.password, client_address(context)
        )
        return self._login_response(session)

    async def GuestLogin(
        self, request: lobby_pb2.GuestLoginRequest, context: Context
    ) -> lobby_pb2.LoginResponse:
        session = await self.lobby.guest(request.display_name, client_address(context))
        return self._login_response(session)

    async def Logout(
        self, request: lobby_pb2.LogoutRequest, context: Context
    ) -> lobby_pb2.LogoutResponse:
        await self.lobby.logout(request.token)
        return lobby_pb2.LogoutResponse()

    async def Authenticate(
        self, request: lobby_pb2.AuthenticateRequest, context: Context
    ) -> lobby_pb2.AuthenticateResponse:
        player = await self.lobby.authenticate(request.token)
        return lobby_pb2.AuthenticateResponse(player=player_to_proto(player))

    async def GetPlayer(
        self, request: lobby_pb2.GetPlayerRequest, context: Context
    ) -> lobby_pb2.GetPlayerResponse:
        player = await self.lobby.player(request.player_id)
        return lobby_pb2.GetPlayerResponse(player=player_to_proto(player))

    async def GetWallet(
        self, request: lobby_pb2.GetWalletRequest, context: Context
    ) -> lobby_pb2.GetWalletResponse:
        player = await self.lobby.player(request.player_id)
        return lobby_pb2.GetWalletResponse(wallet=wallet_to_proto(player))

    async def ListLedger(
        self, request: lobby_pb2.ListLedgerRequest, context: Context
    ) -> lobby_pb2.ListLedgerResponse:
        entries, next_token = await self.lobby.ledger(
            request.player_id, request.page_size, request.page_token
        )
        return lobby_pb2.ListLedgerResponse(
            entries=[entry_to_proto(e) for e in entries], next_page_token=next_token
        )

    async def JoinTable(
        self, request: lobby_pb2.JoinTableRequest, context: Context
    ) -> lobby_pb2.JoinTableResponse:
        outcome = await self.seating.join(
            request.player_id,
            request.table_id,
            request.seat if request.HasField("seat") else None,
            request.buy_in,
            request.wait_for_big_blind,
            request.idempotency_key,
        )
        return lobby_pb2.JoinTableResponse(
            seat=outcome.seat, stack=outcome.stack, sequence=outcome.sequence
        )

    async def TopUp(
        self, request: lobby_pb2.TopUpRequest, context: Context
    ) -> lobby_pb2.TopUpResponse:
        outcome = await self.seating.top_up(
            request.player_id, request.table_id, request.amount, request.idempotency_key
        )
        return lobby_pb2.TopUpResponse(stack=outcome.stack, sequence=outcome.sequence)

    async def LeaveTable(
        self, request: lobby_pb2.LeaveTableRequest, context: Context
    ) -> lobby_pb2.LeaveTableResponse:
        left = await self.seating.leave(
            request.player_id, request.table_id, request.idempotency_key
        )
        return lobby_pb2.LeaveTableResponse(
            cash_out=left.cash_out, sequence=left.sequence, leaving=left.leaving
        )

    async def CreateTable(
        self, request: lobby_pb2.CreateTableRequest, context: Context
    ) -> lobby_pb2.CreateTableResponse:
        listing = await self.lobby.create_table(
            request.name,
            request.config,
            request.created_by_player_id,
            request.bots,
            client=caller_of(context).service == "gateway",
        )
        if request.bots:
            config = self.lobby.config_of(listing)
            levels = ai_levels(request.bots, config.seats)
            await self.seating.seat_ais(listing.table_id, levels, self.lobby.ai_buy_in(config))
            listing = await self.lobby.table(listing.table_id)
        return lobby_pb2.CreateTableResponse(table=table_to_proto(listing))

    async def ListTables(
        self, request: lobby_pb2.ListTablesRequest, context: Context
    ) -> lobby_pb2.ListTablesResponse:
        tables, next_token = self.lobby.list_tables(
            variant=VARIANTS.get(request.variant),
            betting_structure=STRUCTURES.get(request.betting_structure),
            include_closed=request.include_closed,
            page_size=request.page_size,
            page_token=request.page_token,
        )
        return lobby_pb2.ListTablesResponse(
            tables=[table_to_proto(t) for t in tables], next_page_token=next_token
        )

    async def GetTable(
        self, request: lobby_pb2.GetTableRequest, context: Context
    ) -> lobby_pb2.GetTableResponse:
        listing = await self.lobby.table(request.table_id)
        return lobby_pb2.GetTableResponse(table=table_to_proto(listing))

    async def CloseTable(
        self, request: lobby_pb2.CloseTableRequest, context: Context
    ) -> lobby_pb2.CloseTableResponse:
        listing = await self.lobby.close_table(request.table_id, request.requested_by_player_id)
        return lobby_pb2.CloseTableResponse(table=table_to_proto(listing))

    async def AuditChips(
        self, request: lobby_pb2.AuditChipsRequest, context: Context
    ) -> lobby_pb2.AuditChipsResponse:
        try:
            audit = await audit_chips(self.nc, self.lobby, self.seating, self.cashouts, self.gate)
        except GateUnavailable as exc:
            raise Unavailable(AUDIT_UNAVAILABLE, f"{exc}: retry") from None
        except TableRefusal as refusal:  # a table moving to another replica, or down
            raise Unavailable(
                AUDIT_UNAVAILABLE, f"a table did not answer ({refusal}): retry"
            ) from None
        return lobby_pb2.AuditChipsResponse(
            grants=audit.grants,
            wallets=audit.wallets,
            reserved=audit.reserved,
            on_tables=audit.on_tables,
            in_flight=audit.in_flight,
            rake=audit.rake,
            holds=audit.holds,
            tables=[
                lobby_pb2.TableChips(
                    table_id=t.table_id, on_table=t.on_table, rake=t.rake, sequence=t.sequence
                )
                for t in audit.tables
            ],
            open_sagas=audit.open_sagas,
            seated_players=audit.seated_players,
        )


def error_mapper() -> ErrorMapper:
    mapper = ErrorMapper()
    mapper.register_code(TABLE_NOT_FOUND, ErrorKind.NOT_FOUND)
    return mapper


#: Redis holds the login and guest counts, the audit gate and snapshots. A command it does not
#: answer within this fails (a login: UNAVAILABLE, DEPENDENCY_DOWN) instead of waiting out the
#: caller's deadline: a hung Redis (SIGSTOP, a full disk) keeps connections open and says
#: nothing, and redis-py has no timeout by default.
REDIS_TIMEOUT_SECONDS = 2.0
REDIS_CONNECT_TIMEOUT_SECONDS = 1.0


def redis_client(url: str, tls: TlsFiles | None) -> Redis:
    """The lobby's Redis client: bounded timeouts, and one retry only for a connection found
    broken (Redis restarted), none for a timeout: said here rather than left to redis-py's
    defaults, which have changed between versions."""
    return Redis.from_url(
        url,
        socket_timeout=REDIS_TIMEOUT_SECONDS,
        socket_connect_timeout=REDIS_CONNECT_TIMEOUT_SECONDS,
        retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
        **redis_options(url, tls),
    )


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
    redis = redis_client(platform.redis_url, platform.tls)
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
    channel = connect_peer(platform, "table")
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
    )
    follower = await follow_catalogue(nc, lobby)  # before the rebuild: nothing falls between
    await lobby.start()
    gate = ClusterGate(redis)
    cashouts = CashOuts(nc, lobby, gate)
    seating = Seating(
        lobby, gate, cashouts.find_commit, leave_wait_seconds=config.leave_wait_seconds
    )

    tasks = [
        asyncio.create_task(cashouts.run()),
        asyncio.create_task(seating.run(config.saga_resume_seconds)),
        asyncio.create_task(gate.run()),
    ]
    servicer = LobbyServicer(lobby, seating, cashouts, gate, nc)

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
