"""A stand-in gateway for the client tests: a real grpc.aio server implementing GatewayService, with
real tables (libs.table's aggregate, driven in memory: seeded deck, bots that check or call, a
clock that only moves when a test says so) and fault injection (UNAVAILABLE before or after a call
is applied, a WatchTable stream cut after N updates).

It is not the gateway: accounts, wallets and idempotency are dictionaries. It speaks the same
protocol, so the client library and the terminal client are tested over the wire."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
from holdem.common.v1 import common_pb2 as pb
from holdem.events.v1 import events_pb2 as ev
from holdem.gateway.v1 import gateway_pb2 as gw
from holdem.gateway.v1 import gateway_pb2_grpc

from libs.platform.errors import ErrorMapper
from libs.poker import events as pe
from libs.poker.cards import DECK
from libs.poker.commands import DealBoard, DealHoleCards
from libs.table import TableState, codec, step_table
from libs.table import commands as tc
from libs.table import events as te
from libs.table.automation import (
    BoardDue,
    BotTurn,
    ClockDue,
    HandDue,
    HoleCardsDue,
    RevealDue,
    next_due,
)
from libs.table.commands import PlayerAction
from libs.tableproto.actions import action_from_proto
from libs.tableproto.config import config_from_proto, config_to_proto
from libs.tableproto.envelope import public_event
from services.table.views import player_view

GRANT = 10_000
BOT_NAMES = ("Ada", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy")
STREET = (pb.STREET_PREFLOP, pb.STREET_FLOP, pb.STREET_TURN, pb.STREET_RIVER)
ACTION = {
    pe.ActionKind.FOLD: pb.ACTION_TYPE_FOLD,
    pe.ActionKind.CHECK: pb.ACTION_TYPE_CHECK,
    pe.ActionKind.CALL: pb.ACTION_TYPE_CALL,
    pe.ActionKind.BET: pb.ACTION_TYPE_BET,
    pe.ActionKind.RAISE: pb.ACTION_TYPE_RAISE,
}
SHARE = {"whole": pb.POT_SHARE_WHOLE, "high": pb.POT_SHARE_HIGH, "low": pb.POT_SHARE_LOW}


class Refused(Exception):
    def __init__(self, status: grpc.StatusCode, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass
class Commit:
    sequence: int
    recorded: list[ev.RecordedEvent]  # public events, as sent to everyone
    state: TableState


@dataclass
class FakeTable:
    table_id: str
    name: str
    seed: int
    clock: Callable[[], float]
    state: TableState = field(default_factory=TableState)
    commits: list[Commit] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    # chips back to a wallet when a player leaves (after the hand) or the table closes
    cash_out: Callable[[str, int], None] = lambda player, chips: None

    @property
    def sequence(self) -> int:
        return self.commits[-1].sequence if self.commits else 0

    def summary(self) -> pb.TableSummary:
        s = self.state
        return pb.TableSummary(
            table_id=self.table_id,
            name=self.name,
            config=config_to_proto(s.config) if s.config else None,
            status=pb.TABLE_STATUS_CLOSED if s.closed else pb.TABLE_STATUS_OPEN,
            seated_players=len(s.seats),
        )

    async def apply(self, command: tc.TableCommand) -> int:
        """Commit ``command`` and whatever automation follows (bots, dealing); the sequence of
        the command's own commit."""
        sequence = await self._commit(command)
        for _ in range(5_000):
            nxt = self._automatic()
            if nxt is None:
                break
            await self._commit(nxt)
        return sequence

    async def _commit(self, command: tc.TableCommand) -> int:
        state, events = step_table(self.state, command)
        self.state = state
        for event in events:
            if isinstance(event, te.PlayerLeft):
                self.cash_out(event.player_id, event.stack)
            elif isinstance(event, te.TableClosed):
                for _, player, stack in event.stacks:
                    self.cash_out(player, stack)
        self.commits.append(Commit(self.sequence + 1, recorded(events), state))
        async with self.changed:
            self.changed.notify_all()
        return self.sequence

    def _automatic(self) -> tc.TableCommand | None:
        s, now = self.state, self.clock()
        due = next_due(s, now)
        rng = random.Random(f"{self.seed}:{s.hand_id}")
        deck = list(DECK)
        rng.shuffle(deck)
        match due:
            case None:
                return None
            case RevealDue():
                return tc.RevealSeed(due.hand_id, f"{self.seed:016x}", now)
            case HoleCardsDue():
                return tc.Deal(
                    tuple(
                        DealHoleCards(p, tuple(deck[i] for i in idx))
                        for p, idx in enumerate(due.positions)
                    ),
                    now,
                )
            case BoardDue():
                return tc.Deal((DealBoard(tuple(deck[i] for i in due.cards), deck[due.burn]),), now)
            case BotTurn():
                if due.options is None:
                    return tc.ShowOrMuck(due.player_id, True, now)
                o = due.options
                action = PlayerAction.CHECK if o.can_check else PlayerAction.CALL
                return tc.Act(due.player_id, action, 0, now)
            case ClockDue():
                return tc.Tick(now)
            case HandDue():
                people = any(not x.is_bot and not x.sitting_out for x in s.seats.values())
                if not people and not (s.config and s.config.hand_limit):
                    return None  # bots alone play only a table with a hand limit
                return tc.StartHand(due.hand_id, "c0ffee", now, f"deck-{due.hand_id}")
        return None


