"""Gateway gRPC servicer: the public holdem.gateway.v1 API. Every call but Register, Login,
GuestLogin and ListTables carries a bearer token, verified here (``auth``); the player it names
is the only player the call acts for. Seating, leaving, top-ups, wallets and accounts go to the
lobby (contract-13 §3); actions, sitting out/in and showdown choices to the table (one table
call each); WatchTable follows the table's public projection (``watch``); hand histories are
read from the table's stream and projected for the caller (libs.history).

Statuses, limits and the resume rules of WatchTable: docs/gateway.md."""

from __future__ import annotations

import contextlib
import hashlib
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import grpc
import structlog
from google.protobuf.timestamp_pb2 import Timestamp
from holdem.common.v1 import common_pb2
from holdem.events.v1 import events_pb2
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from holdem.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from holdem.table.v1 import table_pb2, table_pb2_grpc

from libs.auth import TokenClaims
from libs.auth.revocation import REVOKED_BUCKET, RevokedTokens
from libs.eventstore.jetstream import JetStreamEventStore
from libs.eventstore.projection import JetStreamProjection, Projected
from libs.history import HandHistory, hands_of_player
from libs.platform.callers import caller_of
from libs.platform.clients import call_timeout, connect_peer, service_config
from libs.platform.config import PlatformConfig
from libs.platform.errors import (
    Conflict,
    InvalidArgument,
    NotFound,
    NotImplementedYet,
    PermissionDenied,
    Unauthenticated,
)
from libs.platform.limits import RETRY_AFTER_HEADER
from libs.platform.logging import REQUEST_ID_HEADER, current_request_id
from libs.platform.natsconn import connect_nats
from libs.platform.ratelimit import RateLimiter
from libs.platform.server import ERROR_CODE_HEADER, Context, Endpoint, Mount
from libs.tableproto.envelope import decode_commit
from services.gateway.auth import REVOKED_TOKEN, Authenticator, bearer_token
from services.gateway.config import GatewayConfig
from services.gateway.watch import Listener, TableFeeds

log = structlog.get_logger("gateway")

SERVICE_NAME = gateway_pb2.DESCRIPTOR.services_by_name["GatewayService"].full_name

RATE_LIMITED = "RATE_LIMITED"
TOO_MANY_WATCHES = "TOO_MANY_WATCHES"
FELL_BEHIND = "FELL_BEHIND"
NOT_YOUR_SEAT = "NOT_YOUR_SEAT"
INVALID_PAGE_TOKEN = "INVALID_PAGE_TOKEN"
TABLE_NOT_FOUND = "TABLE_NOT_FOUND"
#: Table codes that, for a call about the caller's own seat, mean "you have no seat here".
_NOT_SEATED_CODES = frozenset({"NOT_SEATED"})
BOTS_LATER = "bots are seated by the lobby (contract-13 §5), not through the gateway yet"
#: Hands one GetHandHistory answers at most, and commits of a table it reads at most.
MAX_HANDS = 100
MAX_HISTORY_COMMITS = 20_000

T = TypeVar("T")


def _player(claims: TokenClaims | lobby_pb2.Player) -> gateway_pb2.Player:
    if isinstance(claims, TokenClaims):
        return gateway_pb2.Player(
            player_id=claims.player_id, username=claims.username, display_name=claims.display_name
        )
    return gateway_pb2.Player(
        player_id=claims.player_id, username=claims.username, display_name=claims.display_name
    )


def scoped_key(kind: str, player_id: str, key: str) -> str:
    """The table's idempotency key for a client's key: per player and per kind of call (two
    players' keys never meet; a key fits the table's KEY rule whatever the client sent)."""
    if not key:
        key = uuid.uuid4().hex
    digest = hashlib.sha256(f"{player_id}\x00{key}".encode()).hexdigest()[:40]
    return f"gw-{kind}-{digest}"


def _timestamp(seconds: float) -> Timestamp:
    return Timestamp(seconds=int(seconds), nanos=int((seconds % 1) * 1e9))


def _error_code(exc: grpc.aio.AioRpcError) -> str:
    for key, value in exc.trailing_metadata() or ():
        if key == ERROR_CODE_HEADER and isinstance(value, str):
            return value
    return ""


