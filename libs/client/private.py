"""The private-table and waiting-list calls of ``GatewayClient`` (docs/private-tables.md):
create a private table (its invite code comes back), join with a password or an invite code,
for its creator the seat requests and their answers; a player's place on a full table's
waiting list (asked, or pushed by ``watch_waitlist``), and leaving it; a seat change. A mixin:
``GatewayClient`` supplies the stub and the retries."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any, TypeVar

import grpc
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc

from libs.client.errors import GatewayError
from libs.client.retry import RESUMABLE, RetryPolicy

R = TypeVar("R")


class PrivateTableCalls:
    _stub: gateway_pb2_grpc.GatewayServiceAsyncStub
    retry: RetryPolicy

    def _metadata(self) -> tuple[tuple[str, str], ...]:
        raise NotImplementedError

    async def _call(
        self, method: Callable[..., Awaitable[R]], request: Any, *, retry: bool = True
    ) -> R:
        raise NotImplementedError

    async def create_private_table(
        self,
        config: common_pb2.TableConfig,
        *,
        name: str = "",
        password: str = "",
        approve_seats: bool = False,
    ) -> gateway_pb2.CreateTableResponse:
        """A private table (never listed); the answer holds its invite code."""
        request = gateway_pb2.CreateTableRequest(
            name=name, config=config, private=True, password=password, approve_seats=approve_seats
        )
        return await self._call(self._stub.CreateTable, request, retry=False)

    async def join_private_table(
        self, table_id: str, buy_in: int, *, password: str = "", invite_code: str = ""
    ) -> gateway_pb2.JoinTableResponse:
        """Sit at a private table with its password or invite code (FAILED_PRECONDITION
        ``AWAITING_APPROVAL`` while its creator has not approved the seat)."""
        request = gateway_pb2.JoinTableRequest(
            table_id=table_id,
            buy_in=buy_in,
            password=password,
            invite_code=invite_code,
            idempotency_key=uuid.uuid4().hex,
        )
        return await self._call(self._stub.JoinTable, request)

    async def seat_requests(self, table_id: str) -> list[str]:
        response = await self._call(
            self._stub.ListSeatRequests, gateway_pb2.ListSeatRequestsRequest(table_id=table_id)
        )
        return list(response.waiting_player_ids)

    async def decide_seat(self, table_id: str, player_id: str, approved: bool) -> list[str]:
        """Approve (or refuse) ``player_id``'s seat; who is still waiting."""
        response = await self._call(
            self._stub.DecideSeat,
            gateway_pb2.DecideSeatRequest(
                table_id=table_id, seat_player_id=player_id, approved=approved
            ),
        )
        return list(response.waiting_player_ids)

    async def waitlist_place(self, table_id: str) -> gateway_pb2.GetWaitlistResponse:
        """The caller's place on ``table_id``'s waiting list and the seat offered to them."""
        return await self._call(
            self._stub.GetWaitlist, gateway_pb2.GetWaitlistRequest(table_id=table_id)
        )

    async def watch_waitlist(
        self, table_id: str, *, max_attempts: int | None = None
    ) -> AsyncGenerator[gateway_pb2.WaitlistUpdate, None]:
        """The caller's place on ``table_id``'s list as the gateway pushes it (the first at once,
        then each change), reopened after a dropped connection (the place is state, so a reopened
        stream's first answer is simply the current one); ends when the caller no longer waits.
        ``max_attempts`` bounds consecutive failed reopenings (None: keep trying)."""
        failures = 0
        delays = self.retry.delays()
        while True:
            call = self._stub.WatchWaitlist(
                gateway_pb2.WatchWaitlistRequest(table_id=table_id), metadata=self._metadata()
            )
            try:
                async for update in call:
                    failures, delays = 0, self.retry.delays()
                    yield update
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

    async def leave_waitlist(self, table_id: str) -> None:
        await self._call(
            self._stub.LeaveWaitlist, gateway_pb2.LeaveWaitlistRequest(table_id=table_id)
        )

    async def change_seat(self, table_id: str, seat: int) -> int:
        """Move to free seat ``seat`` between the caller's hands; the table's sequence."""
        response = await self._call(
            self._stub.ChangeSeat,
            gateway_pb2.ChangeSeatRequest(
                table_id=table_id, seat=seat, idempotency_key=uuid.uuid4().hex
            ),
        )
        return response.sequence
