"""The run-it-twice and rabbit-hunt calls of ``GatewayClient`` (docs/table-features.md): the
caller's standing answer to "run it how many times", the answer when asked, and the rabbit hunt
after a hand that ended before the river. A mixin: ``GatewayClient`` supplies the stub and the
retries (every call carries an idempotency key, so a retry changes nothing twice)."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc

R = TypeVar("R")


class RunItCalls:
    _stub: gateway_pb2_grpc.GatewayServiceAsyncStub

    async def _call(
        self, method: Callable[..., Awaitable[R]], request: Any, *, retry: bool = True
    ) -> R:
        raise NotImplementedError

    async def set_run_it_times(self, table_id: str, times: int) -> int:
        """The caller's standing answer: 0 ask me, 1 once, 2 or 3 agree up to that many runs;
        the table's sequence."""
        response = await self._call(
            self._stub.SetRunItTimes,
            gateway_pb2.RunItSetTimesRequest(
                table_id=table_id, times=times, idempotency_key=uuid.uuid4().hex
            ),
        )
        return response.sequence

    async def answer_run_it(
        self, table_id: str, times: int, *, hand_id: str = ""
    ) -> gateway_pb2.RunItAnswerResponse:
        """Asked how many times to run the board (``PlayerView.run_it``): up to ``times``."""
        return await self._call(
            self._stub.AnswerRunIt,
            gateway_pb2.RunItAnswerRequest(
                table_id=table_id, hand_id=hand_id, times=times, idempotency_key=uuid.uuid4().hex
            ),
        )

    async def rabbit_hunt(self, table_id: str, *, hand_id: str = "") -> common_pb2.RabbitCards:
        """The cards that would have come in the table's last hand (shown to everyone there)."""
        response = await self._call(
            self._stub.RabbitHunt,
            gateway_pb2.RabbitHuntRequest(
                table_id=table_id, hand_id=hand_id, idempotency_key=uuid.uuid4().hex
            ),
        )
        return response.rabbit
