"""The chat calls of ``GatewayClient`` (docs/chat.md): post, stream a room (resumed after a
drop from the last message seen, none repeated), mute a player for oneself, and a moderator's
sanctions. A mixin: ``GatewayClient`` supplies the stub, the token and the retries."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any, TypeAlias, TypeVar

import grpc
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc

from libs.client.errors import GatewayError
from libs.client.retry import RESUMABLE, RetryPolicy

R = TypeVar("R")
ChatSanction: TypeAlias = gateway_pb2.ChatSanction.ValueType


class ChatCalls:
    _stub: gateway_pb2_grpc.GatewayServiceAsyncStub
    retry: RetryPolicy

    def _metadata(self) -> tuple[tuple[str, str], ...]:
        raise NotImplementedError

    async def _call(
        self, method: Callable[..., Awaitable[R]], request: Any, *, retry: bool = True
    ) -> R:
        raise NotImplementedError

    async def send_chat(
        self, text: str, *, table_id: str = "", key: str | None = None
    ) -> gateway_pb2.ChatMessage:
        """Post ``text`` at ``table_id`` (empty: the lobby); a retry posts once."""
        response = await self._call(
            self._stub.SendChat,
            gateway_pb2.SendChatRequest(
                table_id=table_id, text=text, idempotency_key=key or uuid.uuid4().hex
            ),
        )
        return response.message

    async def mute_chat_player(self, player_id: str, muted: bool = True) -> list[str]:
        """Mute (or unmute) ``player_id`` for the caller; everyone the caller has muted."""
        response = await self._call(
            self._stub.MuteChatPlayer,
            gateway_pb2.MuteChatPlayerRequest(player_id=player_id, muted=muted),
        )
        return list(response.muted_player_ids)

    async def moderate_chat(
        self,
        player_id: str,
        sanction: ChatSanction,
        *,
        table_id: str = "",
        duration_seconds: int = 0,
    ) -> gateway_pb2.ModerateChatResponse:
        return await self._call(
            self._stub.ModerateChat,
            gateway_pb2.ModerateChatRequest(
                table_id=table_id,
                player_id=player_id,
                sanction=sanction,
                duration_seconds=duration_seconds,
            ),
        )

    async def watch_chat(
        self, *, table_id: str = "", from_sequence: int = 0, max_attempts: int | None = None
    ) -> AsyncGenerator[gateway_pb2.ChatMessage, None]:
        """Every message of the caller's rooms (kept ones first), across dropped connections:
        reopened after ``from_sequence`` = the last message seen; ``max_attempts`` bounds
        consecutive failed reopenings (None: keep trying)."""
        last = from_sequence
        failures = 0
        delays = self.retry.delays()
        while True:
            call = self._stub.WatchChat(
                gateway_pb2.WatchChatRequest(table_id=table_id, from_sequence=last),
                metadata=self._metadata(),
            )
            try:
                async for message in call:
                    if message.sequence <= last:
                        continue
                    last = message.sequence
                    failures, delays = 0, self.retry.delays()
                    yield message
                return
            except grpc.aio.AioRpcError as error:
                failures += 1
                if error.code() not in RESUMABLE or (
                    max_attempts is not None and failures > max_attempts
                ):
                    raise GatewayError.from_rpc(error) from None
            finally:
                call.cancel()
            await asyncio.sleep(next(delays))
