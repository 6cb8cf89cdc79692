"""libs.platform.server lifecycle (health, graceful stop) and libs.platform.clients (deadlines,
retries of UNAVAILABLE only, request-id propagation), in process on free loopback ports."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
import structlog
from grpc.aio import ServicerContext, UnaryUnaryMultiCallable
from grpc_health.v1 import health_pb2

from libs.platform.clients import connect, service_config
from libs.platform.logging import REQUEST_ID_HEADER
from libs.platform.server import BindError, Endpoint, start_server

pytestmark = pytest.mark.timeout(60)

SERVICE = "holdem.test.v1.Probe"


class Probe:
    """A tiny service: Slow sleeps, Flaky fails UNAVAILABLE a few times, Who echoes the
    request id."""

    def __init__(self, failures: int = 0) -> None:
        self.failures = failures
        self.calls = 0
        self.started = asyncio.Event()

    async def slow(self, request: bytes, context: Any) -> bytes:
        self.started.set()
        await asyncio.sleep(float(request.decode()))
        return b"done"

    async def flaky(self, request: bytes, context: Any) -> bytes:
        self.calls += 1
        if self.calls <= self.failures:
            await context.abort(grpc.StatusCode.UNAVAILABLE, "try again")
        return b"ok"

    async def refuse(self, request: bytes, context: ServicerContext[bytes, bytes]) -> bytes:
        self.calls += 1
        await context.abort(grpc.StatusCode.FAILED_PRECONDITION, "no")

    async def who(self, request: bytes, context: Any) -> bytes:
        metadata = dict(context.invocation_metadata() or ())
        return str(metadata.get(REQUEST_ID_HEADER, "")).encode()

    def endpoint(self) -> Endpoint:
        handler = grpc.method_handlers_generic_handler(
            SERVICE,
            {
                "Slow": grpc.unary_unary_rpc_method_handler(self.slow),
                "Flaky": grpc.unary_unary_rpc_method_handler(self.flaky),
                "Refuse": grpc.unary_unary_rpc_method_handler(self.refuse),
                "Who": grpc.unary_unary_rpc_method_handler(self.who),
            },
        )
        return Endpoint(SERVICE, lambda server: server.add_generic_rpc_handlers((handler,)))


def raw(channel: grpc.aio.Channel, method: str) -> UnaryUnaryMultiCallable[bytes, bytes]:
    """``Probe``'s ``method``: bytes in, bytes out (no serializers)."""
    return channel.unary_unary(f"/{SERVICE}/{method}")


def test_health_is_serving_for_the_server_and_each_service() -> None:
    async def run() -> list[int]:
        running = await start_server("127.0.0.1:0", [Probe().endpoint()])
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
                check: UnaryUnaryMultiCallable[
                    health_pb2.HealthCheckRequest, health_pb2.HealthCheckResponse
                ] = channel.unary_unary(
                    "/grpc.health.v1.Health/Check",
                    request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
                    response_deserializer=health_pb2.HealthCheckResponse.FromString,
                )
                return [
                    (await check(health_pb2.HealthCheckRequest(service=name), timeout=5)).status
                    for name in ("", SERVICE)
                ]
        finally:
            await running.stop(0)

    serving = health_pb2.HealthCheckResponse.SERVING
    assert asyncio.run(run()) == [serving, serving]


def test_graceful_stop_finishes_in_flight_calls_and_refuses_new_ones() -> None:
    async def run() -> tuple[bytes, grpc.StatusCode | None]:
        probe = Probe()
        running = await start_server("127.0.0.1:0", [probe.endpoint()])
        target = f"127.0.0.1:{running.port}"
        async with grpc.aio.insecure_channel(target) as channel:
            in_flight = asyncio.ensure_future(raw(channel, "Slow")(b"0.5", timeout=10))
            await asyncio.wait_for(probe.started.wait(), 5)
            stopping = asyncio.ensure_future(running.stop(grace=5))
            answer = await in_flight
            await stopping
        refused: grpc.StatusCode | None = None
        async with grpc.aio.insecure_channel(target) as channel:
            try:
                await raw(channel, "Slow")(b"0", timeout=1)
            except grpc.aio.AioRpcError as exc:
                refused = exc.code()
        return answer, refused

    answer, refused = asyncio.run(run())
    assert answer == b"done"
    assert refused in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


