"""Prometheus metrics of the platform, in process: HOLDEM_METRICS_LISTEN, the gRPC metrics
layer (calls by method and status, latency, open streams) and the HTTP endpoint."""

from __future__ import annotations

import asyncio
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2
from prometheus_client import REGISTRY, CollectorRegistry, Counter

from libs.devstack.services import service_key_env
from libs.errors import InvalidArgument
from libs.platform.config import DEFAULT_METRICS_PORTS, load_platform_config
from libs.platform.configvars import ConfigError
from libs.platform.metrics import service as metrics
from libs.platform.metrics.endpoint import MetricsBindError, start_metrics_endpoint
from libs.platform.server import Endpoint, start_server

#: Every service needs its service-token keys (libs.platform.identity).
keyed = service_key_env

pytestmark = pytest.mark.timeout(60)

SERVICE = "holdem.test.v1.Meter"
HEALTH = "grpc.health.v1.Health"


# ---- HOLDEM_METRICS_LISTEN --------------------------------------------------------------------


@pytest.mark.parametrize("service", sorted(DEFAULT_METRICS_PORTS))
def test_each_service_has_its_own_default_metrics_port(service: str) -> None:
    platform, _ = load_platform_config(service, keyed(service))
    assert platform.metrics_listen == f"127.0.0.1:{DEFAULT_METRICS_PORTS[service]}"


def test_default_metrics_ports_are_distinct_from_each_other() -> None:
    assert len(set(DEFAULT_METRICS_PORTS.values())) == len(DEFAULT_METRICS_PORTS)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("off", None), ("OFF", None), ("0.0.0.0:9090", "0.0.0.0:9090"), ("[::1]:0", "[::1]:0")],
)
def test_metrics_listen_takes_an_address_or_off(raw: str, expected: str | None) -> None:
    platform, _ = load_platform_config("table", {**keyed("table"), "HOLDEM_METRICS_LISTEN": raw})
    assert platform.metrics_listen == expected


def test_a_bad_metrics_address_names_the_variable() -> None:
    with pytest.raises(ConfigError) as caught:
        load_platform_config("dealer", {**keyed("dealer"), "HOLDEM_METRICS_LISTEN": "9090"})
    ((name, problem),) = caught.value.problems
    assert name == "HOLDEM_METRICS_LISTEN"
    assert "is not host:port" in problem and "host:port or off" in problem


# ---- the layer --------------------------------------------------------------------------------


class Meter:
    """Ok answers, Refuse aborts FAILED_PRECONDITION, Bad raises a domain error."""

    async def ok(self, request: bytes, context: Any) -> bytes:
        return b"ok"

    async def refuse(self, request: bytes, context: Any) -> bytes:
        await context.abort(grpc.StatusCode.FAILED_PRECONDITION, "no")
        raise AssertionError("abort raises")

    async def bad(self, request: bytes, context: Any) -> bytes:
        raise InvalidArgument("bad_input", "that is not a valid request")

    def endpoint(self) -> Endpoint:
        handler = grpc.method_handlers_generic_handler(
            SERVICE,
            {
                "Ok": grpc.unary_unary_rpc_method_handler(self.ok),
                "Refuse": grpc.unary_unary_rpc_method_handler(self.refuse),
                "Bad": grpc.unary_unary_rpc_method_handler(self.bad),
            },
        )
        return Endpoint(SERVICE, lambda server: server.add_generic_rpc_handlers((handler,)))


