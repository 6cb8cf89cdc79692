"""The gateway's per-player limits hold under parallel calls (issue 9's red-team findings):

- at most ``HOLDEM_GATEWAY_WATCHES_PER_PLAYER`` WatchTable streams open at once, however many
  are opened in parallel (rt/watchrace.py opened 17-90 of 90 under a limit of 16), and every
  slot comes back when its stream ends, refused or failed streams included."""

from __future__ import annotations

import asyncio
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
            "HOLDEM_GATEWAY_RATE_BURST": "2000",
        },
    )
    yield stack
    for process in (stack.gateway, stack.lobby, stack.table):
        process.kill()


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
