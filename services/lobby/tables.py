"""The lobby's calls to the table service: open and close tables, seat and unseat players (each
with an idempotency key, so a retried step is applied once), and read a table's public state."""

from __future__ import annotations

from dataclasses import dataclass

import grpc
from holdem.common.v1 import common_pb2
from holdem.table.v1 import table_pb2, table_pb2_grpc

from libs.errors import ErrorKind
from libs.platform.errors import error_code_of
from services.lobby.configs import decode_config

#: A house AI's level (libs.lobby.wallet.Wallet.bot_level) as the table's bot difficulty.
BOT_LEVELS = {
    "easy": common_pb2.BOT_DIFFICULTY_EASY,
    "normal": common_pb2.BOT_DIFFICULTY_NORMAL,
    "hard": common_pb2.BOT_DIFFICULTY_HARD,
}


@dataclass(eq=False)  # not frozen: raising it out of a context manager sets __traceback__
class TableRefusal(Exception):
    """The table service answered with an error: its status and error code."""

    status: grpc.StatusCode
    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.status.name} {self.code}: {self.message}"

    @property
    def kind(self) -> str:
        """The status a lobby call refused for this reason answers (libs.platform.errors):
        the table's own, or UNAVAILABLE when the table could not be reached in time."""
        name = self.status.name.lower()
        known = {k.value for k in ErrorKind}
        return name if name in known and name != "unimplemented" else ErrorKind.UNAVAILABLE.value

    @property
    def definitive(self) -> bool:
        """A refusal of the request itself (retrying cannot change it), not a failure to
        reach the table."""
        return self.status in (
            grpc.StatusCode.FAILED_PRECONDITION,
            grpc.StatusCode.INVALID_ARGUMENT,
            grpc.StatusCode.NOT_FOUND,
            grpc.StatusCode.PERMISSION_DENIED,
            grpc.StatusCode.ALREADY_EXISTS,
        )


@dataclass(frozen=True)
class SeatState:
    seat: int
    player_id: str
    stack: int
    committed: int


@dataclass(frozen=True)
class TableState:
    table_id: str
    sequence: int
    seats: list[SeatState]
    pots: int
    closed: bool

    @property
    def chips(self) -> int:
        return sum(s.stack for s in self.seats) + self.pots  # pots include this street's bets

    def seat_of(self, player_id: str) -> SeatState | None:
        return next((s for s in self.seats if s.player_id == player_id), None)


def _refusal(error: grpc.aio.AioRpcError) -> TableRefusal:
    code = error_code_of(error)
    return TableRefusal(error.code(), code or error.code().name, error.details() or "")


class TableClient:
    def __init__(self, channel: grpc.aio.Channel, timeout: float = 5.0) -> None:
        self.stub = table_pb2_grpc.TableServiceStub(channel)
        self.timeout = timeout

    async def _command(self, request: table_pb2.SubmitCommandRequest) -> int:
        try:
            response = await self.stub.SubmitCommand(request, timeout=self.timeout)
        except grpc.aio.AioRpcError as exc:
            raise _refusal(exc) from None
        return int(response.sequence)

    async def open(self, table_id: str, name: str, config: str, by: str) -> int:
        """Open a listed table; ``config``: as the catalogue keeps it (configs.py)."""
        return await self._command(
            table_pb2.SubmitCommandRequest(
                table_id=table_id,
                idempotency_key=f"open-{table_id}",
                open_table=table_pb2.OpenTable(
                    name=name, config=decode_config(config), created_by_player_id=by
                ),
            )
        )

    async def seat(
        self,
        table_id: str,
        key: str,
        player_id: str,
        display_name: str,
        seat: int | None,
        buy_in: int,
        wait_for_big_blind: bool,
        is_bot: bool,
        bot_level: str = "",
    ) -> int:
        command = table_pb2.SeatPlayer(
            player_id=player_id,
            display_name=display_name,
            buy_in=buy_in,
            wait_for_big_blind=wait_for_big_blind,
            is_bot=is_bot,
            bot_difficulty=BOT_LEVELS.get(bot_level, common_pb2.BOT_DIFFICULTY_UNSPECIFIED),
        )
        if seat is not None:
            command.seat = seat
        return await self._command(
            table_pb2.SubmitCommandRequest(
                table_id=table_id, idempotency_key=key, seat_player=command
            )
        )

    async def add_chips(self, table_id: str, key: str, player_id: str, amount: int) -> int:
        return await self._command(
            table_pb2.SubmitCommandRequest(
                table_id=table_id,
                idempotency_key=key,
                add_chips=table_pb2.AddChips(player_id=player_id, amount=amount),
            )
        )

    async def leave(self, table_id: str, key: str, player_id: str) -> int:
        return await self._command(
            table_pb2.SubmitCommandRequest(
                table_id=table_id,
                idempotency_key=key,
                leave_seat=table_pb2.LeaveSeat(player_id=player_id),
            )
        )

    async def close(self, table_id: str, key: str, by: str) -> int:
        return await self._command(
            table_pb2.SubmitCommandRequest(
                table_id=table_id,
                idempotency_key=key,
                close_table=table_pb2.CloseTable(requested_by_player_id=by),
            )
        )

    async def state(self, table_id: str) -> TableState:
        try:
            response = await self.stub.GetTableState(
                table_pb2.GetTableStateRequest(table_id=table_id), timeout=self.timeout
            )
        except grpc.aio.AioRpcError as exc:
            raise _refusal(exc) from None
        view = response.view
        seats = [
            SeatState(s.seat, s.player_id, s.stack, s.committed) for s in view.seats if s.player_id
        ]
        return TableState(
            table_id,
            int(view.sequence),
            seats,
            sum(p.amount for p in view.pots),
            view.table_status == common_pb2.TABLE_STATUS_CLOSED,
        )