class GatewayServicer(gateway_pb2_grpc.GatewayServiceServicer):
    def __init__(
        self,
        config: GatewayConfig,
        lobby: lobby_pb2_grpc.LobbyServiceAsyncStub,
        table: table_pb2_grpc.TableServiceAsyncStub,
        auth: Authenticator,
        feeds: TableFeeds | None,
        tables: JetStreamEventStore | None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.lobby = lobby
        self.table = table
        self.auth = auth
        self.feeds = feeds
        self.tables = tables
        self.clock = clock
        self.rpc_timeout = config.platform.rpc_timeout_seconds
        self.limiter = RateLimiter(config.rate_per_second, config.rate_burst)
        self.watches: Counter[str] = Counter()
        self.logged_out: dict[str, float] = {}  # jti -> expiry, until the revocation watch has it

    # ---- who, and how often ---------------------------------------------------------------

    def _timeout(self, context: Context) -> float:
        return call_timeout(context, self.rpc_timeout)

    async def _admit(self, context: Context, who: str) -> None:
        wait = self.limiter.take(who, self.clock())
        if wait > 0:
            retry_ms = max(1, int(wait * 1000) + 1)
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"too many calls: retry in {retry_ms} ms",
                trailing_metadata=(
                    (ERROR_CODE_HEADER, RATE_LIMITED),
                    (RETRY_AFTER_HEADER, str(retry_ms)),
                ),
            )

    async def _open(self, context: Context) -> None:
        """An open call (no token): limited per peer."""
        await self._admit(context, "peer:" + caller_of(context).address)

    async def _caller(self, context: Context) -> TokenClaims:
        """The caller's verified token (limited per player)."""
        peer = "peer:" + caller_of(context).address
        try:
            claims = self.auth.claims(context.invocation_metadata())
        except Exception:
            await self._admit(context, peer)  # bad tokens count against the peer
            raise
        expiry = self.logged_out.get(claims.jti)
        if expiry is not None:
            if expiry > time.time():
                raise Unauthenticated(REVOKED_TOKEN, "the token was revoked (logged out)")
            del self.logged_out[claims.jti]
        await self._admit(context, "player:" + claims.player_id)
        return claims

    async def _seat_call(self, call: Awaitable[T]) -> T:
        """A table call about the caller's own seat: no seat there is PERMISSION_DENIED."""
        try:
            return await call
        except grpc.aio.AioRpcError as exc:
            if _error_code(exc) in _NOT_SEATED_CODES:
                raise PermissionDenied(
                    NOT_YOUR_SEAT, "you have no seat at this table: act only for your own seat"
                ) from None
            raise

    # ---- accounts ----------------------------------------------------------------------------

    async def Register(
        self, request: gateway_pb2.RegisterRequest, context: Context
    ) -> gateway_pb2.RegisterResponse:
        await self._open(context)
        response = await self.lobby.RegisterPlayer(
            lobby_pb2.RegisterPlayerRequest(
                username=request.username,
                password=request.password,
                display_name=request.display_name,
            ),
            timeout=self._timeout(context),
        )
        return gateway_pb2.RegisterResponse(player=_player(response.player))

    async def Login(
        self, request: gateway_pb2.LoginRequest, context: Context
    ) -> gateway_pb2.LoginResponse:
        await self._open(context)
        response = await self.lobby.Login(
            lobby_pb2.LoginRequest(username=request.username, password=request.password),
            timeout=self._timeout(context),
        )
        return gateway_pb2.LoginResponse(
            token=response.token, expires_at=response.expires_at, player=_player(response.player)
        )

    async def GuestLogin(
        self, request: gateway_pb2.GuestLoginRequest, context: Context
    ) -> gateway_pb2.LoginResponse:
        await self._open(context)
        response = await self.lobby.GuestLogin(
            lobby_pb2.GuestLoginRequest(display_name=request.display_name),
            timeout=self._timeout(context),
        )
        return gateway_pb2.LoginResponse(
            token=response.token, expires_at=response.expires_at, player=_player(response.player)
        )

    async def Logout(
        self, request: gateway_pb2.LogoutRequest, context: Context
    ) -> gateway_pb2.LogoutResponse:
        claims = await self._caller(context)
        token = bearer_token(context.invocation_metadata())
        await self.lobby.Logout(
            lobby_pb2.LogoutRequest(token=token), timeout=self._timeout(context)
        )
        now = time.time()
        if len(self.logged_out) > 10_000:  # expired tokens are refused anyway: forget them
            self.logged_out = {j: e for j, e in self.logged_out.items() if e > now}
        self.logged_out[claims.jti] = float(claims.expires_at)
        return gateway_pb2.LogoutResponse()

    # ---- wallet -----------------------------------------------------------------------------

    async def GetWallet(
        self, request: gateway_pb2.GetWalletRequest, context: Context
    ) -> gateway_pb2.GetWalletResponse:
        claims = await self._caller(context)
        response = await self.lobby.GetWallet(
            lobby_pb2.GetWalletRequest(player_id=claims.player_id), timeout=self._timeout(context)
        )
        w = response.wallet
        return gateway_pb2.GetWalletResponse(
            wallet=gateway_pb2.Wallet(balance=w.balance, on_tables=w.on_tables, reserved=w.reserved)
        )

    async def ListLedger(
        self, request: gateway_pb2.ListLedgerRequest, context: Context
    ) -> gateway_pb2.ListLedgerResponse:
        claims = await self._caller(context)
        response = await self.lobby.ListLedger(
            lobby_pb2.ListLedgerRequest(
                player_id=claims.player_id,
                page_size=request.page_size,
                page_token=request.page_token,
            ),
            timeout=self._timeout(context),
        )
        return gateway_pb2.ListLedgerResponse(
            entries=[
                gateway_pb2.LedgerEntry(
                    index=e.index,
                    kind=int(e.kind),  # type: ignore[arg-type]  # the same numbers
                    amount=e.amount,
                    balance_after=e.balance_after,
                    table_id=e.table_id,
                    at=e.at,
                )
                for e in response.entries
            ],
            next_page_token=response.next_page_token,
        )

    # ---- tables -----------------------------------------------------------------------------

    async def ListTables(
        self, request: gateway_pb2.ListTablesRequest, context: Context
    ) -> gateway_pb2.ListTablesResponse:
        await self._open(context)
        response = await self.lobby.ListTables(
            lobby_pb2.ListTablesRequest(
                variant=request.variant,
                betting_structure=request.betting_structure,
                include_closed=request.include_closed,
                page_size=request.page_size,
                page_token=request.page_token,
            ),
            timeout=self._timeout(context),
        )
        return gateway_pb2.ListTablesResponse(
            tables=response.tables, next_page_token=response.next_page_token
        )

    async def CreateTable(
        self, request: gateway_pb2.CreateTableRequest, context: Context
    ) -> gateway_pb2.CreateTableResponse:
        claims = await self._caller(context)
        if request.bots:
            raise NotImplementedYet("GatewayService.CreateTable with bots", BOTS_LATER)
        response = await self.lobby.CreateTable(
            lobby_pb2.CreateTableRequest(
                name=request.name, config=request.config, created_by_player_id=claims.player_id
            ),
            timeout=self._timeout(context),
        )
        return gateway_pb2.CreateTableResponse(table=response.table)

    async def JoinTable(
        self, request: gateway_pb2.JoinTableRequest, context: Context
    ) -> gateway_pb2.JoinTableResponse:
        claims = await self._caller(context)
        join = lobby_pb2.JoinTableRequest(
            player_id=claims.player_id,
            table_id=request.table_id,
            buy_in=request.buy_in,
            wait_for_big_blind=request.wait_for_big_blind,
            idempotency_key=request.idempotency_key,
        )
        if request.HasField("seat"):
            join.seat = request.seat
        response = await self.lobby.JoinTable(join, timeout=self._timeout(context))
        return gateway_pb2.JoinTableResponse(
            seat=response.seat, stack=response.stack, sequence=response.sequence
        )

    async def LeaveTable(
        self, request: gateway_pb2.LeaveTableRequest, context: Context
    ) -> gateway_pb2.LeaveTableResponse:
        claims = await self._caller(context)
        response = await self.lobby.LeaveTable(
            lobby_pb2.LeaveTableRequest(
                player_id=claims.player_id,
                table_id=request.table_id,
                idempotency_key=request.idempotency_key,
            ),
            timeout=self._timeout(context),
        )
        return gateway_pb2.LeaveTableResponse(
            cash_out=response.cash_out, sequence=response.sequence, leaving=response.leaving
        )

    async def TopUp(
        self, request: gateway_pb2.TopUpRequest, context: Context
    ) -> gateway_pb2.TopUpResponse:
        claims = await self._caller(context)
        response = await self.lobby.TopUp(
            lobby_pb2.TopUpRequest(
                player_id=claims.player_id,
                table_id=request.table_id,
                amount=request.amount,
                idempotency_key=request.idempotency_key,
            ),
            timeout=self._timeout(context),
        )
        return gateway_pb2.TopUpResponse(stack=response.stack, sequence=response.sequence)

    async def _command(
        self, context: Context, table_id: str, kind: str, key: str, **command: Any
    ) -> table_pb2.SubmitCommandResponse:
        claims = await self._caller(context)
        field, message = next(iter(command.items()))
        message.player_id = claims.player_id
        request = table_pb2.SubmitCommandRequest(
            table_id=table_id, idempotency_key=scoped_key(kind, claims.player_id, key)
        )
        getattr(request, field).CopyFrom(message)
        return await self._seat_call(
            self.table.SubmitCommand(request, timeout=self._timeout(context), metadata=_meta())
        )

    async def SitOut(
        self, request: gateway_pb2.SitOutRequest, context: Context
    ) -> gateway_pb2.SitOutResponse:
        done = await self._command(
            context, request.table_id, "out", request.idempotency_key, sit_out=table_pb2.SitOut()
        )
        return gateway_pb2.SitOutResponse(sequence=done.sequence)

    async def SitIn(
        self, request: gateway_pb2.SitInRequest, context: Context
    ) -> gateway_pb2.SitInResponse:
        done = await self._command(
            context, request.table_id, "in", request.idempotency_key, sit_in=table_pb2.SitIn()
        )
        return gateway_pb2.SitInResponse(sequence=done.sequence)

    async def UpdateSeatSettings(
        self, request: gateway_pb2.UpdateSeatSettingsRequest, context: Context
    ) -> gateway_pb2.UpdateSeatSettingsResponse:
        done = await self._command(
            context,
            request.table_id,
            "set",
            request.idempotency_key,
            set_auto_muck=table_pb2.SetAutoMuck(auto_muck=request.auto_muck),
        )
        return gateway_pb2.UpdateSeatSettingsResponse(sequence=done.sequence)

    async def _show_or_muck(
        self, context: Context, table_id: str, hand_id: str, key: str, show: bool
    ) -> tuple[int, common_pb2.PlayerView]:
        claims = await self._caller(context)
        request = table_pb2.SubmitCommandRequest(
            table_id=table_id,
            idempotency_key=scoped_key("show" if show else "muck", claims.player_id, key),
            show_or_muck=table_pb2.ShowOrMuck(
                player_id=claims.player_id, show=show, hand_id=hand_id
            ),
        )
        timeout = self._timeout(context)
        done = await self._seat_call(
            self.table.SubmitCommand(request, timeout=timeout, metadata=_meta())
        )
        view = await self.table.GetPlayerView(
            table_pb2.GetPlayerViewRequest(table_id=table_id, player_id=claims.player_id),
            timeout=timeout,
            metadata=_meta(),
        )
        return done.sequence, view.view

    async def Show(
        self, request: gateway_pb2.ShowRequest, context: Context
    ) -> gateway_pb2.ShowResponse:
        sequence, view = await self._show_or_muck(
            context, request.table_id, request.hand_id, request.idempotency_key, True
        )
        return gateway_pb2.ShowResponse(sequence=sequence, view=view)

    async def Muck(
        self, request: gateway_pb2.MuckRequest, context: Context
    ) -> gateway_pb2.MuckResponse:
        sequence, view = await self._show_or_muck(
            context, request.table_id, request.hand_id, request.idempotency_key, False
        )
        return gateway_pb2.MuckResponse(sequence=sequence, view=view)

    async def Act(
        self, request: gateway_pb2.ActRequest, context: Context
    ) -> gateway_pb2.ActResponse:
        claims = await self._caller(context)
        response = await self._seat_call(
            self.table.SubmitAction(
                table_pb2.SubmitActionRequest(
                    table_id=request.table_id,
                    hand_id=request.hand_id,
                    player_id=claims.player_id,
                    action=request.action,
                    amount=request.amount,
                    idempotency_key=scoped_key("act", claims.player_id, request.idempotency_key),
                ),
                timeout=self._timeout(context),
                metadata=_meta(),
            )
        )
        return gateway_pb2.ActResponse(sequence=response.sequence, view=response.view)

    # ---- watching ---------------------------------------------------------------------------

    async def _view(self, table_id: str, player_id: str, timeout: float) -> common_pb2.PlayerView:
        """``player_id``'s view of the table (NOT_FOUND for a table that was never opened)."""
        response = await self.table.GetPlayerView(
            table_pb2.GetPlayerViewRequest(table_id=table_id, player_id=player_id),
            timeout=timeout,
            metadata=_meta(),
        )
        if not response.view.HasField("config"):
            raise NotFound(TABLE_NOT_FOUND, "no such table")
        return response.view

    async def WatchTable(
        self, request: gateway_pb2.WatchTableRequest, context: Context
    ) -> AsyncIterator[gateway_pb2.TableUpdate]:
        claims = await self._caller(context)
        if self.feeds is None:
            raise NotImplementedYet("GatewayService.WatchTable", "this gateway has no NATS")
        who = claims.player_id
        if self.watches[who] >= self.config.watches_per_player:
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"at most {self.config.watches_per_player} WatchTable streams per player",
                trailing_metadata=((ERROR_CODE_HEADER, TOO_MANY_WATCHES),),
            )
        table_id = request.table_id
        timeout = self.rpc_timeout
        first = await self._view(table_id, who, timeout)  # NOT_FOUND for an unknown table
        self.watches[who] += 1
        listener = await self.feeds.listen(table_id, self.config.watch_buffer)
        try:
            async for update in self._follow(table_id, who, request.from_sequence, first, listener):
                yield update
        finally:
            await self.feeds.leave(table_id, listener)
            self.watches[who] -= 1
            if self.watches[who] <= 0:
                del self.watches[who]

    async def _follow(
        self,
        table_id: str,
        who: str,
        from_sequence: int,
        first: common_pb2.PlayerView,
        listener: Listener,
    ) -> AsyncIterator[gateway_pb2.TableUpdate]:
        assert self.feeds is not None
        limit = self.config.watch_buffer
        last = from_sequence
        backlog: list[Projected] = []
        if from_sequence:
            backlog = await self.feeds.read(table_id, from_sequence, limit + 1)
            resumable = len(backlog) <= limit and (
                (not backlog and first.sequence == from_sequence)  # nothing missed
                or (bool(backlog) and backlog[0].previous == from_sequence)
            )  # else: aged out, too many, or not a sequence of this table: a snapshot
            if not resumable:
                backlog = []
                last = 0
        if not last:
            snapshot = await self._view(table_id, who, self.rpc_timeout)
            last = snapshot.sequence
            yield gateway_pb2.TableUpdate(
                table_id=table_id, sequence=last, snapshot=snapshot, view=snapshot
            )
        for index, commit in enumerate(backlog):
            tail = index == len(backlog) - 1 and listener.idle_after(commit.sequence)
            yield await self._update(table_id, who, commit, tail)
            last = commit.sequence
        while True:
            live = await listener.next()
            if live is None:
                raise_behind(last)
            assert live is not None
            commit = live
            if commit.sequence <= last:
                continue  # already sent (read from the store, or delivered twice)
            if commit.previous != last:  # missed live messages: fill from the store
                missing = await self.feeds.read(table_id, last, limit + 1)
                if len(missing) > limit or not missing or missing[0].previous != last:
                    raise_behind(last)
                for fill in missing:
                    if fill.sequence > commit.sequence:
                        break
                    tail = fill.sequence == commit.sequence and listener.idle_after(fill.sequence)
                    yield await self._update(table_id, who, fill, tail)
                    last = fill.sequence
                continue
            yield await self._update(table_id, who, commit, listener.idle_after(commit.sequence))
            last = commit.sequence

    async def _update(
        self, table_id: str, who: str, commit: Projected, with_view: bool
    ) -> gateway_pb2.TableUpdate:
        envelope = events_pb2.Commit.FromString(commit.data)
        update = gateway_pb2.TableUpdate(
            table_id=table_id,
            sequence=commit.sequence,
            previous=commit.previous,
            commit=gateway_pb2.ProjectedCommit(
                recorded_at=envelope.recorded_at,
                recorded=envelope.recorded,
                command_type=envelope.command_type,
            ),
        )
        if with_view:
            update.view.CopyFrom(await self._view(table_id, who, self.rpc_timeout))
        return update

    # ---- hand history -----------------------------------------------------------------------

    async def GetHandHistory(
        self, request: gateway_pb2.GetHandHistoryRequest, context: Context
    ) -> gateway_pb2.GetHandHistoryResponse:
        claims = await self._caller(context)
        if self.tables is None:
            raise NotImplementedYet("GatewayService.GetHandHistory", "this gateway has no NATS")
        before = 0
        if request.page_token:
            try:
                before = int(request.page_token)
            except ValueError:
                raise InvalidArgument(INVALID_PAGE_TOKEN, "page_token is not valid") from None
        # the table must exist (NOT_FOUND otherwise), as for every other call about a table
        await self._view(request.table_id, claims.player_id, self._timeout(context))
        commits = await self.tables.read(request.table_id)
        events = []
        for commit in commits[-MAX_HISTORY_COMMITS:]:
            envelope, decoded = decode_commit(commit.data)
            events.append((commit.sequence, recorded_seconds(envelope), decoded))
        hands = hands_of_player(events, claims.player_id)
        if request.hand_id:
            hands = [h for h in hands if h.hand_id == request.hand_id]
        if before:
            hands = [h for h in hands if h.hand_number < before]
        limit = min(request.limit or 10, MAX_HANDS)
        page = hands[-limit:][::-1]  # newest first
        more = len(hands) > limit
        return gateway_pb2.GetHandHistoryResponse(
            hands=[_record(request.table_id, h) for h in page],
            next_page_token=str(page[-1].hand_number) if more and page else "",
        )


