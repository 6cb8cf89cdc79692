"""The gateway's statistics and notes calls (docs/stats.md), each one lobby call for the caller:
GetPlayerStats (a player's statistics from the caller's own hands, and the caller's note about
them), SetPlayerNote, DeletePlayerNote and ListPlayerNotes (the caller's notes only: the
caller's player id is put in as ``viewer_id``, so nobody reads another's notes)."""

from __future__ import annotations

from holdem.gateway.v1 import gateway_pb2
from holdem.lobby.v1 import lobby_pb2

from libs.platform.server import Context
from services.gateway.lobby_calls import LobbyCalls


class PlayerStatsCalls(LobbyCalls):
    async def GetPlayerStats(
        self, request: gateway_pb2.GetPlayerStatsRequest, context: Context
    ) -> gateway_pb2.GetPlayerStatsResponse:
        return await self._forward(
            context,
            self.lobby.GetPlayerStats,
            request,
            lobby_pb2.GetPlayerStatsRequest,
            gateway_pb2.GetPlayerStatsResponse,
            player_field="viewer_id",
        )

    async def SetPlayerNote(
        self, request: gateway_pb2.SetPlayerNoteRequest, context: Context
    ) -> gateway_pb2.SetPlayerNoteResponse:
        return await self._forward(
            context,
            self.lobby.SetPlayerNote,
            request,
            lobby_pb2.SetPlayerNoteRequest,
            gateway_pb2.SetPlayerNoteResponse,
            player_field="viewer_id",
        )

    async def DeletePlayerNote(
        self, request: gateway_pb2.DeletePlayerNoteRequest, context: Context
    ) -> gateway_pb2.DeletePlayerNoteResponse:
        return await self._forward(
            context,
            self.lobby.DeletePlayerNote,
            request,
            lobby_pb2.DeletePlayerNoteRequest,
            gateway_pb2.DeletePlayerNoteResponse,
            player_field="viewer_id",
        )

    async def ListPlayerNotes(
        self, request: gateway_pb2.ListPlayerNotesRequest, context: Context
    ) -> gateway_pb2.ListPlayerNotesResponse:
        return await self._forward(
            context,
            self.lobby.ListPlayerNotes,
            request,
            lobby_pb2.ListPlayerNotesRequest,
            gateway_pb2.ListPlayerNotesResponse,
            player_field="viewer_id",
        )
