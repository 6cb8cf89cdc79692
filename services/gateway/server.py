"""Gateway gRPC servicer: the public holdem.gateway.v1 API. Every call but Register, Login,
GuestLogin and ListTables carries a bearer token, verified here (``auth``); the player it names
is the only player the call acts for. Seating, leaving, top-ups, wallets and accounts go to the
lobby (contract-13 §3); actions, sitting out/in and showdown choices to the table (one table
call each); WatchTable follows the table's public projection (``watch``); hand histories are
asked of the table (``GetHandHistory``: it reads its own stream and projects it for the caller;
the gateway cannot read that stream).

Statuses, limits and the resume rules of WatchTable: docs/gateway.md."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import grpc
import structlog
from google.protobuf.message import Message
from holdem.common.v1 import common_pb2
from holdem.events.v1 import events_pb2
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from holdem.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from holdem.table.v1 import table_pb2, table_pb2_grpc

from libs.auth import TokenClaims
from libs.errors import (
    Conflict,
    InvalidArgument,
    NotFound,
    NotImplementedYet,
    PermissionDenied,
    ResourceExhausted,
    Unauthenticated,
)
from libs.eventstore.projection import JetStreamProjection, Projected
from libs.platform.callers import CLIENT_ADDRESS_HEADER, caller_of
from libs.platform.clients import aio_channel, call_timeout, connect_peer, service_config
from libs.platform.config import PlatformConfig
from libs.platform.identity import SERVICE_TOKEN_HEADER, ServiceSigner
from libs.platform.limits import TOO_MANY_CALLS, CallerLimiter
from libs.platform.logging import REQUEST_ID_HEADER, current_request_id
from libs.platform.natsconn import close_nats, connect_nats, nats_readiness
from libs.platform.ratelimit import RateLimiter
from libs.platform.server import ERROR_CODE_HEADER, Context, Endpoint, Mount
from libs.platform.unavailable import unavailable_on_failure
from libs.table.events import TableClosed
from services.gateway.auth import REVOKED_TOKEN, Authenticator, bearer_token
from services.gateway.config import GatewayConfig
from services.gateway.echo import echoes_clipped
from services.gateway.revocations import RevocationCheck
from services.gateway.watch import Listener, TableFeeds

log = structlog.get_logger("gateway")

GATEWAY_SERVICE = gateway_pb2.DESCRIPTOR.services_by_name["GatewayService"]
SERVICE_NAME = GATEWAY_SERVICE.full_name
#: What a call answers (UNAVAILABLE) when NATS fails under it: a watch's reads, revocations.
NATS_DOWN = "NATS is not answering: retry"

RATE_LIMITED = "RATE_LIMITED"
TOO_MANY_WATCHES = "TOO_MANY_WATCHES"
FELL_BEHIND = "FELL_BEHIND"
NOT_YOUR_SEAT = "NOT_YOUR_SEAT"
INVALID_PAGE_TOKEN = "INVALID_PAGE_TOKEN"
TABLE_NOT_FOUND = "TABLE_NOT_FOUND"
#: A closed table (its view's status), and the event type of the commit that closed it.
CLOSED = common_pb2.TABLE_STATUS_CLOSED
TABLE_CLOSED = TableClosed.__name__
#: Table codes that, for a call about the caller's own seat, mean "you have no seat here".
_NOT_SEATED_CODES = frozenset({"NOT_SEATED"})
#: Display names kept (then forgotten all at once and asked again).
MAX_NAMES = 100_000
#: How long a view waits for the lobby to name a player, and when to ask again after a failure.
NAME_TIMEOUT_SECONDS = 1.0
NAME_RETRY_SECONDS = 10.0

T = TypeVar("T")
M = TypeVar("M", bound=Message)


def copy_fields(source: Message, target: M) -> M:
    """``source``'s set fields into ``target``'s fields of the same names (nested messages and
    lists of them recursively, enums by number); fields ``target`` lacks are left out. How the
    gateway turns its requests into the lobby's and the lobby's answers into its own."""
    fields = target.DESCRIPTOR.fields_by_name
    for field, value in source.ListFields():
        into = fields.get(field.name)
        if into is None:
            continue
        slot = getattr(target, field.name)
        if into.message_type is None:
            if field.is_repeated:
                slot.extend(value)
            else:
                setattr(target, field.name, value)
        elif into.message_type is field.message_type:  # the same type: a plain copy
            if field.is_repeated:
                slot.extend(value)
            else:
                slot.CopyFrom(value)
        elif field.is_repeated:
            for item in value:
                copy_fields(item, slot.add())
        else:
            slot.SetInParent()
            copy_fields(value, slot)
    return target


def scoped_key(kind: str, player_id: str, key: str) -> str:
    """The table's idempotency key for a client's key: per player and per kind of call (two
    players' keys never meet; a key fits the table's KEY rule whatever the client sent)."""
    if not key:
        key = uuid.uuid4().hex
    digest = hashlib.sha256(f"{player_id}\x00{key}".encode()).hexdigest()[:40]
    return f"gw-{kind}-{digest}"


def _error_code(exc: grpc.aio.AioRpcError) -> str:
    for key, value in exc.trailing_metadata() or ():
        if key == ERROR_CODE_HEADER and isinstance(value, str):
            return value
    return ""


@echoes_clipped(GATEWAY_SERVICE.methods_by_name)
@unavailable_on_failure(GATEWAY_SERVICE.methods_by_name, NATS_DOWN)
class GatewayServicer(gateway_pb2_grpc.GatewayServiceServicer):
    def __init__(
        self,
        config: GatewayConfig,
        lobby: lobby_pb2_grpc.LobbyServiceAsyncStub,
        table: table_pb2_grpc.TableServiceAsyncStub,
        auth: Authenticator,
        feeds: TableFeeds | None,
        clock: Callable[[], float] = time.monotonic,
        revocations: RevocationCheck | None = None,
    ) -> None:
        self.config = config
        self.lobby = lobby
        self.table = table
        self.auth = auth
        self.revocations = revocations  # None: no NATS, nothing can be revoked
        self.feeds = feeds
        self.clock = clock
        self.rpc_timeout = config.platform.rpc_timeout_seconds
        self.limiter = RateLimiter(config.rate_per_second, config.rate_burst)
        self.watches = CallerLimiter(config.watches_per_player)  # open streams per player
        self.histories = CallerLimiter(config.histories_per_player)  # calls in flight
        self.logged_out: dict[str, float] = {}  # jti -> expiry, until the revocation watch has it
        self.names: dict[str, str] = {}  # player id -> display name (from the lobby; fixed)
        self.name_retry: dict[str, float] = {}  # player id -> when to ask the lobby again
        # The table channel has no interceptor (see _fast_channel): calls carry this by hand.
        self.signer = ServiceSigner(config.platform.service_key, "gateway")

    def _meta(self) -> tuple[tuple[str, str], ...]:
        """The gateway's service token, and the request id of the call being served (for the
        table's logs)."""
        token = ((SERVICE_TOKEN_HEADER, self.signer.token()),)
        request_id = current_request_id()
        return (*token, (REQUEST_ID_HEADER, request_id)) if request_id else token

    @staticmethod
    def _for_client(context: Context) -> tuple[tuple[str, str], ...]:
        """Tells the lobby whose login this is (it limits failed logins per client address and
        believes this header only from the authenticated gateway)."""
        return ((CLIENT_ADDRESS_HEADER, caller_of(context).address),)

    # ---- who, and how often ---------------------------------------------------------------

    def _timeout(self, context: Context) -> float:
        return call_timeout(context, self.rpc_timeout)

    async def _admit(self, context: Context, who: str) -> None:
        wait = self.limiter.take(who, self.clock())
        if wait > 0:
            retry_ms = max(1, int(wait * 1000) + 1)
            raise ResourceExhausted(
                RATE_LIMITED, f"too many calls: retry in {retry_ms} ms", retry_after_ms=retry_ms
            )

    async def _open(self, context: Context) -> None:
        """An open call (no token): limited per peer."""
        await self._admit(context, "peer:" + caller_of(context).address)

    async def _caller(self, context: Context) -> TokenClaims:
        """The caller's verified token (limited per player)."""
        peer = "peer:" + caller_of(context).address
        try:
            claims = self.auth.claims(context.invocation_metadata())
            if self.revocations is not None and await self.revocations.revoked(claims):
                raise Unauthenticated(
                    REVOKED_TOKEN, "the token was revoked (logged out): log in again"
                )
        except Unauthenticated:
            await self._admit(context, peer)  # bad tokens count against the peer
            raise
        expiry = self.logged_out.get(claims.jti)
        if expiry is not None:
            if expiry > time.time():
                raise Unauthenticated(
                    REVOKED_TOKEN, "the token was revoked (logged out): log in again"
                )
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

    # ---- calls the lobby answers -------------------------------------------------------------

    async def _forward(
        self,
        context: Context,
        call: Callable[..., Awaitable[Message]],
        request: Message,
        lobby_request: type[Message],
        response: type[M],
        *,
        player_field: str | None = "player_id",
        calls: int = 1,
    ) -> M:
        """One lobby call for a client call: ``request``'s fields to the lobby request's fields of
        the same names, the caller's player id in ``player_field`` (None: an open call, limited
        per peer), and the lobby's answer back field by field (``copy_fields``). Gateway requests
        carry no player id, so a client acts only for itself. ``calls``: how many downstream
        calls' time the lobby may take (within the client's own deadline)."""
        forwarded = copy_fields(request, lobby_request())
        if player_field is None:
            await self._open(context)
        else:
            claims = await self._caller(context)
            setattr(forwarded, player_field, claims.player_id)
        timeout = call_timeout(context, self.rpc_timeout * calls)
        answer = await call(forwarded, timeout=timeout, metadata=self._for_client(context))
        return copy_fields(answer, response())

    async def Register(
        self, request: gateway_pb2.RegisterRequest, context: Context
    ) -> gateway_pb2.RegisterResponse:
        return await self._forward(
            context,
            self.lobby.RegisterPlayer,
            request,
            lobby_pb2.RegisterPlayerRequest,
            gateway_pb2.RegisterResponse,
            player_field=None,
        )

    async def Login(
        self, request: gateway_pb2.LoginRequest, context: Context
    ) -> gateway_pb2.LoginResponse:
        return await self._forward(
            context,
            self.lobby.Login,
            request,
            lobby_pb2.LoginRequest,
            gateway_pb2.LoginResponse,
            player_field=None,
        )

    async def GuestLogin(
        self, request: gateway_pb2.GuestLoginRequest, context: Context
    ) -> gateway_pb2.LoginResponse:
        return await self._forward(
            context,
            self.lobby.GuestLogin,
            request,
            lobby_pb2.GuestLoginRequest,
            gateway_pb2.LoginResponse,
            player_field=None,
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

    async def GetWallet(
        self, request: gateway_pb2.GetWalletRequest, context: Context
    ) -> gateway_pb2.GetWalletResponse:
        return await self._forward(
            context,
            self.lobby.GetWallet,
            request,
            lobby_pb2.GetWalletRequest,
            gateway_pb2.GetWalletResponse,
        )

    async def ListLedger(
        self, request: gateway_pb2.ListLedgerRequest, context: Context
    ) -> gateway_pb2.ListLedgerResponse:
        return await self._forward(
            context,
            self.lobby.ListLedger,
            request,
            lobby_pb2.ListLedgerRequest,
            gateway_pb2.ListLedgerResponse,
        )

    async def ListTables(
        self, request: gateway_pb2.ListTablesRequest, context: Context
    ) -> gateway_pb2.ListTablesResponse:
        return await self._forward(
            context,
            self.lobby.ListTables,
            request,
            lobby_pb2.ListTablesRequest,
            gateway_pb2.ListTablesResponse,
            player_field=None,
        )

    async def CreateTable(
        self, request: gateway_pb2.CreateTableRequest, context: Context
    ) -> gateway_pb2.CreateTableResponse:
        return await self._forward(
            context,
            self.lobby.CreateTable,
            request,
            lobby_pb2.CreateTableRequest,
            gateway_pb2.CreateTableResponse,
            player_field="created_by_player_id",
            calls=1 + len(request.bots),  # each AI is bought in by a saga of its own
        )

    async def CloseTable(
        self, request: gateway_pb2.CloseTableRequest, context: Context
    ) -> gateway_pb2.CloseTableResponse:
        return await self._forward(
            context,
            self.lobby.CloseTable,
            request,
            lobby_pb2.CloseTableRequest,
            gateway_pb2.CloseTableResponse,
            player_field="requested_by_player_id",  # the lobby lets only the creator close it
        )

    async def JoinTable(
        self, request: gateway_pb2.JoinTableRequest, context: Context
    ) -> gateway_pb2.JoinTableResponse:
        return await self._forward(
            context,
            self.lobby.JoinTable,
            request,
            lobby_pb2.JoinTableRequest,
            gateway_pb2.JoinTableResponse,
        )

    async def LeaveTable(
        self, request: gateway_pb2.LeaveTableRequest, context: Context
    ) -> gateway_pb2.LeaveTableResponse:
        return await self._forward(
            context,
            self.lobby.LeaveTable,
            request,
            lobby_pb2.LeaveTableRequest,
            gateway_pb2.LeaveTableResponse,
        )

    async def TopUp(
        self, request: gateway_pb2.TopUpRequest, context: Context
    ) -> gateway_pb2.TopUpResponse:
        return await self._forward(
            context, self.lobby.TopUp, request, lobby_pb2.TopUpRequest, gateway_pb2.TopUpResponse
        )

    # ---- calls the table answers --------------------------------------------------------------

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
            self.table.SubmitCommand(request, timeout=self._timeout(context), metadata=self._meta())
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
            self.table.SubmitCommand(request, timeout=timeout, metadata=self._meta())
        )
        view = done.view
        if not view.HasField("config"):  # a table service that sends no view: ask for it
            asked = await self.table.GetPlayerView(
                table_pb2.GetPlayerViewRequest(table_id=table_id, player_id=claims.player_id),
                timeout=timeout,
                metadata=self._meta(),
            )
            view = asked.view
        await self._name_seats(view)
        return done.sequence, view

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
                metadata=self._meta(),
            )
        )
        await self._name_seats(response.view)
        return gateway_pb2.ActResponse(sequence=response.sequence, view=response.view)

    # ---- watching ---------------------------------------------------------------------------

    async def _view(self, table_id: str, player_id: str, timeout: float) -> common_pb2.PlayerView:
        """``player_id``'s view of the table (NOT_FOUND for a table that was never opened)."""
        response = await self.table.GetPlayerView(
            table_pb2.GetPlayerViewRequest(table_id=table_id, player_id=player_id),
            timeout=timeout,
            metadata=self._meta(),
        )
        if not response.view.HasField("config"):
            raise NotFound(TABLE_NOT_FOUND, "no such table")
        await self._name_seats(response.view)
        return response.view

    async def _name_seats(self, view: common_pb2.PlayerView) -> None:
        """Fill the seats' display names (the table knows players by id only): each player's name
        from the lobby, asked once per player and kept. A player the lobby does not know (seated
        at the table directly, by tools and tests) is named by their id ("AI" for a bot)."""
        now = self.clock()
        missing = {
            s.player_id
            for s in view.seats
            if s.player_id
            and s.player_id not in self.names
            and self.name_retry.get(s.player_id, 0.0) <= now
        }
        if missing:
            await asyncio.gather(*(self._learn_name(p) for p in missing))
        for seat in view.seats:
            if seat.player_id and not seat.display_name:
                seat.display_name = self.names.get(seat.player_id) or (
                    "AI" if seat.is_bot else seat.player_id
                )

    async def _learn_name(self, player_id: str) -> None:
        try:
            found = await self.lobby.GetPlayer(
                lobby_pb2.GetPlayerRequest(player_id=player_id),
                timeout=min(self.rpc_timeout, NAME_TIMEOUT_SECONDS),
            )
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.NOT_FOUND:
                # the lobby is away: the id for now, asked again in a while (views never wait
                # long for a name)
                if len(self.name_retry) >= MAX_NAMES:
                    self.name_retry.clear()
                self.name_retry[player_id] = self.clock() + NAME_RETRY_SECONDS
                return
            name = ""
        else:
            name = found.player.display_name
        if len(self.names) >= MAX_NAMES:
            self.names.clear()
        self.names[player_id] = name

    async def WatchTable(
        self, request: gateway_pb2.WatchTableRequest, context: Context
    ) -> AsyncIterator[gateway_pb2.TableUpdate]:
        claims = await self._caller(context)
        if self.feeds is None:
            raise NotImplementedYet("GatewayService.WatchTable", "this gateway has no NATS")
        who = claims.player_id
        # the slot is taken before anything is awaited: parallel calls cannot all pass the check
        if not self.watches.try_acquire(who):
            raise ResourceExhausted(
                TOO_MANY_WATCHES,
                f"at most {self.config.watches_per_player} WatchTable streams per player",
            )
        began = self.clock()
        try:  # every way out gives the slot back (a refusal, a failure, the client leaving)
            async with contextlib.aclosing(self._watch(request, who)) as updates:
                async for update in updates:
                    yield update
        finally:
            self.watches.release(who, self.clock() - began)

    async def _watch(
        self, request: gateway_pb2.WatchTableRequest, who: str
    ) -> AsyncGenerator[gateway_pb2.TableUpdate, None]:
        assert self.feeds is not None
        table_id = request.table_id
        first = await self._view(table_id, who, self.rpc_timeout)  # NOT_FOUND: unknown table
        listener = await self.feeds.listen(table_id, self.config.watch_buffer)
        sent, how = 0, "returned"
        try:
            async for update in self._follow(table_id, who, request.from_sequence, first, listener):
                yield update
                sent = update.sequence
        except BaseException as exc:  # the client left (GeneratorExit, cancelled), or a refusal
            how = type(exc).__name__
            raise
        finally:
            log.info("watch_ended", table_id=table_id, player_id=who, sequence=sent, how=how)
            await self.feeds.leave(table_id, listener)

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
        # the sequence at which the table is known to be closed (0: open): once everything up
        # to it is sent and nothing newer waits, the stream ends (nothing more will come)
        closed_at = first.sequence if first.table_status == CLOSED else 0
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
            if snapshot.table_status == CLOSED:
                closed_at = closed_at or last
            yield gateway_pb2.TableUpdate(
                table_id=table_id, sequence=last, snapshot=snapshot, view=snapshot
            )
        for index, commit in enumerate(backlog):
            tail = index == len(backlog) - 1 and listener.idle_after(commit.sequence)
            update = await self._update(table_id, who, commit, tail)
            yield update
            last = commit.sequence
            if closes_table(update):
                closed_at = closed_at or last
        while True:
            if closed_at and last >= closed_at and listener.idle_after(last):
                if listener.behind:  # a commit after the close was dropped: resume for it
                    raise_behind(last)
                return  # the table closed and the client has all of it: the stream ends (OK)
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
                    update = await self._update(table_id, who, fill, tail)
                    yield update
                    last = fill.sequence
                    if closes_table(update):
                        closed_at = closed_at or last
                continue
            update = await self._update(table_id, who, commit, listener.idle_after(commit.sequence))
            yield update
            last = commit.sequence
            if closes_table(update):
                closed_at = closed_at or last

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
        before = page_token_number(request.page_token)
        who = claims.player_id
        async with self._stream_read(who, context):
            return await self._history(request, who, before, context)

    @contextlib.asynccontextmanager
    async def _stream_read(self, who: str, context: Context) -> AsyncIterator[None]:
        """One of ``who``'s slots for calls the table answers by reading a table's stream
        (GetHandHistory, GetDecks): RESOURCE_EXHAUSTED with a retry hint when none is free."""
        if not self.histories.try_acquire(who):
            retry_ms = self.histories.retry_after_ms()
            raise ResourceExhausted(
                TOO_MANY_CALLS,
                f"at most {self.histories.limit} GetHandHistory or GetDecks calls in flight per "
                f"player: retry in {retry_ms} ms",
                retry_after_ms=retry_ms,
            )
        began = self.clock()
        try:
            yield
        finally:
            self.histories.release(who, self.clock() - began)

    # ---- decks ------------------------------------------------------------------------------

    async def GetDecks(
        self, request: gateway_pb2.GetDecksRequest, context: Context
    ) -> gateway_pb2.GetDecksResponse:
        claims = await self._caller(context)
        before = page_token_number(request.page_token)
        async with self._stream_read(claims.player_id, context):
            answer = await self.table.GetDecks(
                table_pb2.GetDecksRequest(
                    table_id=request.table_id,
                    hand_id=request.hand_id,
                    limit=request.limit,
                    before_hand_number=before,
                ),
                timeout=self._timeout(context),
                metadata=self._meta(),
            )
        decks = [copy_fields(d, gateway_pb2.Deck()) for d in answer.decks]
        return gateway_pb2.GetDecksResponse(
            decks=decks,
            next_page_token=str(decks[-1].hand_number) if answer.more and decks else "",
        )

    async def _history(
        self, request: gateway_pb2.GetHandHistoryRequest, who: str, before: int, context: Context
    ) -> gateway_pb2.GetHandHistoryResponse:
        # the table reads its own stream and projects it for this player (NOT_FOUND for a table
        # that was never opened, as for every other call about a table)
        answer = await self.table.GetHandHistory(
            table_pb2.GetHandHistoryRequest(
                table_id=request.table_id,
                player_id=who,
                hand_id=request.hand_id,
                limit=request.limit,
                before_hand_number=before,
            ),
            timeout=self._timeout(context),
            metadata=self._meta(),
        )
        hands = [
            copy_fields(h, gateway_pb2.HandRecord(table_id=request.table_id)) for h in answer.hands
        ]
        return gateway_pb2.GetHandHistoryResponse(
            hands=hands,
            next_page_token=str(hands[-1].hand_number) if answer.more and hands else "",
        )


