"""The server's guards over real gRPC (in process, free loopback port): request validation before
the handler, undecodable bytes, and the per-caller concurrency limit; callers and their policy."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from holdem.dealer.v1 import dealer_pb2, dealer_pb2_grpc

from libs.errors import PermissionDenied
from libs.platform.callers import (
    AnyCaller,
    Caller,
    OnlyServices,
    authorize,
    caller_of,
    peer_address,
)
from libs.platform.errors import ERROR_CODE_HEADER
from libs.platform.limits import RETRY_AFTER_HEADER, TOO_MANY_CALLS, CallerLimiter
from libs.platform.server import Endpoint, start_server

pytestmark = pytest.mark.timeout(60)

T = TypeVar("T")
DECK_ID = "0123456789abcdef0123456789abcdef"
SERVICE = "holdem.dealer.v1.DealerService"


class RecordingDealer(dealer_pb2_grpc.DealerServiceServicer):
    """Records the requests its handlers saw; RevealSeed waits until ``release`` is set."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.release = asyncio.Event()
        self.waiting = 0

    async def StartDeck(
        self, request: dealer_pb2.StartDeckRequest, context: Any
    ) -> dealer_pb2.StartDeckResponse:
        raise NotImplementedError

    async def DealCards(
        self, request: dealer_pb2.DealCardsRequest, context: Any
    ) -> dealer_pb2.DealCardsResponse:
        self.seen.append(request.deck_id)
        return dealer_pb2.DealCardsResponse()

    async def RevealSeed(
        self, request: dealer_pb2.RevealSeedRequest, context: Any
    ) -> dealer_pb2.RevealSeedResponse:
        self.seen.append(request.deck_id)
        self.waiting += 1
        await self.release.wait()
        self.waiting -= 1
        return dealer_pb2.RevealSeedResponse(seed="00")


def serve(
    servicer: RecordingDealer,
    body: Callable[[grpc.aio.Channel], Awaitable[T]],
    max_calls_per_caller: int = 0,
) -> T:
    async def run() -> T:
        endpoint = Endpoint(
            SERVICE, lambda s: dealer_pb2_grpc.add_DealerServiceServicer_to_server(servicer, s)
        )
        running = await start_server(
            "127.0.0.1:0", [endpoint], max_calls_per_caller=max_calls_per_caller
        )
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
                return await body(channel)
        finally:
            await running.stop(0)

    return asyncio.run(run())


def code_of(error: grpc.aio.AioRpcError) -> str | None:
    return dict(error.trailing_metadata() or ()).get(ERROR_CODE_HEADER)


def test_a_bad_request_is_refused_before_the_handler_runs() -> None:
    dealer = RecordingDealer()

    async def body(channel: grpc.aio.Channel) -> grpc.aio.AioRpcError:
        stub = dealer_pb2_grpc.DealerServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.DealCards(
                dealer_pb2.DealCardsRequest(deck_id="$JS." + "Z" * 100_000, indexes=[0, 0]),
                timeout=5,
            )
        await stub.DealCards(dealer_pb2.DealCardsRequest(deck_id=DECK_ID, indexes=[0]))
        return caught.value

    error = serve(dealer, body)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert code_of(error) == "INVALID_FIELD"
    details = error.details() or ""
    assert (
        "deck_id: at most 32 characters" in details and "indexes: items must be distinct" in details
    )
    assert len(details) < 300
    assert dealer.seen == [DECK_ID]  # only the valid call reached the handler


@pytest.mark.parametrize("payload", [b"\xff\xff\xff\xff", b"\x0a\x05ab", b"\x0a\x02\xc3\x28"])
def test_bytes_that_are_not_the_request_type_are_invalid_argument_not_internal(
    payload: bytes,
) -> None:
    dealer = RecordingDealer()

    async def body(channel: grpc.aio.Channel) -> grpc.aio.AioRpcError:
        raw: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(
            f"/{SERVICE}/DealCards"
        )
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await raw(payload, timeout=5)
        return caught.value

    error = serve(dealer, body)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert code_of(error) == "MALFORMED_REQUEST"
    assert "holdem.dealer.v1.DealCardsRequest" in (error.details() or "")
    assert dealer.seen == []


