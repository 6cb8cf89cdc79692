"""The server's layers (libs.platform.layers): composed in order, built once per method when it is
registered (not per call), around generated services, generic handlers, health and reflection."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2
from holdem.dealer.v1 import dealer_pb2, dealer_pb2_grpc

from libs.platform import wrapping
from libs.platform.logging import REQUEST_ID_HEADER
from libs.platform.server import Endpoint, start_server
from libs.platform.wrapping import Behaviour, Handler, Layer, wrap

pytestmark = pytest.mark.timeout(60)

DEALER = "holdem.dealer.v1.DealerService"
PROBE = "holdem.test.Probe"
HEALTH = "grpc.health.v1.Health"
DECK_ID = "0123456789abcdef0123456789abcdef"
CALLS = 25


class Dealer(dealer_pb2_grpc.DealerServiceServicer):
    async def StartDeck(
        self, request: dealer_pb2.StartDeckRequest, context: Any
    ) -> dealer_pb2.StartDeckResponse:
        raise NotImplementedError

    async def RevealSeed(
        self, request: dealer_pb2.RevealSeedRequest, context: Any
    ) -> dealer_pb2.RevealSeedResponse:
        raise NotImplementedError

    async def DealCards(
        self, request: dealer_pb2.DealCardsRequest, context: Any
    ) -> dealer_pb2.DealCardsResponse:
        return dealer_pb2.DealCardsResponse()


async def echo(request: bytes, context: Any) -> bytes:
    return request


def endpoints() -> list[Endpoint]:
    """A generated service (a generic handler and registered methods) and a generic-only one."""
    probe = grpc.method_handlers_generic_handler(
        PROBE, {"Echo": grpc.unary_unary_rpc_method_handler(echo)}
    )
    return [
        Endpoint(
            DEALER, lambda s: dealer_pb2_grpc.add_DealerServiceServicer_to_server(Dealer(), s)
        ),
        Endpoint(PROBE, lambda s: s.add_generic_rpc_handlers((probe,))),
    ]


def recording(name: str, seen: list[str]) -> Layer:
    def layer(method: str, handler: Handler) -> Handler:
        def unary(behaviour: Behaviour) -> Behaviour:
            async def recorded(request: Any, context: Any) -> Any:
                seen.append(f"{name} in")
                try:
                    return await behaviour(request, context)
                finally:
                    seen.append(f"{name} out")

            return recorded

        assert handler.unary_unary is not None
        return grpc.unary_unary_rpc_method_handler(unary(handler.unary_unary))

    return layer


def test_layers_wrap_in_order_the_first_outermost() -> None:
    seen: list[str] = []
    handler = wrap(
        [recording("outer", seen), recording("inner", seen)],
        "/x.S/M",
        grpc.unary_unary_rpc_method_handler(echo),
    )
    behaviour: Any = handler.unary_unary
    assert asyncio.run(behaviour(b"hi", None)) == b"hi"
    assert seen == ["outer in", "inner in", "inner out", "outer out"]


def list_services(channel: grpc.aio.Channel) -> Any:
    info: grpc.aio.StreamStreamMultiCallable[
        reflection_pb2.ServerReflectionRequest, reflection_pb2.ServerReflectionResponse
    ] = channel.stream_stream(
        f"/{reflection.SERVICE_NAME}/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )

    def requests() -> Iterator[reflection_pb2.ServerReflectionRequest]:
        yield reflection_pb2.ServerReflectionRequest(list_services="")
        yield reflection_pb2.ServerReflectionRequest(file_containing_symbol=DEALER)

    return info(requests())


def test_each_method_is_wrapped_once_however_often_it_is_called(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: Counter[str] = Counter()

    def counting(chain: Any, method: str, handler: Handler) -> Handler:
        built[method] += 1
        return wrap(chain, method, handler)

    monkeypatch.setattr(wrapping, "wrap", counting)

    async def run() -> tuple[Counter[str], Counter[str]]:
        running = await start_server("127.0.0.1:0", endpoints(), max_calls_per_caller=4)
        at_registration = Counter(built)
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
                health = health_pb2_grpc.HealthStub(channel)
                dealer = dealer_pb2_grpc.DealerServiceStub(channel)
                probe: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(
                    f"/{PROBE}/Echo"
                )
                for _ in range(CALLS):
                    await health.Check(health_pb2.HealthCheckRequest(service=DEALER))  # type: ignore[attr-defined]
                    await dealer.DealCards(
                        dealer_pb2.DealCardsRequest(deck_id=DECK_ID, indexes=[0])
                    )
                    assert await probe(b"hello") == b"hello"
                    async for _answer in list_services(channel):
                        pass
        finally:
            await running.stop(0)
        return at_registration, built

    at_registration, after_calls = asyncio.run(run())
    registered = {
        f"/{DEALER}/StartDeck",
        f"/{DEALER}/DealCards",
        f"/{DEALER}/RevealSeed",
        f"/{HEALTH}/Check",
        f"/{HEALTH}/Watch",
        f"/{HEALTH}/List",
        f"/{reflection.SERVICE_NAME}/ServerReflectionInfo",
    }
    # Generated code registers its methods both ways: wrapped once, when registered.
    assert at_registration == Counter(registered)
    # A generic-only handler cannot list its methods: each is wrapped at its first call.
    assert after_calls == Counter(registered | {f"/{PROBE}/Echo"})


def test_health_and_reflection_answer_through_the_layers() -> None:
    async def run() -> tuple[list[int], Any, list[Any]]:
        running = await start_server("127.0.0.1:0", endpoints(), max_calls_per_caller=1)
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
                health = health_pb2_grpc.HealthStub(channel)
                statuses = []
                for service in ("", DEALER, PROBE):
                    call = health.Check(health_pb2.HealthCheckRequest(service=service))  # type: ignore[attr-defined]
                    statuses.append((await call).status)
                trailing = await call.trailing_metadata()
                answers = [answer async for answer in list_services(channel)]
        finally:
            await running.stop(0)
        return statuses, trailing, answers

    statuses, trailing, (listed, described) = asyncio.run(run())
    assert statuses == [health_pb2.HealthCheckResponse.SERVING] * 3
    # health ran inside the logging layer: the request id came back
    assert REQUEST_ID_HEADER in dict(trailing or ())
    names = {service.name for service in listed.list_services_response.service}
    assert {DEALER, PROBE, HEALTH, reflection.SERVICE_NAME} <= names
    # what grpcurl needs to describe a method: the file that defines the service
    assert described.file_descriptor_response.file_descriptor_proto
