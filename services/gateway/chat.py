"""Chat at the gateway (docs/chat.md): SendChat, WatchChat, MuteChatPlayer, ModerateChat.

A message is a player's own words only: the gateway never writes in chat, so nothing the server
knows of a game (cards, results) reaches anyone through it. Where a caller posts and what they
read comes from the table's answer at the time (seated or not, and whether the table keeps
spectators apart: libs/chat/rooms.py); the text rules, the flood guard and the sanctions are
libs/chat's; the messages, mutes and sanctions are kept in NATS (chatstore.py), shared by every
gateway. The flood guard is this gateway's own (a player at two gateways has two). A moderator
is a registered player whose username is in ``HOLDEM_CHAT_MODERATORS``.

An open WatchChat stream reads the caller's mutes and sanction again at most once a second, as
messages come: a removal ends it (PERMISSION_DENIED) at the next message of its rooms."""

from __future__ import annotations

import time
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator
from typing import Any

import grpc
from google.protobuf.timestamp_pb2 import Timestamp
from holdem.gateway.v1 import gateway_pb2
from holdem.lobby.v1 import lobby_pb2

from libs.auth import TokenClaims
from libs.chat import moderation
from libs.chat.flood import FloodGuard
from libs.chat.moderation import Action
from libs.chat.rooms import (
    LOBBY,
    Seat,
    is_spectators_room,
    lobby_chat,
    spectators_room_too,
    table_chat,
    table_scope,
)
from libs.chat.text import clean
from libs.errors import NotFound, NotImplementedYet, PermissionDenied, ResourceExhausted
from libs.platform.server import Context
from services.gateway.base import GatewayBase
from services.gateway.chatstore import ChatStore

NOT_A_MODERATOR = "NOT_A_MODERATOR"
UNKNOWN_PLAYER = "UNKNOWN_PLAYER"
TOO_MANY_WATCHES = "TOO_MANY_WATCHES"
#: How stale an open stream's copy of the viewer's mutes and sanction may get, in seconds.
REFRESH_SECONDS = 1.0
#: Idempotency keys remembered per gateway (their messages answered again on a retry).
MAX_REMEMBERED = 10_000
SANCTIONS = {
    gateway_pb2.CHAT_SANCTION_MUTE: Action.MUTE,
    gateway_pb2.CHAT_SANCTION_REMOVE: Action.REMOVE,
    gateway_pb2.CHAT_SANCTION_RESTORE: Action.RESTORE,
}


