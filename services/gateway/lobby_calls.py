"""The gateway's calls the lobby answers: accounts (Register, Login, GuestLogin, Logout), wallets
and ledgers, the table catalogue (ListTables, CreateTable, CloseTable) and seats (JoinTable,
LeaveTable, TopUp, each a lobby saga: contract-13 §3). Each is one lobby call: the client's
request copied field by field into the lobby's (``copy_fields``), with the caller's own player
id put in (gateway requests carry none, so a client acts only for itself), and the answer copied
back."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from google.protobuf.message import Message
from holdem.gateway.v1 import gateway_pb2
from holdem.lobby.v1 import lobby_pb2

from libs.platform.callers import CLIENT_ADDRESS_HEADER, caller_of
from libs.platform.clients import call_timeout
from libs.platform.server import Context
from services.gateway.auth import bearer_token
from services.gateway.base import GatewayBase
from services.gateway.fields import copy_fields

M = TypeVar("M", bound=Message)


class LobbyCalls(GatewayBase):
    @staticmethod
    def _for_client(context: Context) -> tuple[tuple[str, str], ...]:
        """Tells the lobby whose login this is (it limits failed logins per client address and
        believes this header only from the authenticated gateway)."""
        return ((CLIENT_ADDRESS_HEADER, caller_of(context).address),)

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
            self.admission.open(context)
        else:
            claims = await self.admission.caller(context)
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
        claims = await self.admission.caller(context)
        token = bearer_token(context.invocation_metadata())
        await self.lobby.Logout(
            lobby_pb2.LogoutRequest(token=token), timeout=self._timeout(context)
        )
        self.admission.log_out(claims)
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

    async def DecideSeat(
        self, request: gateway_pb2.DecideSeatRequest, context: Context
    ) -> gateway_pb2.DecideSeatResponse:
        return await self._forward(
            context,
            self.lobby.DecideSeat,
            request,
            lobby_pb2.DecideSeatRequest,
            gateway_pb2.DecideSeatResponse,
            player_field="requested_by_player_id",  # the lobby lets only the creator decide
        )

    async def ListSeatRequests(
        self, request: gateway_pb2.ListSeatRequestsRequest, context: Context
    ) -> gateway_pb2.ListSeatRequestsResponse:
        return await self._forward(
            context,
            self.lobby.ListSeatRequests,
            request,
            lobby_pb2.ListSeatRequestsRequest,
            gateway_pb2.ListSeatRequestsResponse,
            player_field="requested_by_player_id",
        )

    async def GetWaitlist(
        self, request: gateway_pb2.GetWaitlistRequest, context: Context
    ) -> gateway_pb2.GetWaitlistResponse:
        return await self._forward(
            context,
            self.lobby.GetWaitlist,
            request,
            lobby_pb2.GetWaitlistRequest,
            gateway_pb2.GetWaitlistResponse,
        )

    async def LeaveWaitlist(
        self, request: gateway_pb2.LeaveWaitlistRequest, context: Context
    ) -> gateway_pb2.LeaveWaitlistResponse:
        return await self._forward(
            context,
            self.lobby.LeaveWaitlist,
            request,
            lobby_pb2.LeaveWaitlistRequest,
            gateway_pb2.LeaveWaitlistResponse,
        )
