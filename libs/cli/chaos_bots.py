"""The bots of a ``holdem chaos`` run (``play``): open the table, seat the bots, and keep asking
the table service to start hands until it has played them all and closed; every call is asked
again with its idempotency key while the table service is down or cut off by a kill, and a bot
that lost every chip is replaced. The ``Killer`` runs beside them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from holdem.common.v1 import common_pb2
from holdem.table.v1 import table_pb2, table_pb2_grpc

from libs.cli.chaos_cluster import Cluster, Services
from libs.cli.chaos_killer import Killer, KillPlan, Progress, Pulse
from libs.cli.chaos_report import TABLE_ID, Report
from libs.devstack.identity import aio_channel_as
from libs.platform.errors import error_code_of
from libs.platform.natsconn import connect_nats
from libs.platform.tasks import stop_tasks

CONFIG = common_pb2.TableConfig(
    variant=common_pb2.VARIANT_HOLDEM,
    betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
    max_seats=6,
    small_blind=1,
    big_blind=2,
    action_clock_seconds=30,
)

RETRIED = (
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.CANCELLED,
)


async def play(
    cluster: Cluster,
    plan: KillPlan,
    hands: int,
    players: int,
    progress: Progress,
    report: Report,
) -> None:
    """Play ``hands`` hands with ``players`` bots while the killer follows ``plan``."""
    services = cluster.services
    pulse = Pulse(progress)
    killer = Killer(cluster, plan, pulse, report)
    nc = await connect_nats(services.nats_url)
    await nc.subscribe(f"holdem.public.table.{TABLE_ID}", cb=pulse.count)
    config = common_pb2.TableConfig()
    config.CopyFrom(CONFIG)
    config.hand_limit = hands
    config.min_players_to_start = players
    config.run_it_max = 3  # the bots agree (below): all-in hands run the board more than once
    seats = [
        table_pb2.SubmitCommandRequest(
            table_id=TABLE_ID,
            idempotency_key=f"seat-{i}",
            seat_player=table_pb2.SeatPlayer(
                player_id=f"bot{i}", seat=i, buy_in=200, is_bot=True, wait_for_big_blind=True
            ),
        )
        for i in range(players)
    ]
    # Each bot's standing answer right after its seat, so every bot but the last has it before
    # the first hand (which starts with the last seat: bots in-process can play every hand of a
    # short run within that call, and the last answer then finds the table closed).
    setup: list[table_pb2.SubmitCommandRequest] = [
        table_pb2.SubmitCommandRequest(
            table_id=TABLE_ID,
            idempotency_key="open",
            open_table=table_pb2.OpenTable(config=config),
        ),
        *(r for i in range(players - 1) for r in (seats[i], _run_it_thrice(f"bot{i}"))),
        seats[-1],
    ]

    def call(method: str, request: Any) -> Awaitable[Any]:
        return _call(services, pulse, method, request)

    killing = asyncio.create_task(killer.run())
    try:
        # Everyone sits before the first hand: it starts only with ``players`` ready.
        for request in setup:
            await _racing(call("SubmitCommand", request), killing)
        await _racing(_answer_runs(call, f"bot{players - 1}"), killing)
        kick = 0
        while True:
            get = call("GetTableState", table_pb2.GetTableStateRequest(table_id=TABLE_ID))
            state = (await _racing(get, killing)).view
            if state.table_status == common_pb2.TABLE_STATUS_CLOSED:
                break
            if progress.expired():
                raise TimeoutError(f"the hands did not finish: {progress.reason()}")
            for seat in _busted(state):  # a new bot takes the seat of one who lost every chip
                await _racing(call("SubmitCommand", _leave(seat)), killing)
                replacement = _replace(seat)
                await _racing(call("SubmitCommand", replacement), killing)
                player = replacement.seat_player.player_id
                await _racing(_answer_runs(call, player), killing)
                report.replacements += 1
            kick += 1
            request = table_pb2.SubmitCommandRequest(
                table_id=TABLE_ID, idempotency_key=f"kick-{kick}", start_hand=table_pb2.StartHand()
            )
            with contextlib.suppress(grpc.aio.AioRpcError):
                await _racing(call("SubmitCommand", request), killing)  # nothing to start: again
            await asyncio.sleep(0.05)
    finally:
        await stop_tasks([killing])
        await nc.close()
    killer.record_restarts()


async def _call(services: Services, pulse: Pulse, method: str, request: Any) -> Any:
    """Call the table service; while it is down, or a call is cut off by a kill, ask again
    with the same idempotency key (so a call that did land is answered with its first
    outcome)."""
    progress = pulse.progress
    while True:
        # Wait while the table service restarts, but not for ever: a restart cut short by
        # the next kill point never says it is up.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(pulse.up.wait(), 1.0)
        asked = services.owner
        async with aio_channel_as(services.tables[asked].address) as channel:
            stub = table_pb2_grpc.TableServiceStub(channel)
            pulse.in_flight += 1
            try:
                return await getattr(stub, method)(request, timeout=60)
            except grpc.aio.AioRpcError as exc:
                if exc.code() not in RETRIED:
                    raise
                if exc.code() == grpc.StatusCode.UNAVAILABLE and services.owner == asked:
                    # down, or another replica serves the table: ask the next one
                    services.owner = (asked + 1) % len(services.tables)
                if progress.expired():
                    raise TimeoutError(
                        f"{method} kept failing ({exc.code().name}: {exc.details()}): "
                        f"{progress.reason()}"
                    ) from exc
            finally:
                pulse.in_flight -= 1
        await asyncio.sleep(0.05)


def _busted(view: common_pb2.PlayerView) -> list[common_pb2.SeatView]:
    """Bots that lost every chip and sat out: the table cannot start a hand with fewer than
    ``--players`` ready, so each is replaced (a new bot with a new buy-in)."""
    return [
        seat
        for seat in view.seats
        if seat.player_id and seat.stack == 0 and seat.status == common_pb2.SEAT_STATUS_SITTING_OUT
    ]


def _leave(seat: common_pb2.SeatView) -> table_pb2.SubmitCommandRequest:
    return table_pb2.SubmitCommandRequest(
        table_id=TABLE_ID,
        idempotency_key=f"leave-{seat.player_id}",
        leave_seat=table_pb2.LeaveSeat(player_id=seat.player_id),
    )


async def _answer_runs(call: Callable[[str, Any], Awaitable[Any]], player_id: str) -> None:
    """The bot's standing answer, sent once it sits; nothing to answer when the table has
    played its last hand meanwhile (closed)."""
    try:
        await call("SubmitCommand", _run_it_thrice(player_id))
    except grpc.aio.AioRpcError as exc:
        if error_code_of(exc) != "TABLE_CLOSED":
            raise


def _run_it_thrice(player_id: str) -> table_pb2.SubmitCommandRequest:
    """The bot's standing answer: run the board up to three times (a bot runs it once else)."""
    return table_pb2.SubmitCommandRequest(
        table_id=TABLE_ID,
        idempotency_key=f"runs-{player_id}",
        set_run_it_times=table_pb2.SetRunItTimes(player_id=player_id, times=3),
    )


def _replace(seat: common_pb2.SeatView) -> table_pb2.SubmitCommandRequest:
    """The replacement of ``seat``'s bot: bot3 -> bot3_2 -> bot3_3, one buy-in each."""
    base, _, generation = seat.player_id.partition("_")
    player = f"{base}_{int(generation or 1) + 1}"
    return table_pb2.SubmitCommandRequest(
        table_id=TABLE_ID,
        idempotency_key=f"seat-{player}",
        seat_player=table_pb2.SeatPlayer(
            player_id=player, seat=seat.seat, buy_in=200, is_bot=True, wait_for_big_blind=False
        ),
    )


async def _racing(call: Awaitable[Any], killing: asyncio.Task[None]) -> Any:
    """``call``'s result; if the killer fails first (a target that does not come back), its
    error."""
    task = asyncio.ensure_future(call)
    await asyncio.wait({task, killing}, return_when=asyncio.FIRST_COMPLETED)
    if not task.done():
        await stop_tasks([task])
        killing.result()  # raises the killer's error
    return task.result()
