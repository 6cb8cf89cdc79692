"""libs.platform.unavailable: a dependency failing under a call (NATS, JetStream, Redis, a
timeout) ends it UNAVAILABLE with a short fixed message, unary and streaming alike; domain
errors and anything else keep what they were; a wrapped stream's own clean-up runs at once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

import nats.errors
import pytest
from nats.js.errors import ServiceUnavailableError
from redis.exceptions import ConnectionError as RedisConnectionError

from libs.errors import NotFound, Unavailable
from libs.eventstore import ConcurrencyConflict
from libs.platform.errors import ErrorMapper
from libs.platform.unavailable import DEPENDENCY_DOWN, unavailable_on_failure

FAILURES = (
    nats.errors.TimeoutError(),
    nats.errors.NoRespondersError(),
    nats.errors.ConnectionClosedError(),
    ServiceUnavailableError(),
    RedisConnectionError("gone"),
    TimeoutError(),
)


@unavailable_on_failure(("Call", "Stream"), "the store is not answering: retry")
class Servicer:
    def __init__(self, failure: BaseException) -> None:
        self.failure = failure
        self.closed = False

    async def Call(self, request: int, context: object) -> int:
        raise self.failure

    async def Stream(self, request: int, context: object) -> AsyncGenerator[int, None]:
        try:
            yield request
            raise self.failure
        finally:
            self.closed = True


def _call(servicer: Servicer) -> BaseException:
    with pytest.raises(BaseException) as caught:
        asyncio.run(servicer.Call(1, None))
    return caught.value


def _stream(servicer: Servicer) -> tuple[list[int], BaseException]:
    got: list[int] = []

    async def run() -> None:
        async for item in servicer.Stream(7, None):
            got.append(item)

    with pytest.raises(BaseException) as caught:
        asyncio.run(run())
    return got, caught.value


@pytest.mark.parametrize("failure", FAILURES, ids=lambda f: type(f).__name__)
def test_a_failing_dependency_is_unavailable_with_a_short_message(failure: BaseException) -> None:
    for error in (_call(Servicer(failure)), _stream(Servicer(failure))[1]):
        assert isinstance(error, Unavailable)
        assert error.code == DEPENDENCY_DOWN
        assert error.message == "the store is not answering: retry"
        assert ErrorMapper().to_grpc(error).status.name == "UNAVAILABLE"


def test_a_stream_keeps_what_it_sent_and_cleans_up() -> None:
    servicer = Servicer(nats.errors.TimeoutError())
    got, error = _stream(servicer)
    assert got == [7] and isinstance(error, Unavailable) and servicer.closed


def test_a_stream_closed_by_its_reader_runs_its_clean_up_at_once() -> None:
    servicer = Servicer(nats.errors.TimeoutError())

    async def run() -> None:
        stream = servicer.Stream(7, None)
        assert await anext(stream) == 7
        await stream.aclose()  # the client left after one update

    asyncio.run(run())
    assert servicer.closed


@pytest.mark.parametrize(
    "failure",
    [NotFound("TABLE_NOT_FOUND", "no such table"), ConcurrencyConflict("t", 1, 2), ValueError()],
    ids=lambda f: type(f).__name__,
)
def test_other_errors_pass_unchanged(failure: BaseException) -> None:
    assert _call(Servicer(failure)) is failure
    assert _stream(Servicer(failure))[1] is failure
