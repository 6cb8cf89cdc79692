"""WatchWaitlist: a waiting player's place pushed to them (docs/private-tables.md, "Waiting
lists"), instead of the client asking GetWaitlist again and again.

The lobby owns the list and computes the offer from its clock (the seat's offer moves on with
no event), and the gateway may not read the lobby's catalogue stream, so the stream asks the
lobby for the caller's place (the same call as GetWaitlist) when the table's public stream has
a commit (a seat came free or was taken) and at least every ``RECHECK_SECONDS`` (someone ahead
left the list, an offer's turn passed), and sends the answer only when it differs from the last
one sent. It ends once the caller is not waiting."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from holdem.gateway.v1 import gateway_pb2
from holdem.lobby.v1 import lobby_pb2

from libs.errors import ResourceExhausted
from libs.platform.callers import CLIENT_ADDRESS_HEADER, caller_of
from libs.platform.server import Context
from services.gateway.base import GatewayBase
from services.gateway.watch import Listener

TOO_MANY_WATCHES = "TOO_MANY_WATCHES"
#: How stale a pushed place may get when nothing on the table's stream says it changed.
RECHECK_SECONDS = 1.0


class WaitlistWatching(GatewayBase):
    async def WatchWaitlist(
        self, request: gateway_pb2.WatchWaitlistRequest, context: Context
    ) -> AsyncIterator[gateway_pb2.WaitlistUpdate]:
        claims = await self.admission.caller(context)
        who = claims.player_id
        if not self.watches.try_acquire(who):
            raise ResourceExhausted(
                TOO_MANY_WATCHES,
                f"at most {self.config.watches_per_player} watch streams per player",
            )
        began = self.clock()
        ask = lobby_pb2.GetWaitlistRequest(table_id=request.table_id, player_id=who)
        meta = ((CLIENT_ADDRESS_HEADER, caller_of(context).address),)
        listener: Listener | None = None
        try:
            last: gateway_pb2.WaitlistUpdate | None = None
            while True:
                place = await self.lobby.GetWaitlist(ask, timeout=self.rpc_timeout, metadata=meta)
                update = gateway_pb2.WaitlistUpdate(position=place.position, waiting=place.waiting)
                if place.HasField("offered_until"):
                    update.offered_until.CopyFrom(place.offered_until)
                if update != last:
                    yield update
                    last = update
                if not place.position:
                    return  # not (or no longer) waiting: nothing more to push
                if listener is None and self.feeds is not None:
                    listener = await self.feeds.listen(request.table_id, self.config.watch_buffer)
                await _woken(listener, RECHECK_SECONDS)
        finally:
            if listener is not None and self.feeds is not None:
                await self.feeds.leave(request.table_id, listener)
            self.watches.release(who, self.clock() - began)


async def _woken(listener: Listener | None, seconds: float) -> None:
    """Until the table's stream has a commit, or ``seconds`` passed."""
    if listener is None:
        await asyncio.sleep(seconds)
        return
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(listener.next(), seconds)
    listener.drain()
