"""What every part of the gateway's servicer shares (``GatewayBase``): its configuration and
backends (the lobby, the table, the tables' public feeds, the tournament service), who is calling
and how often (``admission``), the seats' display names (``names``), and how a call to the table is
made: the gateway's service token and the request id by hand (the table channel has no interceptor),
the client's deadline, and a player's view of a table.

The RPCs are in the parts built on it: lobby_calls.py (accounts, wallets, the catalogue, seats),
commands.py (actions and seat commands), watching.py (WatchTable), histories.py (hand histories and
decks), tournaments.py (the tournament service's calls for players); server.py puts them together as
the one GatewayService."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable

import grpc
import structlog
from holdem.common.v1 import common_pb2
from holdem.lobby.v1 import lobby_pb2_grpc
from holdem.table.v1 import table_pb2, table_pb2_grpc
from holdem.tournament.v1 import tournament_pb2_grpc

from libs.errors import NotFound
from libs.platform.clients import call_timeout
from libs.platform.identity import SERVICE_TOKEN_HEADER, ServiceSigner
from libs.platform.limits import CallerLimiter
from libs.platform.logging import REQUEST_ID_HEADER, current_request_id
from libs.platform.ratelimit import RateLimiter
from libs.platform.server import Context
from libs.table.errors import TABLE_NOT_FOUND
from services.gateway.admission import Admission
from services.gateway.auth import Authenticator
from services.gateway.config import GatewayConfig
from services.gateway.names import DisplayNames
from services.gateway.presence import Presence
from services.gateway.revocations import RevocationCheck
from services.gateway.watch import TableFeeds

log = structlog.get_logger("gateway")


class GatewayBase:
    def __init__(
        self,
        config: GatewayConfig,
        lobby: lobby_pb2_grpc.LobbyServiceAsyncStub,
        table: table_pb2_grpc.TableServiceAsyncStub,
        auth: Authenticator,
        feeds: TableFeeds | None,
        clock: Callable[[], float] = time.monotonic,
        revocations: RevocationCheck | None = None,
        tournaments: tournament_pb2_grpc.TournamentServiceAsyncStub | None = None,
    ) -> None:
        self.config = config
        self.lobby = lobby
        self.table = table
        self.feeds = feeds  # None: no NATS, nothing to watch
        self.tournaments = tournaments  # None: no tournament service (UNAVAILABLE)
        self.clock = clock
        self.rpc_timeout = config.platform.rpc_timeout_seconds
        limiter = RateLimiter(config.rate_per_second, config.rate_burst)
        self.admission = Admission(auth, revocations, limiter, clock)
        self.names = DisplayNames(lobby, self.rpc_timeout, clock)
        self.watches = CallerLimiter(config.watches_per_player)  # open streams per player
        self.histories = CallerLimiter(config.histories_per_player)  # calls in flight
        # The table channel has no interceptor (server.py's fast_channel): calls carry this.
        self.signer = ServiceSigner(config.platform.service_key, "gateway")
        # who is connected here, told to the tables (disconnect protection: presence.py)
        self.presence = Presence(self._mark_connection, config.disconnect_grace_seconds, clock)

    async def _mark_connection(self, player_id: str, table_id: str, connected: bool) -> None:
        """Tell ``table_id`` whether ``player_id`` is connected (best effort: never raises)."""
        request = table_pb2.SubmitCommandRequest(
            table_id=table_id,
            idempotency_key=f"gw-conn-{uuid.uuid4().hex}",
            mark_connection=table_pb2.MarkConnection(player_id=player_id, connected=connected),
        )
        try:
            await self.table.SubmitCommand(request, timeout=self.rpc_timeout, metadata=self._meta())
        except grpc.aio.AioRpcError as exc:  # not seated (a spectator), closed, unreachable
            log.debug("connection_not_marked", table_id=table_id, error=exc.code().name)

    def _meta(self) -> tuple[tuple[str, str], ...]:
        """The gateway's service token, and the request id of the call being served (for the
        table's logs)."""
        token = ((SERVICE_TOKEN_HEADER, self.signer.token()),)
        request_id = current_request_id()
        return (*token, (REQUEST_ID_HEADER, request_id)) if request_id else token

    def _timeout(self, context: Context) -> float:
        return call_timeout(context, self.rpc_timeout)

    async def _view(self, table_id: str, player_id: str, timeout: float) -> common_pb2.PlayerView:
        """``player_id``'s view of the table, its seats named (NOT_FOUND for a table that was
        never opened)."""
        response = await self.table.GetPlayerView(
            table_pb2.GetPlayerViewRequest(table_id=table_id, player_id=player_id),
            timeout=timeout,
            metadata=self._meta(),
        )
        if not response.view.HasField("config"):
            raise NotFound(TABLE_NOT_FOUND, "no such table")
        await self.names.name_seats(response.view)
        return response.view