def recorded(events: list[Any]) -> list[ev.RecordedEvent]:
    """What the gateway sends of a commit: its public events as the table recorded them (nobody's
    hole cards, no burn cards); a player's own cards come in their view."""
    out = []
    for event in events:
        record = codec.encode(public_event(event))
        out.append(
            ev.RecordedEvent(
                type=record["type"],
                schema_version=record["v"],
                data=json.dumps(record["data"], separators=(",", ":")).encode(),
            )
        )
    return out


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


class FakeGateway(gateway_pb2_grpc.GatewayServiceServicer):
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

    # -- tables

    async def ListTables(
        self, request: gw.ListTablesRequest, context: Any
    ) -> gw.ListTablesResponse:
        async def body() -> gw.ListTablesResponse:
            return gw.ListTablesResponse(
                tables=[
                    t.summary()
                    for t in self.tables.values()
                    if request.include_closed or not t.state.closed
                ]
            )

        return await self._handle("ListTables", context, body)  # type: ignore[no-any-return]

    async def CreateTable(
        self, request: gw.CreateTableRequest, context: Any
    ) -> gw.CreateTableResponse:
        async def body() -> gw.CreateTableResponse:
            creator = self._player(context)
            table_id = f"t{len(self.tables) + 1}"
            table = FakeTable(table_id, request.name or table_id, self.seed, self.clock)
            table.cash_out = self._credit
            self.tables[table_id] = table
            self.creators[table_id] = creator.player_id
            config = config_from_proto(request.config)
            await table.apply(tc.OpenTable(table_id, config, self.clock()))
            for i, _level in enumerate(request.bots):
                bot = self._new_player(f"bot-{table_id}-{i}", BOT_NAMES[i])
                table.names[bot.player_id] = bot.display_name
                stack = config.max_buy_in or config.big_blind * 100
                self.balances[bot.player_id] -= stack
                await table.apply(
                    tc.SitDown(bot.player_id, i + 1, stack, is_bot=True, now=self.clock())
                )
            return gw.CreateTableResponse(table=table.summary())

        return await self._handle("CreateTable", context, body)  # type: ignore[no-any-return]

    async def CloseTable(
        self, request: gw.CloseTableRequest, context: Any
    ) -> gw.CloseTableResponse:
        async def body() -> gw.CloseTableResponse:
            me = self._player(context)
            table = self._table(request.table_id)
            if self.creators.get(request.table_id) != me.player_id:
                raise Refused(
                    grpc.StatusCode.PERMISSION_DENIED,
                    "NOT_TABLE_OWNER",
                    "only the table's creator may close it",
                )
            await table.apply(tc.CloseTable("closed by its creator", self.clock()))
            return gw.CloseTableResponse(table=table.summary())

        return await self._handle("CloseTable", context, body)  # type: ignore[no-any-return]

    async def JoinTable(self, request: gw.JoinTableRequest, context: Any) -> gw.JoinTableResponse:
        async def body() -> gw.JoinTableResponse:
            me = self._player(context)
            table = self._table(request.table_id)
            if self.balances[me.player_id] < request.buy_in:
                raise Refused(
                    grpc.StatusCode.FAILED_PRECONDITION,
                    "NOT_ENOUGH_CHIPS",
                    "not enough chips in the wallet",
                )
            table.names[me.player_id] = me.display_name
            seat = request.seat if request.HasField("seat") else None
            sequence = await table.apply(
                tc.SitDown(
                    me.player_id,
                    seat,
                    request.buy_in,
                    post_entry_bet=not request.wait_for_big_blind,
                    now=self.clock(),
                )
            )
            self.balances[me.player_id] -= request.buy_in
            number = table.state.seat_of(me.player_id)
            assert number is not None
            return gw.JoinTableResponse(seat=number, stack=request.buy_in, sequence=sequence)

        return await self._handle("JoinTable", context, body, request.idempotency_key)  # type: ignore[no-any-return]

    async def LeaveTable(
        self, request: gw.LeaveTableRequest, context: Any
    ) -> gw.LeaveTableResponse:
        async def body() -> gw.LeaveTableResponse:
            me = self._player(context)
            table = self._table(request.table_id)
            before = self.balances[me.player_id]
            sequence = await table.apply(tc.Leave(me.player_id, self.clock()))
            # 0 when the player leaves after the hand in play (credited then)
            cash_out = self.balances[me.player_id] - before
            leaving = any(s.player_id == me.player_id for s in table.state.seats.values())
            return gw.LeaveTableResponse(cash_out=cash_out, sequence=sequence, leaving=leaving)

        return await self._handle("LeaveTable", context, body, request.idempotency_key)  # type: ignore[no-any-return]

    async def TopUp(self, request: gw.TopUpRequest, context: Any) -> gw.TopUpResponse:
        raise NotImplementedError

    async def _simple(
        self,
        name: str,
        context: Any,
        table_id: str,
        key: str,
        make: Callable[[str], tc.TableCommand],
        reply: Callable[[int], Any],
    ) -> Any:
        async def body() -> Any:
            me = self._player(context)
            table = self._table(table_id)
            return reply(await table.apply(make(me.player_id)))

        return await self._handle(name, context, body, key)

    async def SitOut(self, request: gw.SitOutRequest, context: Any) -> gw.SitOutResponse:
        return await self._simple(  # type: ignore[no-any-return]
            "SitOut",
            context,
            request.table_id,
            request.idempotency_key,
            lambda p: tc.SitOut(p, self.clock()),
            lambda s: gw.SitOutResponse(sequence=s),
        )

    async def SitIn(self, request: gw.SitInRequest, context: Any) -> gw.SitInResponse:
        return await self._simple(  # type: ignore[no-any-return]
            "SitIn",
            context,
            request.table_id,
            request.idempotency_key,
            lambda p: tc.SitIn(p, now=self.clock()),
            lambda s: gw.SitInResponse(sequence=s),
        )

    async def UpdateSeatSettings(
        self, request: gw.UpdateSeatSettingsRequest, context: Any
    ) -> gw.UpdateSeatSettingsResponse:
        return await self._simple(  # type: ignore[no-any-return]
            "UpdateSeatSettings",
            context,
            request.table_id,
            request.idempotency_key,
            lambda p: tc.SetAutoMuck(p, request.auto_muck, self.clock()),
            lambda s: gw.UpdateSeatSettingsResponse(sequence=s),
        )

    def _view(
        self,
        table: FakeTable,
        player_id: str,
        state: TableState | None = None,
        sequence: int | None = None,
    ) -> pb.PlayerView:
        view = player_view(
            table.table_id,
            state or table.state,
            table.sequence if sequence is None else sequence,
            player_id or None,
        )
        for seat in view.seats:
            seat.display_name = table.names.get(seat.player_id, seat.player_id)
        return view

    async def Act(self, request: gw.ActRequest, context: Any) -> gw.ActResponse:
        async def body() -> gw.ActResponse:
            me = self._player(context)
            table = self._table(request.table_id)
            action = action_from_proto(request.action)
            if action is None:
                raise Refused(grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ACTION", "unknown action")
            sequence = await table.apply(
                tc.Act(me.player_id, action, request.amount, self.clock(), request.hand_id)
            )
            return gw.ActResponse(sequence=sequence, view=self._view(table, me.player_id))

        return await self._handle("Act", context, body, request.idempotency_key)  # type: ignore[no-any-return]

    async def _show_or_muck(self, name: str, context: Any, request: Any, show: bool) -> Any:
        async def body() -> tuple[int, pb.PlayerView]:
            me = self._player(context)
            table = self._table(request.table_id)
            sequence = await table.apply(
                tc.ShowOrMuck(me.player_id, show, self.clock(), request.hand_id)
            )
            return sequence, self._view(table, me.player_id)

        return await self._handle(name, context, body, request.idempotency_key)

    async def Show(self, request: gw.ShowRequest, context: Any) -> gw.ShowResponse:
        sequence, view = await self._show_or_muck("Show", context, request, True)
        return gw.ShowResponse(sequence=sequence, view=view)

    async def Muck(self, request: gw.MuckRequest, context: Any) -> gw.MuckResponse:
        sequence, view = await self._show_or_muck("Muck", context, request, False)
        return gw.MuckResponse(sequence=sequence, view=view)

    async def GetHandHistory(
        self, request: gw.GetHandHistoryRequest, context: Any
    ) -> gw.GetHandHistoryResponse:
        async def body() -> gw.GetHandHistoryResponse:
            self._player(context)
            return gw.GetHandHistoryResponse()

        return await self._handle("GetHandHistory", context, body)  # type: ignore[no-any-return]

    async def GetDecks(self, request: gw.GetDecksRequest, context: Any) -> gw.GetDecksResponse:
        async def body() -> gw.GetDecksResponse:
            self._player(context)
            return gw.GetDecksResponse()  # this fake keeps no decks

        return await self._handle("GetDecks", context, body)  # type: ignore[no-any-return]

    async def WatchTable(
        self, request: gw.WatchTableRequest, context: Any
    ) -> AsyncIterator[gw.TableUpdate]:
        await self._guard("WatchTable", context)
        try:
            me = self._player(context).player_id
        except Refused:
            me = ""  # a spectator
        table = self.tables.get(request.table_id)
        if table is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, "no such table")
            return
        cut, self.faults.cut_watch_after = self.faults.cut_watch_after, None
        sent = 0
        position = request.from_sequence
        if position == 0 or position > table.sequence:
            position = table.sequence
            update = gw.TableUpdate(
                table_id=table.table_id,
                sequence=position,
                snapshot=self._view(table, me),
                view=self._view(table, me),
            )
            self.sent.append((me, update))
            yield update
            sent += 1
        while True:
            pending = [c for c in table.commits if c.sequence > position]
            for commit in pending:
                if cut is not None and sent >= cut:
                    await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "injected: too slow")
                view = self._view(table, me, commit.state, commit.sequence)
                update = gw.TableUpdate(
                    table_id=table.table_id,
                    sequence=commit.sequence,
                    previous=position,
                    commit=gw.ProjectedCommit(recorded=commit.recorded),
                    view=view,
                )
                self.sent.append((me, update))
                yield update
                sent += 1
                position = commit.sequence
            if table.state.closed:
                return
            async with table.changed:
                if table.sequence == position:
                    await table.changed.wait()


@dataclass
class Server:
    address: str
    gateway: FakeGateway
    server: grpc.aio.Server


async def start(gateway: FakeGateway | None = None) -> Server:
    gateway = gateway or FakeGateway()
    server = grpc.aio.server()
    gateway_pb2_grpc.add_GatewayServiceServicer_to_server(gateway, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return Server(f"127.0.0.1:{port}", gateway, server)
