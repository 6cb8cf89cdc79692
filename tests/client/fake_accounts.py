"""The stand-in gateway's plumbing and accounts (tests/client/fake_gateway.py builds on it): its
state (players, passwords, balances, tables, cached replies by key, what was called and sent),
injected faults (``Faults``), the one path every call takes (``_handle``: the token, the
idempotency cache, refusals as statuses), and accounts and wallets."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
from holdem.gateway.v1 import gateway_pb2 as gw
from holdem.gateway.v1 import gateway_pb2_grpc

from libs.platform.errors import ErrorMapper
from tests.client.fake_tables import FakeTable, Refused

GRANT = 10_000


@dataclass
class Faults:
    """Injected failures, consumed as they fire."""

    # method name -> how many calls answer UNAVAILABLE before the handler runs
    unavailable_before: dict[str, int] = field(default_factory=dict)
    # method name -> how many calls are applied and then answer UNAVAILABLE (the reply is lost)
    unavailable_after: dict[str, int] = field(default_factory=dict)
    # cut the next WatchTable stream after this many updates (RESOURCE_EXHAUSTED, as a slow
    # client); None = no cut
    cut_watch_after: int | None = None
    # method name -> a gate every call's reply waits at after the call was applied (its
    # updates already streamed, as a reply that comes back late); set it to let them go
    held_replies: dict[str, asyncio.Event] = field(default_factory=dict)


class Accounts(gateway_pb2_grpc.GatewayServiceServicer):
    """The calls of accounts and wallets; the tables' are FakeGateway's."""

    def __init__(self, *, seed: int = 7, clock: Callable[[], float] | None = None) -> None:
        self.seed = seed
        self.clock = clock or (lambda: 1_000.0)
        self.faults = Faults()
        self.players: dict[str, gw.Player] = {}
        self.passwords: dict[str, str] = {}
        self.balances: dict[str, int] = {}
        self.tables: dict[str, FakeTable] = {}
        self.creators: dict[str, str] = {}  # table id -> the player who created it
        self.replies: dict[tuple[str, str], Any] = {}  # (player, key) -> first reply
        self.calls: dict[str, int] = {}  # calls received, by method
        self.applied: dict[str, int] = {}  # calls whose handler ran (not answered from a cache)
        self.sent: list[tuple[str, gw.TableUpdate]] = []  # (player_id, update) for privacy tests

    # -- plumbing

    async def _guard(self, name: str, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        self.calls[name] = self.calls.get(name, 0) + 1
        if self.faults.unavailable_before.get(name, 0) > 0:
            self.faults.unavailable_before[name] -= 1
            await context.abort(grpc.StatusCode.UNAVAILABLE, "injected: before")

    async def _lost_reply(self, name: str, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        if self.faults.unavailable_after.get(name, 0) > 0:
            self.faults.unavailable_after[name] -= 1
            await context.abort(grpc.StatusCode.UNAVAILABLE, "injected: after")

    def _player(self, context: grpc.aio.ServicerContext[Any, Any]) -> gw.Player:
        for key, value in context.invocation_metadata() or ():
            if key == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
                player = self.players.get(value.removeprefix("Bearer tok-"))
                if player is not None:
                    return player
        raise Refused(grpc.StatusCode.UNAUTHENTICATED, "UNAUTHENTICATED", "a valid token is needed")

    def _table(self, table_id: str) -> FakeTable:
        table = self.tables.get(table_id)
        if table is None:
            raise Refused(grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND", f"no table {table_id[:32]}")
        return table

    async def _handle(
        self,
        name: str,
        context: grpc.aio.ServicerContext[Any, Any],
        body: Callable[[], Any],
        key: str = "",
    ) -> Any:
        await self._guard(name, context)
        try:
            player = (
                self._player(context)
                if name not in ("Register", "Login", "GuestLogin", "ListTables")
                else None
            )
            cache = (player.player_id if player else "", f"{name}:{key}")
            if key and cache in self.replies:
                reply = self.replies[cache]
            else:
                reply = await body()
                self.applied[name] = self.applied.get(name, 0) + 1
                if key:
                    self.replies[cache] = reply
        except Refused as exc:
            await context.abort(
                exc.status, exc.message, trailing_metadata=(("x-error-code", exc.code),)
            )
        except Exception as exc:
            error = ErrorMapper().to_grpc(exc)
            if error.internal:
                raise
            await context.abort(
                error.status, error.message, trailing_metadata=(("x-error-code", error.code or ""),)
            )
        await self._lost_reply(name, context)
        gate = self.faults.held_replies.get(name)
        if gate is not None:
            await gate.wait()
        return reply

    # -- accounts and wallet

    def _new_player(self, username: str, display: str) -> gw.Player:
        player = gw.Player(
            player_id=f"p{len(self.players) + 1}",
            username=username,
            display_name=display or username,
        )
        self.players[player.player_id] = player
        self.balances[player.player_id] = GRANT
        return player

    async def Register(self, request: gw.RegisterRequest, context: Any) -> gw.RegisterResponse:
        async def body() -> gw.RegisterResponse:
            if request.username in self.passwords:
                raise Refused(grpc.StatusCode.ALREADY_EXISTS, "USERNAME_TAKEN", "username taken")
            player = self._new_player(request.username, request.display_name)
            self.passwords[request.username] = request.password
            return gw.RegisterResponse(player=player)

        return await self._handle("Register", context, body)  # type: ignore[no-any-return]

    async def Login(self, request: gw.LoginRequest, context: Any) -> gw.LoginResponse:
        async def body() -> gw.LoginResponse:
            if self.passwords.get(request.username) != request.password:
                raise Refused(
                    grpc.StatusCode.UNAUTHENTICATED, "BAD_LOGIN", "wrong username or password"
                )
            player = next(p for p in self.players.values() if p.username == request.username)
            return gw.LoginResponse(token=f"tok-{player.player_id}", player=player)

        return await self._handle("Login", context, body)  # type: ignore[no-any-return]

    async def GuestLogin(self, request: gw.GuestLoginRequest, context: Any) -> gw.LoginResponse:
        async def body() -> gw.LoginResponse:
            player = self._new_player(f"guest-{len(self.players) + 1}", request.display_name)
            return gw.LoginResponse(token=f"tok-{player.player_id}", player=player)

        return await self._handle("GuestLogin", context, body)  # type: ignore[no-any-return]

    async def Logout(self, request: gw.LogoutRequest, context: Any) -> gw.LogoutResponse:
        async def body() -> gw.LogoutResponse:
            return gw.LogoutResponse()

        return await self._handle("Logout", context, body)  # type: ignore[no-any-return]

    def _credit(self, player_id: str, chips: int) -> None:
        self.balances[player_id] += chips

    def _on_tables(self, player_id: str) -> int:
        total = 0
        for table in self.tables.values():
            number = table.state.seat_of(player_id)
            if number is not None:
                total += table.state.seats[number].stack
        return total

    async def GetWallet(self, request: gw.GetWalletRequest, context: Any) -> gw.GetWalletResponse:
        async def body() -> gw.GetWalletResponse:
            me = self._player(context).player_id
            return gw.GetWalletResponse(
                wallet=gw.Wallet(balance=self.balances[me], on_tables=self._on_tables(me))
            )

        return await self._handle("GetWallet", context, body)  # type: ignore[no-any-return]

    async def ListLedger(
        self, request: gw.ListLedgerRequest, context: Any
    ) -> gw.ListLedgerResponse:
        async def body() -> gw.ListLedgerResponse:
            self._player(context)
            return gw.ListLedgerResponse()

        return await self._handle("ListLedger", context, body)  # type: ignore[no-any-return]
