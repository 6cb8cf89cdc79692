"""The director's tables: the table service (its tournament mode) over gRPC, and the hands'
results read back from the table's public projection (HOLDEM_PUBLIC: hidden cards never reach
the director).

Each directive is one or two ``SubmitCommand`` calls keyed by the directive's key (the table
applies a key once). A refusal that says the step is done already (the table is open, the player
is seated there or gone from there, the table closed) after the key's window is taken as done;
a table that did not answer is asked again (``ATTEMPTS``); anything else raises, and the
director stops (it resumes from its checkpoint).
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

import grpc
from holdem.table.v1 import table_pb2, table_pb2_grpc
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from libs.eventstore.projection import PUBLIC_SUBJECT_PREFIX, read_public
from libs.platform.errors import error_code_of
from libs.poker.events import HandEnded, HandStarted, HandVoided
from libs.table import TableConfig
from libs.table import errors as TE
from libs.table.config import BotDifficulty
from libs.table.events import HandBegan, PlayerLeft, PlayerSeated
from libs.tableproto.config import bot_difficulty_to_proto, config_to_proto
from libs.tableproto.public import decode_public
from libs.tournament import directives as D
from libs.tournament import events as E

from .ports import HandReport

ATTEMPTS = 60  # a table not answering (restarting, failing over) is asked again this often
RETRY_SECONDS = 0.25
_TRANSIENT = (
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
)


class TableRefused(Exception):
    """The table refused a directive for good: a bug or a table out of step with the books."""


@dataclass
class _Reading:
    """What the director learned of one table's public commits so far."""

    after: int = 0  # the last table sequence read
    seats: dict[int, str] = field(default_factory=dict)
    hand: int = 0
    dealt: tuple[int, ...] = ()
    button: int = -1
    start: tuple[int, ...] = ()
    reports: dict[int, HandReport] = field(default_factory=dict)


