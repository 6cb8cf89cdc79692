"""The statistics and notes calls of ``GatewayClient`` (docs/stats.md): a player's statistics
from the caller's own hands (and the caller's note about them), and the caller's private notes:
write (replaces), delete, list. A mixin: ``GatewayClient`` supplies the stub and the retries."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc

R = TypeVar("R")


class StatsCalls:
    _stub: gateway_pb2_grpc.GatewayServiceAsyncStub

    async def _call(
        self, method: Callable[..., Awaitable[R]], request: Any, *, retry: bool = True
    ) -> R:
        raise NotImplementedError

    async def player_stats(
        self,
        player_id: str = "",
        variant: common_pb2.Variant.ValueType = common_pb2.VARIANT_UNSPECIFIED,
        table_id: str = "",
    ) -> gateway_pb2.GetPlayerStatsResponse:
        """``player_id``'s statistics (the caller's own when empty) from the caller's hands, one
        variant or all, one table or all; with the caller's note about them."""
        request = gateway_pb2.GetPlayerStatsRequest(
            player_id=player_id, variant=variant, table_id=table_id
        )
        return await self._call(self._stub.GetPlayerStats, request)

    async def set_note(self, player_id: str, text: str) -> gateway_pb2.PlayerNote:
        """Write (or replace) the caller's private note about ``player_id``."""
        request = gateway_pb2.SetPlayerNoteRequest(
            player_id=player_id, text=text, idempotency_key=uuid.uuid4().hex
        )
        return (await self._call(self._stub.SetPlayerNote, request)).note

    async def delete_note(self, player_id: str) -> None:
        request = gateway_pb2.DeletePlayerNoteRequest(
            player_id=player_id, idempotency_key=uuid.uuid4().hex
        )
        await self._call(self._stub.DeletePlayerNote, request)

    async def notes(self) -> list[gateway_pb2.PlayerNote]:
        """Every note of the caller's, by player id."""
        found: list[gateway_pb2.PlayerNote] = []
        token = ""
        while True:
            page = await self._call(
                self._stub.ListPlayerNotes, gateway_pb2.ListPlayerNotesRequest(page_token=token)
            )
            found.extend(page.notes)
            token = page.next_page_token
            if not token:
                return found


def _percent(stats: gateway_pb2.PlayerStats, name: str) -> str:
    present = stats.HasField(name)  # type: ignore[arg-type]
    return f"{round(100 * getattr(stats, name))}%" if present else "-"


def stats_lines(name: str, answer: gateway_pb2.GetPlayerStatsResponse) -> list[str]:
    """A player's statistics and the caller's note about them, as text lines (the terminal
    client's; "-" for a ratio with no chance yet)."""
    s = answer.stats
    factor = f"{s.aggression_factor:.1f}" if s.HasField("aggression_factor") else "-"
    lines = [
        f"{name}: {s.hands} hands, VPIP {_percent(s, 'vpip')} PFR {_percent(s, 'pfr')} "
        f"3-bet {_percent(s, 'three_bet')} ({s.three_bets}/{s.three_bet_chances})",
        f"{name}: WTSD {_percent(s, 'went_to_showdown')} W$SD {_percent(s, 'won_at_showdown')} "
        f"AF {factor} AFq {_percent(s, 'aggression_frequency')}",
    ]
    if answer.HasField("note"):
        lines.append(f"your note on {name}: {answer.note.text}")
    return lines
