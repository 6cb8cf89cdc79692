"""The gateway's per-player limits hold under parallel calls (issue 9's red-team findings):

- at most ``HOLDEM_GATEWAY_WATCHES_PER_PLAYER`` WatchTable streams open at once, however many
  are opened in parallel (rt/watchrace.py opened 17-90 of 90 under a limit of 16), and every
  slot comes back when its stream ends, refused or failed streams included;
- at most ``HOLDEM_GATEWAY_HISTORIES_PER_PLAYER`` GetHandHistory calls in flight per player
  (rt/histdos.py), the rest RESOURCE_EXHAUSTED at once with a retry hint."""

from __future__ import annotations

import asyncio
import os
import signal
from collections import Counter
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc

from tests.conditions import wait_until
from tests.gateway.stack import GatewayStack, bearer, start_gateway_stack

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

WATCHES = 16
HISTORIES = 2


@pytest.fixture(scope="module")
def limits_stack(
    tmp_path_factory: pytest.TempPathFactory, nats_url: str, redis_url: str
) -> Iterator[GatewayStack]:
    stack = start_gateway_stack(
        tmp_path_factory.mktemp("limits"),
        nats_url,
        redis_url,
        {
            "HOLDEM_GATEWAY_WATCHES_PER_PLAYER": str(WATCHES),
            "HOLDEM_GATEWAY_HISTORIES_PER_PLAYER": str(HISTORIES),
            "HOLDEM_GATEWAY_RATE_BURST": "2000",
        },
    )
    yield stack
    stack.stop()


def _outcome(error: grpc.aio.AioRpcError) -> str:
    code = dict(error.trailing_metadata() or ()).get("x-error-code", "")
    return f"{error.code().name}:{code}"


async def _open_watches(
    stub: Any, table_id: str, token: str, count: int
) -> tuple[Counter[str], list[Any]]:
    """``count`` WatchTable calls of one player, all at once; how each began ("open": its
    first update arrived), and the calls (to cancel)."""
    calls = [
        stub.WatchTable(
            gateway_pb2.WatchTableRequest(table_id=table_id), metadata=bearer(token), timeout=60
        )
        for _ in range(count)
    ]

    async def first(call: Any) -> str:
        try:
            await call.read()
        except grpc.aio.AioRpcError as exc:
            return _outcome(exc)
        return "open"

    return Counter(await asyncio.gather(*(first(c) for c in calls))), calls


def test_parallel_watch_table_calls_open_exactly_the_limit_and_slots_come_back(
    limits_stack: GatewayStack,
) -> None:
    stack = limits_stack
    table_id = stack.open_table()
    token = stack.token("many-watches")

    async def run() -> None:
        async with grpc.aio.insecure_channel(stack.gateway.address) as channel:
            stub = gateway_pb2_grpc.GatewayServiceStub(channel)
            opened, calls = await _open_watches(stub, table_id, token, 90)
            assert opened == {"open": WATCHES, "RESOURCE_EXHAUSTED:TOO_MANY_WATCHES": 90 - WATCHES}
            for call in calls:
                call.cancel()

            # every slot comes back once its stream ends (the gateway sees the cancellation)
            async def all_free() -> bool:
                again, more = await _open_watches(stub, table_id, token, WATCHES)
                for call in more:
                    call.cancel()
                return again == {"open": WATCHES}

            await wait_until(all_free, "the slots of the cancelled streams to come back")
            # streams refused for an unknown table give their slots back too
            failed, _ = await _open_watches(stub, "nosuchtable", token, 90)
            assert set(failed) <= {
                "NOT_FOUND:TABLE_NOT_FOUND",
                "RESOURCE_EXHAUSTED:TOO_MANY_WATCHES",
            }
            assert failed["NOT_FOUND:TABLE_NOT_FOUND"] >= WATCHES
            after, calls = await _open_watches(stub, table_id, token, WATCHES + 1)
            assert after == {"open": WATCHES, "RESOURCE_EXHAUSTED:TOO_MANY_WATCHES": 1}
            for call in calls:
                call.cancel()

    asyncio.run(run())


def test_history_calls_beyond_the_limit_in_flight_are_refused_with_a_retry_hint(
    limits_stack: GatewayStack,
) -> None:
    stack = limits_stack
    table_id = stack.open_table()
    stack.seat(table_id, "reader", 100)
    token = stack.token("reader")
    other = stack.token("someone-else")
    request = gateway_pb2.GetHandHistoryRequest(table_id=table_id)

    async def run() -> None:
        async with grpc.aio.insecure_channel(stack.gateway.address) as channel:
            stub = gateway_pb2_grpc.GatewayServiceStub(channel)
            # the table stands still: every history call that reaches it stays in flight
            os.kill(stack.table.pid, signal.SIGSTOP)
            try:
                calls = [
                    asyncio.ensure_future(
                        stub.GetHandHistory(request, metadata=bearer(token), timeout=60)
                    )
                    for _ in range(12)
                ]
                done, in_flight = await asyncio.wait(calls, timeout=3)
                refused = [t.exception() for t in done]
                assert len(in_flight) == HISTORIES
                assert all(isinstance(e, grpc.aio.AioRpcError) for e in refused)
                outcomes = [_outcome(e) for e in refused if isinstance(e, grpc.aio.AioRpcError)]
                assert outcomes == ["RESOURCE_EXHAUSTED:TOO_MANY_CALLS"] * (12 - HISTORIES)
                first = refused[0]
                assert isinstance(first, grpc.aio.AioRpcError)
                hint = dict(first.trailing_metadata() or ())
                assert int(hint["grpc-retry-pushback-ms"]) > 0
                assert "retry in" in (first.details() or "")
                # another player is not held up by this one's calls
                theirs = asyncio.ensure_future(
                    stub.GetHandHistory(request, metadata=bearer(other), timeout=60)
                )
                await asyncio.sleep(0.5)
                assert not theirs.done()  # in flight too, not refused
            finally:
                os.kill(stack.table.pid, signal.SIGCONT)
            answered = await asyncio.gather(*in_flight, theirs)
            assert all(not a.hands for a in answered)
            # the slots came back: the limit's worth of calls at once, all answered
            again = await asyncio.gather(
                *(
                    stub.GetHandHistory(request, metadata=bearer(token), timeout=60)
                    for _ in range(HISTORIES)
                )
            )
            assert len(again) == HISTORIES

    asyncio.run(run())