class TableService:
    """``ports.Tables`` on the table service."""

    def __init__(self, channel: grpc.aio.Channel, nc: NATS, timeout: float = 5.0) -> None:
        self.stub = table_pb2_grpc.TableServiceStub(channel)
        self.nc = nc
        self.timeout = timeout
        self.action_seconds = 30.0
        self._readings: dict[str, _Reading] = {}
        self._subscriptions: dict[str, Subscription] = {}
        self._changed = asyncio.Event()

    async def _submit(self, request: table_pb2.SubmitCommandRequest, done: set[str]) -> None:
        """Send ``request`` until the table answers; ``done``: error codes meaning it is."""
        for _ in range(ATTEMPTS):
            try:
                await self.stub.SubmitCommand(request, timeout=self.timeout)
                return
            except grpc.aio.AioRpcError as exc:
                code = error_code_of(exc) or ""
                if code in done:
                    return
                if exc.code() not in _TRANSIENT and code != TE.HAND_IN_PROGRESS:
                    raise TableRefused(f"{request.table_id}: {code} {exc.details()}") from None
            await asyncio.sleep(RETRY_SECONDS)
        raise TableRefused(f"{request.table_id}: no answer after {ATTEMPTS} attempts")

    def _request(
        self, table_id: str, key: str, **command: object
    ) -> table_pb2.SubmitCommandRequest:
        return table_pb2.SubmitCommandRequest(table_id=table_id, idempotency_key=key, **command)  # type: ignore[arg-type]

    async def open(self, d: D.OpenTable) -> None:
        config = TableConfig(
            variant=d.variant,
            structure=d.betting,
            seats=d.seats,
            small_blind=d.blinds.small_blind,
            big_blind=d.blinds.big_blind,
            ante=d.blinds.ante,
            big_blind_ante=d.blinds.big_blind_ante,
            action_seconds=self.action_seconds,
            tournament=True,
        )
        opening = table_pb2.OpenTable(name=d.table_id, config=config_to_proto(config))
        await self._submit(self._request(d.table_id, d.key, open_table=opening), {TE.ALREADY_OPEN})
        await self._watch(d.table_id)

    async def seat(self, d: D.SeatPlayer) -> None:
        await self._sit(d.table_id, d.key, d.player_id, d.seat, d.stack, d.is_bot, d.bot_level)

    async def _sit(
        self, table_id: str, key: str, player: str, seat: int, stack: int, bot: bool, level: str
    ) -> None:
        difficulty = BotDifficulty(level) if bot and level else None
        sitting = table_pb2.SeatPlayer(
            player_id=player,
            seat=seat,
            buy_in=stack,
            is_bot=bot,
            bot_difficulty=bot_difficulty_to_proto(difficulty),
        )
        await self._submit(self._request(table_id, key, seat_player=sitting), {TE.ALREADY_SEATED})

    async def move(self, d: D.MovePlayer, stack: int, is_bot: bool, bot_level: str) -> None:
        leaving = table_pb2.LeaveSeat(player_id=d.player_id)
        request = self._request(d.from_table, f"{d.key}:leave", leave_seat=leaving)
        await self._submit(request, {TE.NOT_SEATED})
        await self._sit(
            d.to_table, f"{d.key}:sit", d.player_id, d.to_seat, stack, is_bot, bot_level
        )

    async def remove(self, d: D.RemovePlayer) -> None:
        leaving = table_pb2.LeaveSeat(player_id=d.player_id)
        await self._submit(self._request(d.table_id, d.key, leave_seat=leaving), {TE.NOT_SEATED})

    async def add_chips(self, d: D.AddChips) -> None:
        adding = table_pb2.AddChips(player_id=d.player_id, amount=d.amount)
        await self._submit(self._request(d.table_id, d.key, add_chips=adding), set())

    async def deal(self, d: D.DealHand) -> None:
        b = d.blinds
        release = table_pb2.ReleaseHand(
            number=d.hand,
            small_blind=b.small_blind,
            big_blind=b.big_blind,
            ante=b.ante,
            big_blind_ante=b.big_blind_ante,
            payouts=d.payouts,
            other_stacks=d.others,
        )
        await self._watch(d.table_id)
        await self._submit(self._request(d.table_id, d.key, release_hand=release), set())

    async def close(self, d: D.CloseTable) -> None:
        closing = table_pb2.CloseTable()
        await self._submit(self._request(d.table_id, d.key, close_table=closing), {TE.TABLE_CLOSED})
        subscription = self._subscriptions.pop(d.table_id, None)
        if subscription is not None:
            await subscription.unsubscribe()
        self._readings.pop(d.table_id, None)

    # ---- the hands' results ----

    async def _watch(self, table_id: str) -> None:
        """Be woken by the table's public commits (``wait``)."""
        if table_id in self._subscriptions:
            return

        async def woken(_: Msg) -> None:
            self._changed.set()

        subject = f"{PUBLIC_SUBJECT_PREFIX}.{table_id}"
        self._subscriptions[table_id] = await self.nc.subscribe(subject, cb=woken)

    async def hand_result(self, table_id: str, hand: int) -> HandReport | None:
        await self._watch(table_id)
        reading = self._readings.setdefault(table_id, _Reading())
        if hand not in reading.reports:
            for message in await read_public(self.nc, table_id, reading.after):
                commit = decode_public(message)
                for event in commit.events:
                    _read(reading, table_id, event)
                reading.after = commit.sequence
        return reading.reports.get(hand)

    async def wait(self, timeout: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), timeout)
        self._changed.clear()

    async def stop(self) -> None:
        for subscription in self._subscriptions.values():
            await subscription.unsubscribe()
        self._subscriptions.clear()


def _read(r: _Reading, table_id: str, event: object) -> None:
    match event:
        case PlayerSeated():
            r.seats[event.seat] = event.player_id
        case PlayerLeft():
            r.seats.pop(event.seat, None)
        case HandBegan():
            r.hand, r.dealt, r.button = event.hand_number, event.seats, event.button
        case HandStarted():
            r.start = event.stacks
        case HandEnded() | HandVoided():
            results = tuple(
                sorted(
                    (
                        E.HandResult(r.seats[seat], r.start[p], event.stacks[p])
                        for p, seat in enumerate(r.dealt)
                    ),
                    key=lambda x: x.player_id,
                )
            )
            r.reports[r.hand] = HandReport(table_id, r.hand, results, r.button)
