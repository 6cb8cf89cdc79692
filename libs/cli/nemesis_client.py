"""The client of ``holdem nemesis --network``: players playing many tables through the gateway's
API (``GatewayService``), from the machine's own namespace across the veths, as people do. Each
player is a guest of its own (``GuestLogin``: its own token); a table is made by its first player
(``CreateTable``: the lobby opens it on a table replica) and joined by three (``JoinTable``: the
lobby's saga buys them in and seats them); the seat to act checks or calls (``Act``: a calling
station, so nobody goes broke in a run) or mucks when asked to show or muck at the showdown
(``Muck``: a show after the hand that reveals nothing new is answered with the table's sequence
and commits nothing, which the history could not tell from a commit; a muck is refused then);
at the end the first player closes it (``CloseTable``) and they play on until the table says it is
closed. The gateway sends each table's calls to the replica holding it; the client knows no
replica.

Whose turn it is the client reads from the view each answer carries (the acting seat, the bets
of the street); when the view is old or says nobody is to act, each player tries in turn, to
act, then to muck (a refusal, "not your turn", costs one call and changes nothing).

Its history is what the players saw acknowledged: each ``Act`` or ``Muck`` answered with its
sequence, and the table's idempotency key for it (the gateway's ``scoped_key`` of the player's
key, the commit's id in the stream). A move that fails (``UNAVAILABLE``, a deadline) is asked
again with the same key until it is acknowledged or refused, so a move applied twice shows in
the stream as a duplicate. Which replica wrote a commit the client cannot see; the checker reads
it from the stream (``Holdem-Writer``).

``stale_route``: after a paused replica wakes, every table once through it directly, as a
gateway whose routing still points at it would (the one call that skips the gateway).
"""

from __future__ import annotations

import asyncio
import functools
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from holdem.table.v1 import table_pb2

from libs.cli.nemesis_check import RECOVERY_DEADLINE, Acknowledged, History
from libs.cli.nemesis_replicas import Replica
from libs.platform.errors import error_code_of
from libs.poker.errors import CANNOT_CHECK
from libs.table.errors import TABLE_CLOSED
from services.gateway.commands import scoped_key
from services.table.ownership import NOT_OWNER

__all__ = ["Tables"]

#: one call's deadline (seconds)
CALL_SECONDS = 3.0
SEATS = 3
BUY_IN = 1000

CONFIG = common_pb2.TableConfig(
    variant=common_pb2.VARIANT_HOLDEM,
    betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
    max_seats=SEATS,
    small_blind=1,
    big_blind=2,
    action_clock_seconds=30,
    min_players_to_start=2,
    min_buy_in=BUY_IN,
    max_buy_in=10_000,
)
#: answers that say the move was refused (not acknowledged, never will be with this key)
REFUSED = (
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.NOT_FOUND,
)


def _log(message: str) -> None:
    print(f"[nemesis] {message}", file=sys.stderr, flush=True)


def _said(exc: BaseException) -> str:
    if isinstance(exc, grpc.aio.AioRpcError):
        return f"{exc.code().name}: {exc.details()}"[:100]
    return f"{exc!r:.100}"


def _refusal(exc: BaseException) -> str | None:
    """The code of a refusal (a move the table will not take), None for a failure to ask
    again."""
    if isinstance(exc, grpc.aio.AioRpcError) and exc.code() in REFUSED:
        return error_code_of(exc) or exc.code().name
    return None


@dataclass
class Player:
    player_id: str
    token: str

    @property
    def auth(self) -> tuple[tuple[str, str]]:
        return (("authorization", f"Bearer {self.token}"),)


@dataclass
class Table:
    table_id: str
    players: list[Player]
    view: common_pb2.PlayerView | None = None  # the last view an answer carried
    moves: int = 0  # keys made so far (each move's key: "m<n>")
    closed: bool = False
    by_seat: dict[int, Player] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)  # each kind of move's last refusal

    def describe(self) -> str:
        """Where the table stood as its last answer said, and what was refused since: why a
        table that does not close did not."""
        view = self.view
        if view is None:
            return f"no view; refused {self.refused}"
        acting = view.acting_seat if view.HasField("acting_seat") else None
        status = common_pb2.TableStatus.Name(view.table_status)
        street = common_pb2.Street.Name(view.street)
        return (
            f"{status}, hand {view.hand_id or '-'} at {street}, seat {acting} to act; "
            f"refused {self.refused}"
        )