def recorded_seconds(commit: events_pb2.Commit) -> float:
    return commit.recorded_at.seconds + commit.recorded_at.nanos / 1e9


def _record(table_id: str, hand: HandHistory) -> gateway_pb2.HandRecord:
    return gateway_pb2.HandRecord(
        table_id=table_id,
        hand_id=hand.hand_id,
        hand_number=hand.hand_number,
        started_at=_timestamp(hand.started_at),
        ended_at=_timestamp(hand.ended_at),
        phh=hand.phh,
        pokerstars=hand.pokerstars,
    )


def raise_behind(last: int) -> None:
    """End a stream that fell behind (ABORTED): the client resumes where it was."""
    raise Conflict(
        FELL_BEHIND, f"this stream fell behind the table: resume with from_sequence={last}"
    )


def _fast_channel(platform: PlatformConfig) -> grpc.aio.Channel:
    """The channel to the table, on every Act's path: the shared retry settings, but no client
    interceptor (grpc.aio's Python interceptors cost more than the rest of the hop); the gateway
    passes each call's deadline and request id itself (``_meta``)."""
    config = service_config(platform.rpc_max_attempts)
    return grpc.aio.insecure_channel(
        platform.peer("table"),
        options=[("grpc.enable_retries", 1), ("grpc.service_config", config)],
    )


