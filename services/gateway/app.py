"""Gateway use cases: who is calling (bearer token -> player, via the lobby) and the calls that
are forwarded to the lobby. Seating, actions, table streams and hand history arrive with the table
service (later issues)."""

from __future__ import annotations

from collections.abc import Iterable

from holdem.lobby.v1 import lobby_pb2, lobby_pb2_grpc

from libs.platform.errors import Unauthenticated

MALFORMED_TOKEN = "MALFORMED_TOKEN"
MISSING_TOKEN = "MISSING_TOKEN"

AUTHORIZATION_HEADER = "authorization"
_BEARER = "bearer "


def bearer_token(metadata: Iterable[tuple[str, str | bytes]] | None) -> str:
    """The token of an ``authorization: Bearer <token>`` header; Unauthenticated otherwise."""
    for key, value in metadata or ():
        if key.lower() == AUTHORIZATION_HEADER and isinstance(value, str):
            if value[: len(_BEARER)].lower() == _BEARER and value[len(_BEARER) :].strip():
                return value[len(_BEARER) :].strip()
            raise Unauthenticated(MALFORMED_TOKEN, "authorization must be 'Bearer <token>'")
    raise Unauthenticated(MISSING_TOKEN, "this call needs 'authorization: Bearer <token>'")


class Gateway:
    def __init__(self, lobby: lobby_pb2_grpc.LobbyServiceAsyncStub) -> None:
        self.lobby = lobby

    async def authenticate(
        self, metadata: Iterable[tuple[str, str | bytes]] | None, timeout: float | None
    ) -> lobby_pb2.Player:
        token = bearer_token(metadata)
        response = await self.lobby.Authenticate(
            lobby_pb2.AuthenticateRequest(token=token), timeout=timeout
        )
        return response.player

    async def register(
        self, username: str, password: str, display_name: str, timeout: float | None
    ) -> lobby_pb2.Player:
        response = await self.lobby.RegisterPlayer(
            lobby_pb2.RegisterPlayerRequest(
                username=username, password=password, display_name=display_name
            ),
            timeout=timeout,
        )
        return response.player

    async def login(
        self, username: str, password: str, timeout: float | None
    ) -> lobby_pb2.LoginResponse:
        return await self.lobby.Login(
            lobby_pb2.LoginRequest(username=username, password=password), timeout=timeout
        )

    async def list_tables(
        self, request: lobby_pb2.ListTablesRequest, timeout: float | None
    ) -> lobby_pb2.ListTablesResponse:
        return await self.lobby.ListTables(request, timeout=timeout)

    async def create_table(
        self, request: lobby_pb2.CreateTableRequest, timeout: float | None
    ) -> lobby_pb2.CreateTableResponse:
        return await self.lobby.CreateTable(request, timeout=timeout)