def test_in_flight_calls_are_cancelled_after_the_grace_period() -> None:
    async def run() -> grpc.StatusCode:
        probe = Probe()
        running = await start_server("127.0.0.1:0", [probe.endpoint()])
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            call = raw(channel, "Slow")(b"30", timeout=20)
            await asyncio.wait_for(probe.started.wait(), 5)
            await running.stop(grace=0.2)
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await call
            return caught.value.code()

    # gRPC cancels the calls still running when the grace period ends: the client sees
    # UNAVAILABLE (not DEADLINE_EXCEEDED from its own 20 s deadline, and never OK)
    status = asyncio.run(run())
    assert status == grpc.StatusCode.UNAVAILABLE, status


def test_a_taken_port_is_a_clear_error() -> None:
    async def run() -> None:
        first = await start_server("127.0.0.1:0", [Probe().endpoint()])
        try:
            with pytest.raises(BindError, match=f"cannot listen on 127.0.0.1:{first.port}"):
                await start_server(f"127.0.0.1:{first.port}", [Probe().endpoint()])
        finally:
            await first.stop(0)

    asyncio.run(run())


def test_unavailable_is_retried_up_to_max_attempts() -> None:
    async def run(failures: int, attempts: int) -> tuple[str, int]:
        probe = Probe(failures=failures)
        running = await start_server("127.0.0.1:0", [probe.endpoint()])
        try:
            channel = connect(f"127.0.0.1:{running.port}", max_attempts=attempts)
            async with channel:
                try:
                    await raw(channel, "Flaky")(b"")
                    outcome = "OK"
                except grpc.aio.AioRpcError as exc:
                    outcome = exc.code().name
            return outcome, probe.calls
        finally:
            await running.stop(0)

    assert asyncio.run(run(failures=2, attempts=3)) == ("OK", 3)
    assert asyncio.run(run(failures=3, attempts=3)) == ("UNAVAILABLE", 3)
    assert asyncio.run(run(failures=1, attempts=1)) == ("UNAVAILABLE", 1)


def test_other_errors_are_not_retried() -> None:
    async def run() -> tuple[str, int]:
        probe = Probe()
        running = await start_server("127.0.0.1:0", [probe.endpoint()])
        try:
            async with connect(f"127.0.0.1:{running.port}", max_attempts=5) as channel:
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await raw(channel, "Refuse")(b"")
            return caught.value.code().name, probe.calls
        finally:
            await running.stop(0)

    assert asyncio.run(run()) == ("FAILED_PRECONDITION", 1)


def test_default_deadline_applies_and_per_call_timeout_overrides_it() -> None:
    async def run() -> tuple[str, bytes]:
        running = await start_server("127.0.0.1:0", [Probe().endpoint()])
        try:
            async with connect(f"127.0.0.1:{running.port}", timeout_seconds=0.2) as channel:
                slow = raw(channel, "Slow")
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await slow(b"2")
                answer = await slow(b"0.3", timeout=5)
            return caught.value.code().name, answer
        finally:
            await running.stop(0)

    assert asyncio.run(run()) == ("DEADLINE_EXCEEDED", b"done")


def test_request_id_of_the_current_call_is_propagated() -> None:
    async def run() -> tuple[bytes, bytes]:
        running = await start_server("127.0.0.1:0", [Probe().endpoint()])
        try:
            async with connect(f"127.0.0.1:{running.port}") as channel:
                who = raw(channel, "Who")
                with structlog.contextvars.bound_contextvars(request_id="req-7"):
                    inside = await who(b"")
                outside = await who(b"")
            return inside, outside
        finally:
            await running.stop(0)

    inside, outside = asyncio.run(run())
    assert inside == b"req-7"
    assert outside == b""


def test_service_config_without_retries_has_no_retry_policy() -> None:
    assert "retryPolicy" not in service_config(1)
    assert '"retryableStatusCodes": ["UNAVAILABLE"]' in service_config(3)
    with pytest.raises(ValueError, match="max_attempts"):
        service_config(6)