def _meta() -> tuple[tuple[str, str], ...]:
    """The request id of the call being served, for the table's logs."""
    request_id = current_request_id()
    return ((REQUEST_ID_HEADER, request_id),) if request_id else ()


async def build(config: GatewayConfig) -> Mount:
    lobby_channel = connect_peer(config.platform, "lobby")
    table_channel = _fast_channel(config.platform)
    nc = await connect_nats(config.platform.nats_url, name="gateway")
    revoked: RevokedTokens | None = None
    try:
        kv = await nc.jetstream().key_value(REVOKED_BUCKET)
        revoked = RevokedTokens(kv)
        await revoked.start()
    except Exception as exc:  # no bucket yet: the lobby creates it at its first logout
        log.warning("revocations_not_watched", error=str(exc))
        revoked = None
    if config.token_keys is None:
        log.warning("HOLDEM_TOKEN_KEYS is not set: no token verifies at this gateway")
    auth = Authenticator(config.token_keys, revoked)
    feeds = TableFeeds(nc, JetStreamProjection(nc))
    tables = JetStreamEventStore(nc, stream=config.table_stream)
    servicer = GatewayServicer(
        config,
        lobby_pb2_grpc.LobbyServiceStub(lobby_channel),
        table_pb2_grpc.TableServiceStub(table_channel),
        auth,
        feeds,
        tables,
    )

    async def close() -> None:
        if revoked is not None:
            await revoked.stop()
        with contextlib.suppress(Exception):
            await nc.drain()
        await lobby_channel.close()
        await table_channel.close()

    return Mount(
        endpoints=[
            Endpoint(
                SERVICE_NAME,
                lambda s: gateway_pb2_grpc.add_GatewayServiceServicer_to_server(servicer, s),
            )
        ],
        cleanups=[close],
    )

