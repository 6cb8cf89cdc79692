"""A stand-in gateway for the client tests: a real grpc.aio server implementing GatewayService, with
real tables (libs.table's aggregate, driven in memory: seeded deck, bots that check or call, a
clock that only moves when a test says so) and fault injection (UNAVAILABLE before or after a call
is applied, a WatchTable stream cut after N updates).

It is not the gateway: accounts, wallets and idempotency are dictionaries. It speaks the same
protocol, so the client library and the terminal client are tested over the wire. This module
holds the table calls and the server; the plumbing and accounts are fake_accounts.py, the tables
fake_tables.py, the chat and seat changes fake_social.py."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import grpc
from holdem.common.v1 import common_pb2 as pb
from holdem.gateway.v1 import gateway_pb2 as gw
from holdem.gateway.v1 import gateway_pb2_grpc

from libs.table import TableState
from libs.table import commands as tc
from libs.tableproto.actions import action_from_proto
from libs.tableproto.config import config_from_proto
from services.table.views import player_view
from tests.client.fake_accounts import Accounts
from tests.client.fake_social import Social
from tests.client.fake_tables import FakeTable, Refused
from tests.client.fake_unmodelled import Unmodelled

BOT_NAMES = ("Ada", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy")


class FakeGateway(Social, Unmodelled, Accounts):
    """GatewayService over the tables of tests/client/fake_tables.py."""

    # -- tables

    async def ListTables(
        self, request: gw.ListTablesRequest, context: Any
    ) -> gw.ListTablesResponse:
        async def body() -> gw.ListTablesResponse:
            listed = [
                t for t in self.tables.values() if request.include_closed or not t.state.closed
            ]
            if request.newest_first:
                listed.reverse()
            start = int(request.page_token or 0)  # the gateway's tokens are opaque: offsets here
            end = start + min(request.page_size or 100, 100)
            return gw.ListTablesResponse(
                tables=[t.summary() for t in listed[start:end]],
                next_page_token=str(end) if end < len(listed) else "",
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

    async def GetPlayerStats(
        self, request: gw.GetPlayerStatsRequest, context: Any
    ) -> gw.GetPlayerStatsResponse:
        async def body() -> gw.GetPlayerStatsResponse:
            me = self._player(context).player_id
            stats = gw.PlayerStats(  # this fake counts nothing: the same numbers for everyone
                player_id=request.player_id or me, hands=4, preflop_chances=4, vpip_hands=1
            )
            stats.vpip = 0.25
            return gw.GetPlayerStatsResponse(stats=stats)

        return await self._handle("GetPlayerStats", context, body)  # type: ignore[no-any-return]

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
