"""The seat-setting calls of ``GatewayClient`` (docs/table-features.md, "Sitting out and
blinds"): sit out and back in, auto-muck, sit out next big blind, wait for the big blind,
auto-post blinds (each left as it is when not given), and the answer when asked to post a blind
(``PlayerView.blind_question``). A mixin: ``GatewayClient`` supplies the stub and the retries
(every call carries an idempotency key, so a retry changes nothing twice)."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc

R = TypeVar("R")


class SeatOptionCalls:
    _stub: gateway_pb2_grpc.GatewayServiceAsyncStub

    async def _call(
        self, method: Callable[..., Awaitable[R]], request: Any, *, retry: bool = True
    ) -> R:
        raise NotImplementedError

    async def set_seat_options(
        self,
        table_id: str,
        *,
        sit_out_next_big_blind: bool | None = None,
        wait_for_big_blind: bool | None = None,
        auto_post_blinds: bool | None = None,
    ) -> int:
        """The caller's blind settings (None: as it is); the table's sequence."""
        request = gateway_pb2.SeatOptionsRequest(
            table_id=table_id, idempotency_key=uuid.uuid4().hex
        )
        if sit_out_next_big_blind is not None:
            request.sit_out_next_big_blind = sit_out_next_big_blind
        if wait_for_big_blind is not None:
            request.wait_for_big_blind = wait_for_big_blind
        if auto_post_blinds is not None:
            request.auto_post_blinds = auto_post_blinds
        response = await self._call(self._stub.SetSeatOptions, request)
        return response.sequence

    async def answer_blind(self, table_id: str, post: bool) -> int:
        """Asked to post a blind: post it in the next hand (True) or sit out (False)."""
        response = await self._call(
            self._stub.AnswerBlind,
            gateway_pb2.BlindAnswerRequest(
                table_id=table_id, post=post, idempotency_key=uuid.uuid4().hex
            ),
        )
        return response.sequence

    async def sit_out(self, table_id: str, *, key: str | None = None) -> int:
        response = await self._call(
            self._stub.SitOut,
            gateway_pb2.SitOutRequest(table_id=table_id, idempotency_key=key or uuid.uuid4().hex),
        )
        return response.sequence

    async def sit_in(self, table_id: str, *, key: str | None = None) -> int:
        response = await self._call(
            self._stub.SitIn,
            gateway_pb2.SitInRequest(table_id=table_id, idempotency_key=key or uuid.uuid4().hex),
        )
        return response.sequence

    async def set_auto_muck(self, table_id: str, auto_muck: bool, *, key: str | None = None) -> int:
        response = await self._call(
            self._stub.UpdateSeatSettings,
            gateway_pb2.UpdateSeatSettingsRequest(
                table_id=table_id, auto_muck=auto_muck, idempotency_key=key or uuid.uuid4().hex
            ),
        )
        return response.sequence