def test_a_caller_over_its_limit_is_told_to_retry_and_health_is_never_limited() -> None:
    dealer = RecordingDealer()
    reveal = dealer_pb2.RevealSeedRequest(deck_id=DECK_ID)

    async def body(channel: grpc.aio.Channel) -> tuple[grpc.aio.AioRpcError, int, int]:
        stub = dealer_pb2_grpc.DealerServiceStub(channel)
        first = [asyncio.ensure_future(stub.RevealSeed(reveal, timeout=10)) for _ in range(2)]
        while dealer.waiting < 2:
            await asyncio.sleep(0.01)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.RevealSeed(reveal, timeout=5)
        health = health_pb2_grpc.HealthStub(channel)
        checked = await health.Check(health_pb2.HealthCheckRequest(), timeout=5)  # type: ignore[attr-defined]
        status = int(checked.status)
        dealer.release.set()
        await asyncio.gather(*first)
        # Both calls finished: the caller has room again.
        await stub.RevealSeed(reveal, timeout=5)
        return caught.value, status, len(dealer.seen)

    error, status, handled = serve(dealer, body, max_calls_per_caller=2)
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    trailing = dict(error.trailing_metadata() or ())
    assert trailing[ERROR_CODE_HEADER] == TOO_MANY_CALLS
    assert int(trailing[RETRY_AFTER_HEADER]) >= 10
    assert "retry in" in (error.details() or "")
    assert status == health_pb2.HealthCheckResponse.SERVING
    assert handled == 3  # the refused call never reached the handler


def test_the_limiter_counts_each_caller_apart() -> None:
    limiter = CallerLimiter(limit=2)
    assert limiter.try_acquire("ipv4:10.0.0.1")
    assert limiter.try_acquire("ipv4:10.0.0.1")
    assert not limiter.try_acquire("ipv4:10.0.0.1")
    assert limiter.try_acquire("ipv4:10.0.0.2")
    limiter.release("ipv4:10.0.0.1", 0.2)
    assert limiter.in_flight("ipv4:10.0.0.1") == 1
    assert limiter.try_acquire("ipv4:10.0.0.1")
    with pytest.raises(ValueError):
        CallerLimiter(limit=0)


def test_the_retry_hint_follows_how_long_calls_take() -> None:
    limiter = CallerLimiter(limit=1)
    for _ in range(30):
        assert limiter.try_acquire("c")
        limiter.release("c", 0.4)
    assert 350 <= limiter.retry_after_ms() <= 400
    for _ in range(50):
        assert limiter.try_acquire("c")
        limiter.release("c", 0.0)
    assert limiter.retry_after_ms() == 10  # never below 10 ms


@pytest.mark.parametrize(
    ("peer", "address"),
    [
        ("ipv4:127.0.0.1:53211", "ipv4:127.0.0.1"),
        ("ipv6:[::1]:40000", "ipv6:[::1]"),
        ("unix:/tmp/grpc.sock", "unix:/tmp/grpc.sock"),
        ("ipv4:10.1.2.3", "ipv4:10.1.2.3"),
        # one IPv6 client holds a /64 (2**64 addresses): per-address limits count the /64
        ("ipv6:[2001:db8:1:2:aaaa::1]:443", "ipv6:[2001:db8:1:2::]/64"),
        ("ipv6:[2001:db8:1:2:ffff:ffff:ffff:fffe]:5", "ipv6:[2001:db8:1:2::]/64"),
        ("ipv6:[2001:db8:1:3::1]:5", "ipv6:[2001:db8:1:3::]/64"),
        ("ipv6:[fe80::1%eth0]:5", "ipv6:[fe80::]/64"),
        # an IPv4 client on a dual-stack listener is its IPv4 address
        ("ipv6:[::ffff:192.0.2.7]:5", "ipv4:192.0.2.7"),
    ],
)
def test_a_caller_is_its_address_without_the_port(peer: str, address: str) -> None:
    assert peer_address(peer) == address

    class Context:
        def peer(self) -> str:
            return peer

    assert caller_of(Context()) == Caller(address)


def test_caller_policies() -> None:
    class Context:
        def peer(self) -> str:
            return "ipv4:10.0.0.9:4000"

    assert authorize(AnyCaller(), Context(), "RevealSeed") == Caller("ipv4:10.0.0.9")
    table_only = OnlyServices({"RevealSeed": {"table"}})
    assert table_only.allows(Caller("x", service="table"), "RevealSeed")
    assert not table_only.allows(Caller("x", service="gateway"), "RevealSeed")
    assert table_only.allows(Caller("x"), "StartDeck")
    with pytest.raises(PermissionDenied):
        authorize(table_only, Context(), "RevealSeed")
