"""Lobby gRPC servicer: translates holdem.lobby.v1 messages to and from the use cases in app.py."""

from __future__ import annotations

from datetime import datetime

from google.protobuf.timestamp_pb2 import Timestamp
from holdem.common.v1 import common_pb2
from holdem.lobby.v1 import lobby_pb2, lobby_pb2_grpc

from libs.platform.errors import NotImplementedYet
from libs.platform.server import Context, Endpoint, Mount
from libs.tableproto.config import STRUCTURES, VARIANTS, config_from_proto, config_to_proto
from services.lobby.app import Lobby, Player, Table, TableStatus, Wallet
from services.lobby.config import LobbyConfig

SERVICE_NAME = lobby_pb2.DESCRIPTOR.services_by_name["LobbyService"].full_name
SEATING_ISSUE = "being built (issue 13)"

_STATUSES = {
    TableStatus.OPEN: common_pb2.TABLE_STATUS_OPEN,
    TableStatus.CLOSING: common_pb2.TABLE_STATUS_CLOSING,
    TableStatus.CLOSED: common_pb2.TABLE_STATUS_CLOSED,
}


def _timestamp(moment: datetime) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(moment)
    return stamp


def table_to_proto(table: Table) -> common_pb2.TableSummary:
    return common_pb2.TableSummary(
        table_id=table.table_id,
        name=table.name,
        config=config_to_proto(table.config),
        status=_STATUSES[table.status],
        seated_players=table.seated_players,
        created_by_player_id=table.created_by_player_id,
        created_at=_timestamp(table.created_at),
    )


def player_to_proto(player: Player) -> lobby_pb2.Player:
    return lobby_pb2.Player(
        player_id=player.player_id,
        username=player.username,
        display_name=player.display_name,
        is_bot=player.is_bot,
        created_at=_timestamp(player.created_at),
    )


def wallet_to_proto(wallet: Wallet) -> lobby_pb2.Wallet:
    return lobby_pb2.Wallet(
        player_id=wallet.player_id, balance=wallet.balance, on_tables=wallet.on_tables
    )


class LobbyServicer(lobby_pb2_grpc.LobbyServiceServicer):
    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby

    async def RegisterPlayer(
        self, request: lobby_pb2.RegisterPlayerRequest, context: Context
    ) -> lobby_pb2.RegisterPlayerResponse:
        player = await self.lobby.register(request.username, request.password, request.display_name)
        return lobby_pb2.RegisterPlayerResponse(player=player_to_proto(player))

    async def Login(
        self, request: lobby_pb2.LoginRequest, context: Context
    ) -> lobby_pb2.LoginResponse:
        session = await self.lobby.login(request.username, request.password)
        return lobby_pb2.LoginResponse(
            token=session.token,
            expires_at=_timestamp(session.expires_at),
            player=player_to_proto(session.player),
        )

    async def Authenticate(
        self, request: lobby_pb2.AuthenticateRequest, context: Context
    ) -> lobby_pb2.AuthenticateResponse:
        player = self.lobby.authenticate(request.token)
        return lobby_pb2.AuthenticateResponse(player=player_to_proto(player))

    async def GetPlayer(
        self, request: lobby_pb2.GetPlayerRequest, context: Context
    ) -> lobby_pb2.GetPlayerResponse:
        return lobby_pb2.GetPlayerResponse(
            player=player_to_proto(self.lobby.player(request.player_id))
        )

    async def GetWallet(
        self, request: lobby_pb2.GetWalletRequest, context: Context
    ) -> lobby_pb2.GetWalletResponse:
        return lobby_pb2.GetWalletResponse(
            wallet=wallet_to_proto(self.lobby.wallet(request.player_id))
        )

    async def GuestLogin(
        self, request: lobby_pb2.GuestLoginRequest, context: Context
    ) -> lobby_pb2.LoginResponse:
        raise NotImplementedYet("LobbyService.GuestLogin", SEATING_ISSUE)

    async def Logout(
        self, request: lobby_pb2.LogoutRequest, context: Context
    ) -> lobby_pb2.LogoutResponse:
        raise NotImplementedYet("LobbyService.Logout", SEATING_ISSUE)

    async def ListLedger(
        self, request: lobby_pb2.ListLedgerRequest, context: Context
    ) -> lobby_pb2.ListLedgerResponse:
        raise NotImplementedYet("LobbyService.ListLedger", SEATING_ISSUE)

    async def JoinTable(
        self, request: lobby_pb2.JoinTableRequest, context: Context
    ) -> lobby_pb2.JoinTableResponse:
        raise NotImplementedYet("LobbyService.JoinTable", SEATING_ISSUE)

    async def TopUp(
        self, request: lobby_pb2.TopUpRequest, context: Context
    ) -> lobby_pb2.TopUpResponse:
        raise NotImplementedYet("LobbyService.TopUp", SEATING_ISSUE)

    async def LeaveTable(
        self, request: lobby_pb2.LeaveTableRequest, context: Context
    ) -> lobby_pb2.LeaveTableResponse:
        raise NotImplementedYet("LobbyService.LeaveTable", SEATING_ISSUE)

    async def AuditChips(
        self, request: lobby_pb2.AuditChipsRequest, context: Context
    ) -> lobby_pb2.AuditChipsResponse:
        raise NotImplementedYet("LobbyService.AuditChips", SEATING_ISSUE)

    async def CreateTable(
        self, request: lobby_pb2.CreateTableRequest, context: Context
    ) -> lobby_pb2.CreateTableResponse:
        table = self.lobby.create_table(
            request.name, config_from_proto(request.config), request.created_by_player_id
        )
        return lobby_pb2.CreateTableResponse(table=table_to_proto(table))

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
        return lobby_pb2.GetTableResponse(table=table_to_proto(self.lobby.table(request.table_id)))

    async def CloseTable(
        self, request: lobby_pb2.CloseTableRequest, context: Context
    ) -> lobby_pb2.CloseTableResponse:
        raise NotImplementedYet(
            "LobbyService.CloseTable", "closing needs the table service (a later issue)"
        )


async def build(config: LobbyConfig) -> Mount:
    lobby = Lobby(config.starting_chips, config.token_ttl_seconds)
    servicer = LobbyServicer(lobby)
    return Mount(
        endpoints=[
            Endpoint(
                SERVICE_NAME,
                lambda s: lobby_pb2_grpc.add_LobbyServiceServicer_to_server(servicer, s),
            )
        ]
    )