def page_token_number(token: str) -> int:
    """The hand number a GetHandHistory page token stands for (the last hand of the page
    before; empty: 0, no bound). A token no page could have ended with is INVALID_ARGUMENT; a
    number beyond every hand number bounds nothing."""
    if not token:
        return 0
    # digits only (int() would also take "1_000", " 7" or other scripts' digits)
    if not (token.isascii() and token.isdigit()):
        raise InvalidArgument(INVALID_PAGE_TOKEN, "page_token is not valid")
    number = int(token)
    return number if number < 2**64 else 0


def closes_table(update: gateway_pb2.TableUpdate) -> bool:
    """``update`` is the commit that closed its table (nothing but a late seed reveal follows)."""
    return any(record.type == TABLE_CLOSED for record in update.commit.recorded)


def raise_behind(last: int) -> None:
    """End a stream that fell behind (ABORTED): the client resumes where it was."""
    raise Conflict(
        FELL_BEHIND, f"this stream fell behind the table: resume with from_sequence={last}"
    )


def _fast_channel(platform: PlatformConfig) -> grpc.aio.Channel:
    """The channel to the table, on every Act's path: the shared retry settings, but no client
    interceptor (grpc.aio's Python interceptors cost more than the rest of the hop); the gateway
    passes each call's deadline, request id and service token itself (``_meta``)."""
    config = service_config(platform.rpc_max_attempts)
    return aio_channel(
        platform.peer("table"),
        platform.tls,
        "table",
        options=[("grpc.enable_retries", 1), ("grpc.service_config", config)],
    )


async def build(config: GatewayConfig) -> Mount:
    lobby_channel = connect_peer(config.platform, "lobby")
    table_channel = _fast_channel(config.platform)
    nc = await connect_nats(config.platform.nats_url, config.platform.tls, name="gateway")
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
    )

    async def close() -> None:
        await revocations.stop()
        await close_nats(nc)
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
        # revocations and the tables' public streams come from NATS
        readiness=lambda: nats_readiness(nc),
    )
