"""The client of ``holdem nemesis --network``: it plays every seat of many tables through the
table replicas' gRPC (``SubmitCommand``, ``SubmitAction``) from the machine's own namespace,
across the veths. Its history is what it saw acknowledged: each answer with its sequence, the
idempotency key being the commit's id (``Acknowledged``, marked with the replica that answered).

Each table is driven through the replica that serves it as the client sees it (``serving``);
it turns to the other after ``NOT_OWNER`` or a second failure in a row, as the gateway's
routing does, and a table that had nothing acknowledged for ``QUIET`` seconds is turned too (a
call to a cut-off replica often fails nothing: it waits on a store it cannot reach).
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from typing import Any

import grpc
from holdem.common.v1 import common_pb2
from holdem.table.v1 import table_pb2

from libs.cli.nemesis_check import RECOVERY_DEADLINE, Acknowledged, History
from libs.cli.nemesis_replicas import LEASE_TTL, Replica
from libs.platform.errors import error_code_of
from services.table.ownership import NOT_OWNER

__all__ = ["QUIET", "Tables"]

#: a table that had nothing acknowledged this long is driven through the other replica
QUIET = 2 * LEASE_TTL
#: one call's deadline (seconds)
CALL_SECONDS = 3.0

CONFIG = common_pb2.TableConfig(
    variant=common_pb2.VARIANT_HOLDEM,
    betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
    max_seats=3,
    small_blind=1,
    big_blind=2,
    action_clock_seconds=30,
    min_players_to_start=2,
    max_buy_in=10_000,
)
#: answers that no replica would change: asking again cannot help
FINAL = (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.PERMISSION_DENIED)


def _log(message: str) -> None:
    print(f"[nemesis] {message}", file=sys.stderr, flush=True)


def _refused(exc: BaseException) -> bool:
    return isinstance(exc, grpc.aio.AioRpcError) and error_code_of(exc) == NOT_OWNER


def _said(exc: BaseException) -> str:
    if isinstance(exc, grpc.aio.AioRpcError):
        return f"{exc.code().name}: {exc.details()}"[:100]
    return f"{exc!r:.100}"


class Tables:
    """The client (see the module docstring)."""

    def __init__(
        self,
        replicas: list[Replica],
        table_ids: list[str],
        history: History,
        clock: Callable[[], float],
    ) -> None:
        self.replicas, self.table_ids, self.history, self.clock = (
            replicas,
            table_ids,
            history,
            clock,
        )
        self._seen = dict.fromkeys(table_ids, (0, time.monotonic()))  # acks seen, since when
        self._left: dict[str, tuple[int, float]] = {}  # the replica a quiet table left, when
        self._actions = dict.fromkeys(table_ids, 0)
        self.serving = {t: i % len(replicas) for i, t in enumerate(table_ids)}
        self.stopping = asyncio.Event()
        self.errors = 0

    def held(self) -> list[int]:
        """How many tables each replica serves, as the client sees it."""
        return [sum(1 for s in self.serving.values() if s == i) for i in range(len(self.replicas))]

    async def _call(
        self, index: int, table_id: str, method: str, request: Any, key: str = ""
    ) -> Any:
        """One call to replica ``index``; an answer with a sequence to a keyed command is
        recorded as acknowledged."""
        replica = self.replicas[index]
        # the lobby's commands as the lobby; a player's moves and views as the gateway
        stub = replica.lobby_stub if method == "SubmitCommand" else replica.stub
        method = "SubmitCommand" if method == "SubmitShow" else method
        answer = await getattr(stub, method)(request, timeout=CALL_SECONDS)
        if key:
            self.history.acknowledged.append(
                Acknowledged(table_id, answer.sequence, key, self.clock(), replica.name)
            )
        return answer

    def _failed(self, table_id: str, exc: BaseException, streak: int) -> int:
        """The other replica after ``NOT_OWNER`` or a second failure in a row, unless the
        table was just turned away from it for being quiet (its lease runs out meanwhile)."""
        self.errors += 1
        if _refused(exc) or streak >= 1:
            left, when = self._left.get(table_id, (-1, 0.0))
            if left != 1 - self.serving[table_id] or time.monotonic() - when > 3 * QUIET:
                self.serving[table_id] = 1 - self.serving[table_id]
                _log(f"  {table_id} to r{self.serving[table_id]} after {_said(exc)}")
            return 0
        return streak + 1

    async def command(self, table_id: str, key: str, **command: Any) -> None:
        """A keyed command, asked again with its key (through the other replica when one
        refuses or fails twice) until acknowledged."""
        request = table_pb2.SubmitCommandRequest(table_id=table_id, idempotency_key=key, **command)
        deadline, streak = time.monotonic() + RECOVERY_DEADLINE, 0
        while True:
            try:
                index = self.serving[table_id]
                await self._call(index, table_id, "SubmitCommand", request, key)
                return
            except Exception as exc:
                if isinstance(exc, grpc.aio.AioRpcError) and exc.code() in FINAL:
                    raise
                streak = self._failed(table_id, exc, streak)
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)

    async def open(self, table_id: str) -> None:
        await self.command(table_id, "open", open_table=table_pb2.OpenTable(config=CONFIG))
        for seat in range(3):
            player = table_pb2.SeatPlayer(player_id=f"{table_id}-p{seat}", seat=seat, buy_in=1000)
            await self.command(table_id, f"seat-{seat}", seat_player=player)

    async def step(self, table_id: str, index: int) -> str:
        """One move on ``table_id`` through replica ``index``: the acting seat's player checks
        or calls (a calling station: nobody goes broke in a run), or shows when asked. What it
        found: "acted", "waiting" (no seat to act) or "closed"."""
        ask = table_pb2.GetTableStateRequest(table_id=table_id)
        view = (await self._call(index, table_id, "GetTableState", ask)).view
        if view.table_status == common_pb2.TABLE_STATUS_CLOSED:
            return "closed"
        if not view.HasField("acting_seat"):
            return "waiting"
        player = next((s.player_id for s in view.seats if s.seat == view.acting_seat), "")
        mine = table_pb2.GetPlayerViewRequest(table_id=table_id, player_id=player)
        seen = (await self._call(index, table_id, "GetPlayerView", mine)).view
        self._actions[table_id] += 1
        key = f"act-{self._actions[table_id]}"
        move: table_pb2.SubmitCommandRequest | table_pb2.SubmitActionRequest
        if seen.HasField("showdown"):  # asked to show or muck: shown (a player's move too)
            show = table_pb2.ShowOrMuck(player_id=player, show=True, hand_id=view.hand_id)
            move = table_pb2.SubmitCommandRequest(
                table_id=table_id, idempotency_key=key, show_or_muck=show
            )
            method = "SubmitShow"
        else:
            legal = seen.legal_actions
            action = (
                common_pb2.ACTION_TYPE_CHECK
                if legal.can_check
                else common_pb2.ACTION_TYPE_CALL
                if legal.can_call
                else common_pb2.ACTION_TYPE_FOLD
            )
            move = table_pb2.SubmitActionRequest(
                table_id=table_id, hand_id=view.hand_id, player_id=player, action=action,
                idempotency_key=key,
            )  # fmt: skip
            method = "SubmitAction"
        try:
            await self._call(index, table_id, method, move, key)
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.FAILED_PRECONDITION:
                raise  # a stale hand or turn (the clock acted first) is a move like another
        return "acted"

    def _quiet(self) -> list[str]:
        counts: dict[str, int] = {}
        for ack in self.history.acknowledged:
            counts[ack.table_id] = counts.get(ack.table_id, 0) + 1
        now, quiet = time.monotonic(), []
        for table_id, (seen, since) in self._seen.items():
            if counts.get(table_id, 0) != seen:
                self._seen[table_id] = (counts.get(table_id, 0), now)
            elif now - since > QUIET:
                self._seen[table_id] = (seen, now)
                quiet.append(table_id)
        return quiet

    async def watch(self) -> None:
        """Turn each quiet table to the other replica."""
        while not self.stopping.is_set():
            await asyncio.sleep(QUIET / 4)
            for table_id in self._quiet():
                self.errors += 1
                self._left[table_id] = (self.serving[table_id], time.monotonic())
                self.serving[table_id] = 1 - self.serving[table_id]
                _log(f"  {table_id} to r{self.serving[table_id]}: quiet for {QUIET} s")

    async def drive(self, table_id: str) -> None:
        streak = 0
        while not self.stopping.is_set():
            try:
                found = await self.step(table_id, self.serving[table_id])
                streak = 0
                if found != "acted":
                    await asyncio.sleep(0.05)
            except Exception as exc:
                streak = self._failed(table_id, exc, streak)
                await asyncio.sleep(0.2)

    async def stale_route(self, index: int) -> int:
        """Every table moved once through replica ``index``, as a client whose routing still
        points at it would (just woken, it may believe it holds them all); how many refused
        (``NOT_OWNER``). What it commits must be on tables it may serve: the checker's
        ``stale_after_waking`` says."""
        refused = 0
        for table_id in self.table_ids:
            try:
                await self.step(table_id, index)
            except Exception as exc:
                if _refused(exc):
                    refused += 1
                else:  # the store slow to answer: the same as any move
                    _log(f"  {table_id} through r{index}, woken: {_said(exc)}")
        return refused

    async def close(self, table_id: str) -> None:
        """Close the table and play on until the hand in play ends and it is closed."""
        closing = table_pb2.CloseTable()
        await self.command(table_id, "close", close_table=closing)
        deadline, streak = time.monotonic() + RECOVERY_DEADLINE, 0
        while True:
            try:
                if await self.step(table_id, self.serving[table_id]) == "closed":
                    return
                streak = 0
            except Exception as exc:
                streak = self._failed(table_id, exc, streak)
            if time.monotonic() > deadline:
                raise TimeoutError(f"table {table_id} did not close")
            await asyncio.sleep(0.1)