class Tables:
    """The client (see the module docstring)."""

    def __init__(
        self,
        gateway: gateway_pb2_grpc.GatewayServiceAsyncStub,
        history: History,
        clock: Callable[[], float],
    ) -> None:
        self.gateway, self.history, self.clock = gateway, history, clock
        self.tables: dict[str, Table] = {}
        self.stopping = asyncio.Event()
        self.errors = 0  # calls that failed and were asked again

    @property
    def table_ids(self) -> list[str]:
        return list(self.tables)

    async def _retried(self, call: Callable[[], Awaitable[Any]]) -> Any:
        """``call`` until it answers (a refusal is raised at once)."""
        deadline = time.monotonic() + RECOVERY_DEADLINE
        while True:
            try:
                return await call()
            except Exception as exc:
                if _refusal(exc) is not None or time.monotonic() > deadline:
                    raise
                self.errors += 1
                await asyncio.sleep(0.2)

    async def open(self, index: int) -> str:
        """Three guests; the first makes a table, all three join it. Its id."""
        players = []
        for seat in range(SEATS):
            ask = gateway_pb2.GuestLoginRequest(display_name=f"t{index}p{seat}")
            login = await self._retried(
                functools.partial(self.gateway.GuestLogin, ask, timeout=CALL_SECONDS)
            )
            players.append(Player(login.player.player_id, login.token))
        make = gateway_pb2.CreateTableRequest(name=f"nemesis {index}", config=CONFIG)
        # no key to ask again with: made once, before any fault
        created = await self.gateway.CreateTable(make, metadata=players[0].auth, timeout=30.0)
        table = Table(created.table.table_id, players)
        for seat, player in enumerate(players):
            join = gateway_pb2.JoinTableRequest(
                table_id=table.table_id, seat=seat, buy_in=BUY_IN, idempotency_key=f"join-{seat}"
            )
            await self._retried(
                functools.partial(
                    self.gateway.JoinTable, join, metadata=player.auth, timeout=CALL_SECONDS
                )
            )
            table.by_seat[seat] = player
        self.tables[table.table_id] = table
        return table.table_id

    async def _move(self, table: Table, player: Player, kind: str, action: int = 0) -> bool:
        """One move of ``player`` (``kind`` "act" with ``action``, or "muck"), asked again with
        its key until answered: True when acknowledged (recorded, the table's view kept),
        False when refused (``CANNOT_CHECK`` is asked again as a call, with a key of its
        own)."""
        table.moves += 1
        key = f"m{table.moves}"
        hand_id = table.view.hand_id if table.view is not None else ""

        async def call() -> Any:
            if kind == "muck":
                muck = gateway_pb2.MuckRequest(
                    table_id=table.table_id, hand_id=hand_id, idempotency_key=key
                )
                return await self.gateway.Muck(muck, metadata=player.auth, timeout=CALL_SECONDS)
            act = gateway_pb2.ActRequest(
                table_id=table.table_id,
                hand_id=hand_id,
                action=action,  # type: ignore[arg-type]
                idempotency_key=key,
            )
            return await self.gateway.Act(act, metadata=player.auth, timeout=CALL_SECONDS)

        try:
            answer = await self._retried(call)
        except Exception as exc:
            code = _refusal(exc)
            if code == TABLE_CLOSED:
                table.closed = True
            if code == CANNOT_CHECK:
                return await self._move(table, player, "act", common_pb2.ACTION_TYPE_CALL)
            if code is None:
                raise
            table.refused[kind] = code
            return False
        msg_id = scoped_key(kind, player.player_id, key)
        self.history.acknowledged.append(
            Acknowledged(table.table_id, answer.sequence, msg_id, self.clock())
        )
        table.view = answer.view
        table.closed = answer.view.table_status == common_pb2.TABLE_STATUS_CLOSED
        return True

    def _order(self, table: Table) -> list[tuple[Player, str, int]]:
        """Who moves, and how, as the last view says: the acting seat's player first (a check
        when its bet is the street's highest, else a call), then the others, in case the view
        is old; then each mucks, in case one is asked to show or muck at the showdown (the
        view of another player does not say so)."""
        view = table.view
        acting = view.acting_seat if view is not None and view.HasField("acting_seat") else -1
        bets = {s.seat: s.committed for s in view.seats} if view is not None else {}
        seats = sorted(table.by_seat.items(), key=lambda s: s[0] != acting)
        moves = []
        for seat, player in seats:
            owes = bets.get(seat, 0) < max(bets.values(), default=0)
            action = common_pb2.ACTION_TYPE_CALL if owes else common_pb2.ACTION_TYPE_CHECK
            moves.append((player, "act", action))
        showdown = view is not None and view.street == common_pb2.STREET_SHOWDOWN
        mucks = [(player, "muck", 0) for _, player in seats]
        return [*mucks, *moves] if showdown else [*moves, *mucks]

    async def step(self, table: Table) -> bool:
        """One move on ``table``: whether a player's move was acknowledged."""
        for player, kind, action in self._order(table):
            if await self._move(table, player, kind, action):
                return True
            if table.closed:
                return False
        table.view = None  # nobody could move: a hand being dealt, or the view is old
        return False

    async def drive(self, table_id: str) -> None:
        table = self.tables[table_id]
        while not self.stopping.is_set() and not table.closed:
            try:
                if not await self.step(table):
                    await asyncio.sleep(0.05)
            except Exception as exc:  # past the recovery deadline: said, and on again
                _log(f"  {table_id}: {_said(exc)}")
                await asyncio.sleep(0.2)

    async def close(self, table_id: str) -> None:
        """Close the table (its first player, who made it) and play on until it is closed."""
        table = self.tables[table_id]
        creator = table.players[0]
        ask = gateway_pb2.CloseTableRequest(table_id=table_id)
        await self._retried(
            functools.partial(
                self.gateway.CloseTable, ask, metadata=creator.auth, timeout=CALL_SECONDS
            )
        )
        deadline = time.monotonic() + RECOVERY_DEADLINE
        while not table.closed:
            if not await self.step(table):
                await asyncio.sleep(0.1)
            if time.monotonic() > deadline:
                raise TimeoutError(f"table {table_id} did not close: {table.describe()}")

    async def stale_route(self, replica: Replica) -> int:
        """Every table moved once through ``replica`` directly, as a gateway whose routing
        still points at it would (just woken, it may believe it holds them all), with the key
        the gateway would make; how many it refused (``NOT_OWNER``). What it commits must be
        on tables it may serve: the checker's ``stale_after_waking`` says."""
        refused = 0
        for table in self.tables.values():
            try:
                refused += await self._stale_step(replica, table)
            except Exception as exc:  # the store slow to answer: the same as any move
                _log(f"  {table.table_id} through {replica.name}, woken: {_said(exc)}")
        return refused

    async def _stale_step(self, replica: Replica, table: Table) -> int:
        ask = table_pb2.GetTableStateRequest(table_id=table.table_id)
        try:
            view = (await replica.stub.GetTableState(ask, timeout=CALL_SECONDS)).view
        except grpc.aio.AioRpcError as exc:
            if error_code_of(exc) == NOT_OWNER:
                return 1
            raise
        if not view.HasField("acting_seat") or view.acting_seat not in table.by_seat:
            return 0
        player = table.by_seat[view.acting_seat]
        bets = [s.committed for s in view.seats]
        mine = next((s.committed for s in view.seats if s.seat == view.acting_seat), 0)
        table.moves += 1
        key = f"m{table.moves}"
        move = table_pb2.SubmitActionRequest(
            table_id=table.table_id,
            hand_id=view.hand_id,
            player_id=player.player_id,
            action=common_pb2.ACTION_TYPE_CALL if mine < max(bets, default=0)
            else common_pb2.ACTION_TYPE_CHECK,
            idempotency_key=scoped_key("act", player.player_id, key),
        )  # fmt: skip
        try:
            done = await replica.stub.SubmitAction(move, timeout=CALL_SECONDS)
        except grpc.aio.AioRpcError as exc:
            if error_code_of(exc) == NOT_OWNER:
                return 1
            if exc.code() in REFUSED:
                return 0  # a stale hand or turn: a move like another
            raise
        self.history.acknowledged.append(
            Acknowledged(table.table_id, done.sequence, move.idempotency_key, self.clock())
        )
        return 0
