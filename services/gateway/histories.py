"""The gateway's calls the table answers by reading a table's stream: hand histories
(GetHandHistory, projected by the table for the caller) and decks (GetDecks: each finished
hand's commitment, and its seed once disclosed). They cost the table a stream read, so each
player has at most ``HOLDEM_GATEWAY_HISTORIES_PER_PLAYER`` of them in flight (a slot each:
``TOO_MANY_CALLS`` with a retry hint when none is free). Pages go back in time; a page token is
the hand number the page before ended with."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from holdem.gateway.v1 import gateway_pb2
from holdem.table.v1 import table_pb2

from libs.errors import INVALID_PAGE_TOKEN, InvalidArgument, ResourceExhausted
from libs.platform.limits import TOO_MANY_CALLS
from libs.platform.server import Context
from services.gateway.base import GatewayBase
from services.gateway.fields import copy_fields


class Histories(GatewayBase):
    async def GetHandHistory(
        self, request: gateway_pb2.GetHandHistoryRequest, context: Context
    ) -> gateway_pb2.GetHandHistoryResponse:
        claims = await self.admission.caller(context)
        before = page_token_number(request.page_token)
        who = claims.player_id
        async with self._stream_read(who, context):
            return await self._history(request, who, before, context)

    @contextlib.asynccontextmanager
    async def _stream_read(self, who: str, context: Context) -> AsyncIterator[None]:
        """One of ``who``'s slots for calls the table answers by reading a table's stream
        (GetHandHistory, GetDecks): RESOURCE_EXHAUSTED with a retry hint when none is free."""
        if not self.histories.try_acquire(who):
            retry_ms = self.histories.retry_after_ms()
            raise ResourceExhausted(
                TOO_MANY_CALLS,
                f"at most {self.histories.limit} GetHandHistory or GetDecks calls in flight per "
                f"player: retry in {retry_ms} ms",
                retry_after_ms=retry_ms,
            )
        began = self.clock()
        try:
            yield
        finally:
            self.histories.release(who, self.clock() - began)

    async def GetDecks(
        self, request: gateway_pb2.GetDecksRequest, context: Context
    ) -> gateway_pb2.GetDecksResponse:
        claims = await self.admission.caller(context)
        before = page_token_number(request.page_token)
        async with self._stream_read(claims.player_id, context):
            answer = await self.table.GetDecks(
                table_pb2.GetDecksRequest(
                    table_id=request.table_id,
                    hand_id=request.hand_id,
                    limit=request.limit,
                    before_hand_number=before,
                ),
                timeout=self._timeout(context),
                metadata=self._meta(),
            )
        decks = [copy_fields(d, gateway_pb2.Deck()) for d in answer.decks]
        return gateway_pb2.GetDecksResponse(
            decks=decks,
            next_page_token=str(decks[-1].hand_number) if answer.more and decks else "",
        )

    async def _history(
        self, request: gateway_pb2.GetHandHistoryRequest, who: str, before: int, context: Context
    ) -> gateway_pb2.GetHandHistoryResponse:
        # the table reads its own stream and projects it for this player (NOT_FOUND for a table
        # that was never opened, as for every other call about a table)
        answer = await self.table.GetHandHistory(
            table_pb2.GetHandHistoryRequest(
                table_id=request.table_id,
                player_id=who,
                hand_id=request.hand_id,
                limit=request.limit,
                before_hand_number=before,
            ),
            timeout=self._timeout(context),
            metadata=self._meta(),
        )
        hands = [
            copy_fields(h, gateway_pb2.HandRecord(table_id=request.table_id)) for h in answer.hands
        ]
        return gateway_pb2.GetHandHistoryResponse(
            hands=hands,
            next_page_token=str(hands[-1].hand_number) if answer.more and hands else "",
        )


def page_token_number(token: str) -> int:
    """The hand number a GetHandHistory page token stands for (the last hand of the page
    before; empty: 0, no bound). A token no page could have ended with is INVALID_ARGUMENT; a
    number beyond every hand number bounds nothing."""
    if not token:
        return 0
    # digits only (int() would also take "1_000", " 7" or other scripts' digits)
    if not (token.isascii() and token.isdigit()):
        raise InvalidArgument(INVALID_PAGE_TOKEN, "page_token is not valid")
    number = int(token)
    return number if number < 2**64 else 0
