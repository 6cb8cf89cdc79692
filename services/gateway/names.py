"""The seats' display names in the views the gateway sends. The table names the players the lobby
seated (the name they sat down under); a seat it has no name for (a player seated by tools, or
at a table opened before tables kept names) is named by the lobby, asked once per player and
kept (a name never changes). A view never waits long for a name: a lobby that does not answer
leaves the id for now, asked again a while later."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import grpc
from holdem.common.v1 import common_pb2
from holdem.lobby.v1 import lobby_pb2, lobby_pb2_grpc

#: Display names kept (then forgotten all at once and asked again).
MAX_NAMES = 100_000
#: How long a view waits for the lobby to name a player, and when to ask again after a failure.
NAME_TIMEOUT_SECONDS = 1.0
NAME_RETRY_SECONDS = 10.0


class DisplayNames:
    def __init__(
        self,
        lobby: lobby_pb2_grpc.LobbyServiceAsyncStub,
        rpc_timeout: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.lobby = lobby
        self.rpc_timeout = rpc_timeout
        self.clock = clock
        self.names: dict[str, str] = {}  # player id -> display name (from the lobby; fixed)
        self.retry: dict[str, float] = {}  # player id -> when to ask the lobby again

    async def name_seats(self, view: common_pb2.PlayerView) -> None:
        """Fill the seats' display names: each player's name from the lobby, asked once per
        player and kept. A player the lobby does not know (seated at the table directly, by
        tools and tests) is named by their id ("AI" for a bot)."""
        now = self.clock()
        missing = {
            s.player_id
            for s in view.seats
            if s.player_id
            and not s.display_name  # named by the table
            and s.player_id not in self.names
            and self.retry.get(s.player_id, 0.0) <= now
        }
        if missing:
            await asyncio.gather(*(self._learn(p) for p in missing))
        for seat in view.seats:
            if seat.player_id and not seat.display_name:
                seat.display_name = self.names.get(seat.player_id) or (
                    "AI" if seat.is_bot else seat.player_id
                )

    async def _learn(self, player_id: str) -> None:
        try:
            found = await self.lobby.GetPlayer(
                lobby_pb2.GetPlayerRequest(player_id=player_id),
                timeout=min(self.rpc_timeout, NAME_TIMEOUT_SECONDS),
            )
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.NOT_FOUND:
                # the lobby is away: the id for now, asked again in a while (views never wait
                # long for a name)
                if len(self.retry) >= MAX_NAMES:
                    self.retry.clear()
                self.retry[player_id] = self.clock() + NAME_RETRY_SECONDS
                return
            name = ""
        else:
            name = found.player.display_name
        if len(self.names) >= MAX_NAMES:
            self.names.clear()
        self.names[player_id] = name
