"""The straddle and bomb-pot calls of ``GatewayClient`` (docs/table-features.md): the caller's
straddle setting and the bomb-pot vote (propose, agree, refuse). A mixin: ``GatewayClient``
supplies the stub and the retries (every call carries an idempotency key, so a retry changes
nothing twice)."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc

R = TypeVar("R")


class BombPotCalls:
    _stub: gateway_pb2_grpc.GatewayServiceAsyncStub

    async def _call(
        self, method: Callable[..., Awaitable[R]], request: Any, *, retry: bool = True
    ) -> R:
        raise NotImplementedError

    async def set_straddle(self, table_id: str, straddle: bool) -> int:
        """Post the straddle whenever first left of the big blind (at a table that allows it);
        the table's sequence."""
        response = await self._call(
            self._stub.SetStraddle,
            gateway_pb2.StraddleSetRequest(
                table_id=table_id, straddle=straddle, idempotency_key=uuid.uuid4().hex
            ),
        )
        return response.sequence

    async def vote_bomb_pot(self, table_id: str, agree: bool = True) -> int:
        """With no vote open, ``agree`` proposes that the next hand be a bomb pot; with one
        open (``PlayerView.bomb_pot_vote``), agree or refuse it. The table's sequence."""
        response = await self._call(
            self._stub.VoteBombPot,
            gateway_pb2.BombPotVoteRequest(
                table_id=table_id, agree=agree, idempotency_key=uuid.uuid4().hex
            ),
        )
        return response.sequence
