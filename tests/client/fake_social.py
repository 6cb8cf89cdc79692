"""The stand-in gateway's table chat and seat changes (tests/client/fake_gateway.py builds on it):
messages kept in memory and streamed to every reader of the table (a sender not seated is a
spectator), the reader's mutes applied, a bounded length; ChangeSeat as the table's command. The
real rules (rooms, rates, the word list, moderators) are the gateway's: tests/gateway."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
from holdem.gateway.v1 import gateway_pb2 as gw

from libs.table import commands as tc
from tests.client.fake_accounts import Accounts
from tests.client.fake_tables import Refused

MAX_CHARS = 200


class Social(Accounts):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.chat: list[gw.ChatMessage] = []
        self.chat_changed = asyncio.Condition()
        self.mutes: dict[str, set[str]] = {}  # reader -> the players they muted

    async def SendChat(self, request: gw.SendChatRequest, context: Any) -> gw.SendChatResponse:
        async def body() -> gw.SendChatResponse:
            me = self._player(context)
            text = " ".join(request.text.split())
            if len(text) > MAX_CHARS:
                raise Refused(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "CHAT_TOO_LONG",
                    f"a message has at most {MAX_CHARS} characters",
                )
            table = self.tables.get(request.table_id)
            seated = table is not None and table.state.seat_of(me.player_id) is not None
            message = gw.ChatMessage(
                sequence=len(self.chat) + 1,
                table_id=request.table_id,
                sender_id=me.player_id,
                sender_name=me.display_name,
                text=text,
                spectator=table is not None and not seated,
            )
            self.chat.append(message)
            async with self.chat_changed:
                self.chat_changed.notify_all()
            return gw.SendChatResponse(message=message)

        return await self._handle("SendChat", context, body, request.idempotency_key)  # type: ignore[no-any-return]

    async def WatchChat(
        self, request: gw.WatchChatRequest, context: Any
    ) -> AsyncIterator[gw.ChatMessage]:
        await self._guard("WatchChat", context)
        try:
            me = self._player(context).player_id
        except Refused as refused:
            await context.abort(refused.status, refused.message)
            return
        position = request.from_sequence
        while True:
            for message in self.chat[position:]:
                position = message.sequence
                muted = message.sender_id in self.mutes.get(me, set())
                if message.table_id == request.table_id and not muted:
                    yield message
            async with self.chat_changed:
                if len(self.chat) == position:
                    await self.chat_changed.wait()

    async def MuteChatPlayer(
        self, request: gw.MuteChatPlayerRequest, context: Any
    ) -> gw.MuteChatPlayerResponse:
        async def body() -> gw.MuteChatPlayerResponse:
            me = self._player(context).player_id
            if request.player_id == me:
                raise Refused(
                    grpc.StatusCode.INVALID_ARGUMENT, "CHAT_MUTE_SELF", "you cannot mute yourself"
                )
            muted = self.mutes.setdefault(me, set())
            if request.muted:
                muted.add(request.player_id)
            else:
                muted.discard(request.player_id)
            return gw.MuteChatPlayerResponse(muted_player_ids=sorted(muted))

        return await self._handle("MuteChatPlayer", context, body)  # type: ignore[no-any-return]

    async def ChangeSeat(
        self, request: gw.ChangeSeatRequest, context: Any
    ) -> gw.ChangeSeatResponse:
        async def body() -> gw.ChangeSeatResponse:
            me = self._player(context).player_id
            table = self._table(request.table_id)
            sequence = await table.apply(tc.ChangeSeat(me, request.seat, self.clock()))
            return gw.ChangeSeatResponse(sequence=sequence)

        return await self._handle("ChangeSeat", context, body, request.idempotency_key)  # type: ignore[no-any-return]
