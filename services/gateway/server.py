"""Gateway gRPC servicer: the public holdem.gateway.v1 API, translated to the lobby (and later the
table) service's internal API."""

from __future__ import annotations

from collections.abc import AsyncIterator

from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from holdem.lobby.v1 import lobby_pb2, lobby_pb2_grpc

from libs.platform.clients import call_timeout, connect_peer
from libs.platform.errors import NotImplementedYet
from libs.platform.server import Context, Endpoint, Mount
from services.gateway.app import Gateway
from services.gateway.config import GatewayConfig

SERVICE_NAME = gateway_pb2.DESCRIPTOR.services_by_name["GatewayService"].full_name
TABLE_ISSUE = "it needs the table service (a later issue)"


def _player(player: lobby_pb2.Player) -> gateway_pb2.Player:
    return gateway_pb2.Player(
        player_id=player.player_id, username=player.username, display_name=player.display_name
    )


class GatewayServicer(gateway_pb2_grpc.GatewayServiceServicer):
    def __init__(self, gateway: Gateway, rpc_timeout_seconds: float) -> None:
        self.gateway = gateway
        self.rpc_timeout = rpc_timeout_seconds

    def _timeout(self, context: Context) -> float:
        return call_timeout(context, self.rpc_timeout)

    async def _authenticate(self, context: Context) -> lobby_pb2.Player:
        return await self.gateway.authenticate(
            context.invocation_metadata(), self._timeout(context)
        )

    async def Register(
        self, request: gateway_pb2.RegisterRequest, context: Context
    ) -> gateway_pb2.RegisterResponse:
        player = await self.gateway.register(
            request.username, request.password, request.display_name, self._timeout(context)
        )
        return gateway_pb2.RegisterResponse(player=_player(player))

    async def Login(
        self, request: gateway_pb2.LoginRequest, context: Context
    ) -> gateway_pb2.LoginResponse:
        response = await self.gateway.login(
            request.username, request.password, self._timeout(context)
        )
        return gateway_pb2.LoginResponse(
            token=response.token, expires_at=response.expires_at, player=_player(response.player)
        )

    async def ListTables(
        self, request: gateway_pb2.ListTablesRequest, context: Context
    ) -> gateway_pb2.ListTablesResponse:
        response = await self.gateway.list_tables(
            lobby_pb2.ListTablesRequest(
                variant=request.variant,
                betting_structure=request.betting_structure,
                include_closed=request.include_closed,
                page_size=request.page_size,
                page_token=request.page_token,
            ),
            self._timeout(context),
        )
        return gateway_pb2.ListTablesResponse(
            tables=response.tables, next_page_token=response.next_page_token
        )

    async def CreateTable(
        self, request: gateway_pb2.CreateTableRequest, context: Context
    ) -> gateway_pb2.CreateTableResponse:
        player = await self._authenticate(context)
        if request.bots:
            raise NotImplementedYet("GatewayService.CreateTable with bots", TABLE_ISSUE)
        response = await self.gateway.create_table(
            lobby_pb2.CreateTableRequest(
                name=request.name, config=request.config, created_by_player_id=player.player_id
            ),
            self._timeout(context),
        )
        return gateway_pb2.CreateTableResponse(table=response.table)

    async def JoinTable(
        self, request: gateway_pb2.JoinTableRequest, context: Context
    ) -> gateway_pb2.JoinTableResponse:
        await self._authenticate(context)
        raise NotImplementedYet("GatewayService.JoinTable", TABLE_ISSUE)

    async def LeaveTable(
        self, request: gateway_pb2.LeaveTableRequest, context: Context
    ) -> gateway_pb2.LeaveTableResponse:
        await self._authenticate(context)
        raise NotImplementedYet("GatewayService.LeaveTable", TABLE_ISSUE)

    async def SitOut(
        self, request: gateway_pb2.SitOutRequest, context: Context
    ) -> gateway_pb2.SitOutResponse:
        await self._authenticate(context)
        raise NotImplementedYet("GatewayService.SitOut", TABLE_ISSUE)

    async def SitIn(
        self, request: gateway_pb2.SitInRequest, context: Context
    ) -> gateway_pb2.SitInResponse:
        await self._authenticate(context)
        raise NotImplementedYet("GatewayService.SitIn", TABLE_ISSUE)

    async def Act(
        self, request: gateway_pb2.ActRequest, context: Context
    ) -> gateway_pb2.ActResponse:
        await self._authenticate(context)
        raise NotImplementedYet("GatewayService.Act", TABLE_ISSUE)

    async def WatchTable(
        self, request: gateway_pb2.WatchTableRequest, context: Context
    ) -> AsyncIterator[gateway_pb2.TableUpdate]:
        await self._authenticate(context)
        raise NotImplementedYet("GatewayService.WatchTable", TABLE_ISSUE)
        yield  # makes this an async generator, the shape the real stream will have

    async def GetHandHistory(
        self, request: gateway_pb2.GetHandHistoryRequest, context: Context
    ) -> gateway_pb2.GetHandHistoryResponse:
        await self._authenticate(context)
        raise NotImplementedYet("GatewayService.GetHandHistory", TABLE_ISSUE)


async def build(config: GatewayConfig) -> Mount:
    lobby_channel = connect_peer(config.platform, "lobby")
    gateway = Gateway(lobby_pb2_grpc.LobbyServiceStub(lobby_channel))
    servicer = GatewayServicer(gateway, config.platform.rpc_timeout_seconds)

    async def close() -> None:
        await lobby_channel.close()

    return Mount(
        endpoints=[
            Endpoint(
                SERVICE_NAME,
                lambda s: gateway_pb2_grpc.add_GatewayServiceServicer_to_server(servicer, s),
            )
        ],
        cleanups=[close],
    )