def sample(name: str, **labels: str) -> float:
    """The current value of one series of the process-wide registry (0 before it exists)."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


def requests(service: str, method: str, code: str) -> float:
    return sample(
        "holdem_grpc_server_requests_total",
        grpc_service=service,
        grpc_method=method,
        grpc_code=code,
    )


def latency_count(service: str, method: str) -> float:
    return sample(
        "holdem_grpc_server_request_duration_seconds_count",
        grpc_service=service,
        grpc_method=method,
    )


def streams(service: str, method: str) -> float:
    return sample("holdem_grpc_server_streams_in_flight", grpc_service=service, grpc_method=method)


def test_calls_are_counted_by_method_and_status_and_timed() -> None:
    before = {
        code: requests(SERVICE, method, code)
        for method, code in (
            ("Ok", "OK"),
            ("Refuse", "FAILED_PRECONDITION"),
            ("Bad", "INVALID_ARGUMENT"),
        )
    }
    timed_before = latency_count(SERVICE, "Ok")

    async def run() -> None:
        running = await start_server("127.0.0.1:0", [Meter().endpoint()])
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
                for method, times in (("Ok", 3), ("Refuse", 1), ("Bad", 1)):
                    call: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(
                        f"/{SERVICE}/{method}"
                    )
                    for _ in range(times):
                        try:
                            await call(b"")
                        except grpc.aio.AioRpcError as exc:
                            assert method != "Ok", exc
        finally:
            await running.stop(0)

    asyncio.run(run())
    assert requests(SERVICE, "Ok", "OK") - before["OK"] == 3
    assert requests(SERVICE, "Refuse", "FAILED_PRECONDITION") - before["FAILED_PRECONDITION"] == 1
    assert requests(SERVICE, "Bad", "INVALID_ARGUMENT") - before["INVALID_ARGUMENT"] == 1
    assert latency_count(SERVICE, "Ok") - timed_before == 3


def test_open_server_streams_are_gauged_and_counted_when_they_close() -> None:
    closed_before = requests(HEALTH, "Watch", "CANCELLED")

    async def run() -> tuple[float, float]:
        running = await start_server("127.0.0.1:0", [])
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
                open_watch: grpc.aio.UnaryStreamMultiCallable[
                    health_pb2.HealthCheckRequest, health_pb2.HealthCheckResponse
                ] = channel.unary_stream(
                    f"/{HEALTH}/Watch",
                    request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
                    response_deserializer=health_pb2.HealthCheckResponse.FromString,
                )
                watch = open_watch(health_pb2.HealthCheckRequest(service=""))
                first = await watch.read()
                assert isinstance(first, health_pb2.HealthCheckResponse)
                assert first.status == health_pb2.HealthCheckResponse.SERVING
                open_now = streams(HEALTH, "Watch")
                watch.cancel()
                while requests(HEALTH, "Watch", "CANCELLED") == closed_before:
                    await asyncio.sleep(0.01)
                return open_now, streams(HEALTH, "Watch")
        finally:
            await running.stop(0)

    during, after = asyncio.run(run())
    assert (during, after) == (1, 0)
    assert requests(HEALTH, "Watch", "CANCELLED") - closed_before == 1


async def endless(request: bytes, context: Any) -> AsyncIterator[bytes]:
    while True:
        yield b"x" * 1000


def test_a_stream_cancelled_while_it_sends_counts_cancelled_and_no_layer_fails() -> None:
    """A client that stops reading a stream the server is writing (a WatchTable client that
    goes away while updates flow) leaves the server's generator suspended at a ``yield``: grpc
    closes it later, in another task and context. That is a cancelled call, not a server fault:
    counted UNKNOWN, any client could make the HoldemServerErrors alert fire just by leaving
    streams, and the caller layer's reset of its context variable failed in that context."""
    handler = grpc.method_handlers_generic_handler(
        SERVICE, {"Endless": grpc.unary_stream_rpc_method_handler(endless)}
    )
    endpoint = Endpoint(SERVICE, lambda server: server.add_generic_rpc_handlers((handler,)))
    cancelled_before = requests(SERVICE, "Endless", "CANCELLED")
    unknown_before = requests(SERVICE, "Endless", "UNKNOWN")
    streams_cut = 5
    failures: list[Any] = []

    async def run() -> None:
        asyncio.get_running_loop().set_exception_handler(lambda _, ctx: failures.append(ctx))
        running = await start_server("127.0.0.1:0", [endpoint])
        try:
            for _ in range(streams_cut):
                async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
                    endless_call: grpc.aio.UnaryStreamMultiCallable[bytes, bytes] = (
                        channel.unary_stream(f"/{SERVICE}/Endless")
                    )
                    call = endless_call(b"")
                    for _ in range(3):
                        await call.read()
                    call.cancel()
            for _ in range(500):
                cancelled = requests(SERVICE, "Endless", "CANCELLED") - cancelled_before
                unknown = requests(SERVICE, "Endless", "UNKNOWN") - unknown_before
                if cancelled + unknown >= streams_cut:
                    break
                await asyncio.sleep(0.01)
        finally:
            await running.stop(0)

    asyncio.run(run())
    assert requests(SERVICE, "Endless", "UNKNOWN") - unknown_before == 0
    assert requests(SERVICE, "Endless", "CANCELLED") - cancelled_before == streams_cut
    assert streams(SERVICE, "Endless") == 0
    assert failures == []


def test_split_method() -> None:
    assert metrics.split_method("/holdem.table.v1.TableService/SubmitAction") == (
        "holdem.table.v1.TableService",
        "SubmitAction",
    )


# ---- the endpoint -----------------------------------------------------------------------------


def test_the_endpoint_serves_the_registry_on_a_free_port() -> None:
    registry = CollectorRegistry()
    Counter("holdem_test_things_total", "things", registry=registry).inc(3)
    endpoint = start_metrics_endpoint("127.0.0.1:0", registry)
    try:
        assert endpoint.port > 0
        url = f"http://127.0.0.1:{endpoint.port}/metrics"
        with urllib.request.urlopen(url, timeout=5) as response:
            text = response.read().decode()
        assert "holdem_test_things_total 3.0" in text
    finally:
        endpoint.close()


def test_a_taken_metrics_port_is_a_clear_error() -> None:
    first = start_metrics_endpoint("127.0.0.1:0", CollectorRegistry())
    try:
        with pytest.raises(
            MetricsBindError, match=f"cannot serve metrics on 127.0.0.1:{first.port}"
        ):
            start_metrics_endpoint(f"127.0.0.1:{first.port}", CollectorRegistry())
    finally:
        first.close()
