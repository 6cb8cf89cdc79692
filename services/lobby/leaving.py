"""The leave saga: LeaveTable asks the table to leave the seat (its key: the saga id); the chips
come back only through the cash-out consumer (cashout.py), which the call waits for, a while. A
player dealt into the hand in play leaves at its end (answered at once, ``leaving``); a retry
after the player left, or after the table closed, answers the last cash-out."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass

import grpc

from libs.errors import Conflict
from libs.lobby import wallet
from libs.platform.metrics.lobby import SAGAS_FINISHED, SAGAS_STARTED
from libs.table.errors import NOT_SEATED, TABLE_CLOSED
from services.lobby.app import Lobby
from services.lobby.saga_common import TABLE_UNAVAILABLE, Pending, refusal_error, saga_id
from services.lobby.store import Aggregates
from services.lobby.tables import TableClient, TableRefusal

BUY_IN_IN_PROGRESS = "BUY_IN_IN_PROGRESS"


@dataclass(frozen=True)
class Left:
    cash_out: int
    sequence: int
    leaving: bool = False  # in the hand in play: leaves (and is cashed out) when it ends


class Leaving:
    """LeaveTable, a part of the seating sagas (sagas.py ``Seating``, which sets these)."""

    lobby: Lobby
    players: Aggregates[wallet.Wallet, wallet.Event]
    tables: TableClient
    leave_wait: float

    async def leave(self, player_id: str, table_id: str, key: str) -> Left:
        player = await self.lobby.player(player_id)
        await self.lobby.table(table_id)
        if any(r.table_id == table_id for r in player.reservations.values()):
            raise Conflict(
                BUY_IN_IN_PROGRESS, "a buy-in at this table is in progress: retry in a moment"
            )
        saga = saga_id("leave", player_id, key)
        SAGAS_STARTED.labels("cash_out").inc()
        try:
            sequence = await self.tables.leave(table_id, saga, player_id)
        except TableRefusal as refusal:
            last = _last_cash_out(player, table_id)
            if refusal.code in (NOT_SEATED, TABLE_CLOSED) and last is not None:
                return last  # a retry after the player left, or the table closed
            if refusal.status == grpc.StatusCode.UNAVAILABLE:
                raise Pending(TABLE_UNAVAILABLE, "the table did not answer: retry") from None
            raise refusal_error(refusal.code, refusal.status.name, refusal.message) from None
        credited = _last_cash_out(await self.players.get(player_id), table_id, since=sequence)
        if credited is None and await self._still_seated(table_id, player_id):
            # Dealt into the hand in play: the seat stays until the hand ends (the player folds
            # at their turn), then the table's PlayerLeft is credited. Answer now: a caller
            # waiting for the hand's end would block its own client (and the hand, at its turn).
            return Left(0, sequence, leaving=True)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.leave_wait
        while True:
            player = await self.players.get(player_id)
            last = _last_cash_out(player, table_id, since=sequence)
            if last is not None:
                SAGAS_FINISHED.labels("cash_out").inc()
                return last
            remaining = deadline - loop.time()
            if remaining <= 0:  # the credit is late (the consumer lags behind): it follows
                return Left(0, sequence)
            with contextlib.suppress(TimeoutError):
                async with self.lobby.credited:
                    # another replica's consumer may credit it: look again soon
                    await asyncio.wait_for(self.lobby.credited.wait(), min(remaining, 0.25))

    async def _still_seated(self, table_id: str, player_id: str) -> bool:
        """The player still has a seat after their leave (it waits for the hand's end)."""
        try:
            state = await self.tables.state(table_id)
        except TableRefusal:  # cannot tell: wait for the credit as for any leave
            return False
        return state.seat_of(player_id) is not None


def _last_cash_out(player: wallet.Wallet, table_id: str, since: int = 0) -> Left | None:
    """The player's last cash-out from ``table_id`` (None: none, one before commit ``since``, or
    one from a table left so long ago that the wallet forgot its mark)."""
    mark = player.credits.get(table_id)
    if mark is None or mark.sequence < since:
        return None
    return Left(mark.amount, mark.sequence)