class Chatting(GatewayBase):
    #: Set by server.py's ``build`` (None: no NATS, no chat).
    chat_store: ChatStore | None = None
    _chat_flood: FloodGuard | None = None
    _chat_sent: OrderedDict[tuple[str, str], gateway_pb2.ChatMessage] | None = None

    def _chat_store_of(self, method: str) -> ChatStore:
        if self.chat_store is None:
            raise NotImplementedYet(f"GatewayService.{method}", "this gateway has no NATS")
        return self.chat_store

    def _chat_guard(self) -> FloodGuard:
        if self._chat_flood is None:
            self._chat_flood = FloodGuard(self.config.chat.flood)
        return self._chat_flood

    async def _chat_seat(self, table_id: str, who: str, context: Context) -> tuple[Seat, bool]:
        """Where ``who`` posts and reads: the lobby (no table), or the table's rooms as the
        table sees them now (NOT_FOUND for a table that was never opened); and whether ``who``
        is a spectator there (not seated)."""
        if not table_id:
            return lobby_chat(), False
        view = await self._view(table_id, who, self._timeout(context))
        seated = view.HasField("viewer_seat")
        separate = view.config.separate_spectator_chat
        return table_chat(table_id, seated=seated, separate=separate), not seated

    async def SendChat(
        self, request: gateway_pb2.SendChatRequest, context: Context
    ) -> gateway_pb2.SendChatResponse:
        claims = await self.admission.caller(context)
        store = self._chat_store_of("SendChat")
        who = claims.player_id
        remembered = self._chat_remembered(who, request.idempotency_key)
        if remembered is not None:
            return gateway_pb2.SendChatResponse(message=remembered)
        text = clean(request.text, self.config.chat.text)
        seat, spectator = await self._chat_seat(request.table_id, who, context)
        moderation.may_post(await store.sanction(seat.scope, who), time.time())
        guard = self._chat_guard()
        now = self.clock()
        guard.check(who, text, now)
        guard.record(who, text, now)
        sent_at = time.time()
        record = {
            "room": seat.post,
            "table_id": request.table_id,
            "sender_id": who,
            "sender_name": claims.display_name,
            "text": text,
            "sent_at": sent_at,
            "spectator": spectator,
        }
        key = request.idempotency_key or uuid.uuid4().hex
        sequence = await store.post(seat.post, record, f"chat-{who}-{key}")
        message = chat_message(sequence, record)
        if request.idempotency_key:
            self._chat_remember(who, request.idempotency_key, message)
        return gateway_pb2.SendChatResponse(message=message)

    def _chat_remembered(self, who: str, key: str) -> gateway_pb2.ChatMessage | None:
        if not key or self._chat_sent is None:
            return None
        return self._chat_sent.get((who, key))

    def _chat_remember(self, who: str, key: str, message: gateway_pb2.ChatMessage) -> None:
        if self._chat_sent is None:
            self._chat_sent = OrderedDict()
        self._chat_sent[(who, key)] = message
        while len(self._chat_sent) > MAX_REMEMBERED:
            self._chat_sent.popitem(last=False)

    async def WatchChat(
        self, request: gateway_pb2.WatchChatRequest, context: Context
    ) -> AsyncIterator[gateway_pb2.ChatMessage]:
        claims = await self.admission.caller(context)
        store = self._chat_store_of("WatchChat")
        who = claims.player_id
        if not self.watches.try_acquire(who):
            raise ResourceExhausted(
                TOO_MANY_WATCHES,
                f"at most {self.config.watches_per_player} watch streams per player",
            )
        began = self.clock()
        try:
            seat, _ = await self._chat_seat(request.table_id, who, context)
            if seat.scope != LOBBY:  # seated or not now, either may change on this stream
                seat = spectators_room_too(seat)
            async for message in self._chat_follow(
                store, seat, who, request.from_sequence, request.table_id, context
            ):
                yield message
        finally:
            self.watches.release(who, self.clock() - began)

    async def _seated(self, table_id: str, who: str, context: Context) -> bool:
        view = await self._view(table_id, who, self._timeout(context))
        return view.HasField("viewer_seat")

    async def _chat_follow(
        self,
        store: ChatStore,
        seat: Seat,
        who: str,
        after: int,
        table_id: str,
        context: Context,
    ) -> AsyncIterator[gateway_pb2.ChatMessage]:
        """The rooms' messages for ``who``. At a table that keeps spectators apart the stream
        follows both rooms and passes a spectators' message only while ``who`` is not seated,
        asked of the table at that message: one who sits down stops reading the spectators
        on the same stream, and reads them again after leaving the seat."""
        moderation.may_read(await store.sanction(seat.scope, who), time.time())
        muted = set(await store.mutes(who))
        checked = self.clock()
        async for posted in store.follow(seat.read, after):
            if self.clock() - checked >= REFRESH_SECONDS:
                moderation.may_read(await store.sanction(seat.scope, who), time.time())
                muted = set(await store.mutes(who))
                checked = self.clock()
            if posted.record.get("sender_id") in muted:
                continue
            if is_spectators_room(str(posted.record.get("room", ""))) and await self._seated(
                table_id, who, context
            ):
                continue
            yield chat_message(posted.sequence, posted.record)

    async def MuteChatPlayer(
        self, request: gateway_pb2.MuteChatPlayerRequest, context: Context
    ) -> gateway_pb2.MuteChatPlayerResponse:
        claims = await self.admission.caller(context)
        store = self._chat_store_of("MuteChatPlayer")
        who = claims.player_id
        current = await store.mutes(who)
        after = moderation.muted(current, who, request.player_id, request.muted)
        if request.muted and request.player_id not in current:
            await self._chat_known(request.player_id, context)
        if after != current:
            await store.set_mutes(who, after)
        return gateway_pb2.MuteChatPlayerResponse(muted_player_ids=after)

    async def _chat_known(self, player_id: str, context: Context) -> None:
        """NOT_FOUND (UNKNOWN_PLAYER) unless the lobby knows ``player_id``."""
        try:
            await self.lobby.GetPlayer(
                lobby_pb2.GetPlayerRequest(player_id=player_id),
                timeout=self._timeout(context),
            )
        except grpc.aio.AioRpcError as exc:
            if exc.code() == grpc.StatusCode.NOT_FOUND:
                raise NotFound(UNKNOWN_PLAYER, "no player has that id") from None
            raise

    async def ModerateChat(
        self, request: gateway_pb2.ModerateChatRequest, context: Context
    ) -> gateway_pb2.ModerateChatResponse:
        claims = await self.admission.caller(context)
        store = self._chat_store_of("ModerateChat")
        if not is_moderator(claims, self.config.chat.moderators):
            raise PermissionDenied(NOT_A_MODERATOR, "only a chat moderator may do this")
        action = SANCTIONS[request.sanction]  # the validator refused UNSPECIFIED and unknowns
        now = time.time()
        given = moderation.sanction(action, request.duration_seconds, now)
        await self._chat_known(request.player_id, context)
        scope = lobby_chat().scope
        if request.table_id:  # NOT_FOUND for a table that was never opened
            await self._view(request.table_id, claims.player_id, self._timeout(context))
            scope = table_scope(request.table_id)
        await store.set_sanction(scope, request.player_id, given)
        answer = gateway_pb2.ModerateChatResponse()
        if given.action is not Action.RESTORE:
            answer.until.FromNanoseconds(int(given.until * 1e9))
        return answer


def is_moderator(claims: TokenClaims, moderators: frozenset[str]) -> bool:
    return not claims.guest and claims.username.casefold() in moderators


def chat_message(sequence: int, record: dict[str, Any]) -> gateway_pb2.ChatMessage:
    sent_at = Timestamp()
    sent_at.FromNanoseconds(int(float(record.get("sent_at", 0.0)) * 1e9))
    return gateway_pb2.ChatMessage(
        sequence=sequence,
        room=str(record.get("room", "")),
        table_id=str(record.get("table_id", "")),
        sender_id=str(record.get("sender_id", "")),
        sender_name=str(record.get("sender_name", "")),
        text=str(record.get("text", "")),
        sent_at=sent_at,
        spectator=bool(record.get("spectator", False)),
    )
