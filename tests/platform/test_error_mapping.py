"""Domain errors raised by a servicer reach the client as the right status code and message, over a
real in-process grpc.aio server (libs.platform.layers around its methods)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
import pytest

from libs.errors import (
    AlreadyExists,
    Conflict,
    ErrorKind,
    InvalidArgument,
    NotFound,
    NotImplementedYet,
    PermissionDenied,
    PreconditionFailed,
    Unauthenticated,
)
from libs.platform.errors import ERROR_CODE_HEADER, INTERNAL_MESSAGE, ErrorMapper
from libs.platform.logging import REQUEST_ID_HEADER
from libs.platform.server import Endpoint, start_server

pytestmark = pytest.mark.timeout(60)


# Shaped like libs.poker.errors (not imported: the platform must not depend on the engine).
class PokerError(Exception):
    kind = "failed_precondition"

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class IllegalAction(PokerError):
    pass


class InvalidCommand(PokerError):
    kind = "invalid_argument"


class KindlessEngineError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


CASES: dict[str, Callable[[], BaseException]] = {
    "invalid": lambda: InvalidArgument("bad_amount", "amount must be positive"),
    "precondition": lambda: PreconditionFailed("hand_over", "the hand is over"),
    "permission": lambda: PermissionDenied("not_seated", "you are not seated here"),
    "conflict": lambda: Conflict("stale_sequence", "the table moved on; retry"),
    "not_found": lambda: NotFound("table_not_found", "no table t1"),
    "exists": lambda: AlreadyExists("username_taken", "username 'bob' is taken"),
    "unauthenticated": lambda: Unauthenticated("invalid_token", "unknown or expired token"),
    "unimplemented": lambda: NotImplementedYet("Svc.Method", "a later issue"),
    "illegal_action": lambda: IllegalAction("NOT_YOUR_TURN", "seat 3 is to act"),
    "invalid_command": lambda: InvalidCommand("DUPLICATE_CARD", "As dealt twice"),
    "registered_type": lambda: KindlessEngineError("WHATEVER", "refused by a registered type"),
    "registered_code": lambda: IllegalAction("UNKNOWN_PLAYER", "no player p9"),
    "bug": lambda: RuntimeError("secret internals: password=hunter2"),
    "key_error": lambda: KeyError("x"),
}

EXPECTED: list[tuple[str, grpc.StatusCode, str, str | None]] = [
    ("invalid", grpc.StatusCode.INVALID_ARGUMENT, "amount must be positive", "bad_amount"),
    ("precondition", grpc.StatusCode.FAILED_PRECONDITION, "the hand is over", "hand_over"),
    ("permission", grpc.StatusCode.PERMISSION_DENIED, "you are not seated here", "not_seated"),
    ("conflict", grpc.StatusCode.ABORTED, "the table moved on; retry", "stale_sequence"),
    ("not_found", grpc.StatusCode.NOT_FOUND, "no table t1", "table_not_found"),
    ("exists", grpc.StatusCode.ALREADY_EXISTS, "username 'bob' is taken", "username_taken"),
    ("unauthenticated", grpc.StatusCode.UNAUTHENTICATED, "unknown or expired token", None),
    ("unimplemented", grpc.StatusCode.UNIMPLEMENTED, "Svc.Method is not implemented yet", None),
    ("illegal_action", grpc.StatusCode.FAILED_PRECONDITION, "seat 3 is to act", "NOT_YOUR_TURN"),
    ("invalid_command", grpc.StatusCode.INVALID_ARGUMENT, "As dealt twice", "DUPLICATE_CARD"),
    ("registered_type", grpc.StatusCode.INVALID_ARGUMENT, "refused by a registered type", None),
    ("registered_code", grpc.StatusCode.NOT_FOUND, "no player p9", "UNKNOWN_PLAYER"),
    ("bug", grpc.StatusCode.INTERNAL, INTERNAL_MESSAGE, None),
    ("key_error", grpc.StatusCode.INTERNAL, INTERNAL_MESSAGE, None),
]

SERVICE = "holdem.test.v1.Errors"


def mapper() -> ErrorMapper:
    m = ErrorMapper()
    m.register_type("KindlessEngineError", ErrorKind.INVALID_ARGUMENT)
    m.register_code("UNKNOWN_PLAYER", ErrorKind.NOT_FOUND)
    return m


async def raise_case(request: bytes, context: Any) -> bytes:
    raise CASES[request.decode()]()


async def stream_then_raise(request: bytes, context: Any) -> AsyncIterator[bytes]:
    yield b"first"
    raise CASES[request.decode()]()


async def echo(request: bytes, context: Any) -> bytes:
    return request


def endpoint() -> Endpoint:
    handler = grpc.method_handlers_generic_handler(
        SERVICE,
        {
            "Raise": grpc.unary_unary_rpc_method_handler(raise_case),
            "Stream": grpc.unary_stream_rpc_method_handler(stream_then_raise),
            "Echo": grpc.unary_unary_rpc_method_handler(echo),
        },
    )
    return Endpoint(SERVICE, lambda server: server.add_generic_rpc_handlers((handler,)))


async def call_all() -> dict[str, grpc.aio.AioRpcError]:
    running = await start_server("127.0.0.1:0", [endpoint()], error_mapper=mapper())
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            raise_: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(
                f"/{SERVICE}/Raise"
            )
            errors = {}
            for case in CASES:
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await raise_(case.encode(), timeout=5)
                errors[case] = caught.value
            return errors
    finally:
        await running.stop(0)


@pytest.fixture(scope="module")
def errors() -> dict[str, grpc.aio.AioRpcError]:
    return asyncio.run(call_all())


@pytest.mark.parametrize(("case", "status", "message", "code"), EXPECTED)
def test_domain_error_maps_to_status(
    errors: dict[str, grpc.aio.AioRpcError],
    case: str,
    status: grpc.StatusCode,
    message: str,
    code: str | None,
) -> None:
    error = errors[case]
    assert error.code() == status
    assert message in (error.details() or "")
    trailing = dict(error.trailing_metadata() or ())
    if code is not None:
        assert trailing[ERROR_CODE_HEADER] == code


def test_unexpected_exception_does_not_leak_details(
    errors: dict[str, grpc.aio.AioRpcError],
) -> None:
    assert "hunter2" not in (errors["bug"].details() or "")
    assert ERROR_CODE_HEADER not in dict(errors["bug"].trailing_metadata() or ())


def test_every_response_carries_a_request_id(errors: dict[str, grpc.aio.AioRpcError]) -> None:
    ids = {dict(e.trailing_metadata() or ())[REQUEST_ID_HEADER] for e in errors.values()}
    assert len(ids) == len(errors)


def test_error_in_a_stream_ends_it_with_the_mapped_status() -> None:
    async def run() -> tuple[list[bytes], grpc.StatusCode]:
        running = await start_server("127.0.0.1:0", [endpoint()], error_mapper=mapper())
        received: list[bytes] = []
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
                stream: grpc.aio.UnaryStreamMultiCallable[bytes, bytes] = channel.unary_stream(
                    f"/{SERVICE}/Stream"
                )
                call = stream(b"illegal_action", timeout=5)
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    async for item in call:
                        received.append(item)
                return received, caught.value.code()
        finally:
            await running.stop(0)

    received, status = asyncio.run(run())
    assert received == [b"first"]
    assert status == grpc.StatusCode.FAILED_PRECONDITION


def test_caller_request_id_is_echoed() -> None:
    async def run() -> str:
        running = await start_server("127.0.0.1:0", [endpoint()])
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
                echo: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(
                    f"/{SERVICE}/Echo"
                )
                call = echo(b"hi", metadata=((REQUEST_ID_HEADER, "req-42"),), timeout=5)
                assert await call == b"hi"
                return str(dict(await call.trailing_metadata())[REQUEST_ID_HEADER])
        finally:
            await running.stop(0)

    assert asyncio.run(run()) == "req-42"


def test_mapper_ignores_objects_whose_code_is_not_a_string() -> None:
    class Weird(Exception):
        code = 7
        message = "x"

    assert ErrorMapper().kind_of(Weird()) is None
    assert ErrorMapper().to_grpc(Weird()).status == grpc.StatusCode.INTERNAL


def test_registered_code_overrides_declared_kind() -> None:
    m = ErrorMapper()
    m.register_code("NOT_YOUR_TURN", ErrorKind.PERMISSION)
    assert m.kind_of(IllegalAction("NOT_YOUR_TURN", "x")) is ErrorKind.PERMISSION
    assert m.kind_of(IllegalAction("CAP_REACHED", "x")) is ErrorKind.PRECONDITION


def test_unknown_coded_error_defaults_to_failed_precondition() -> None:
    assert ErrorMapper().kind_of(KindlessEngineError("X", "y")) is ErrorKind.PRECONDITION


def test_a_downstream_refusal_passed_through_keeps_its_error_code() -> None:
    """The gateway passes a lobby or table refusal on: with its status and message, and with its
    stable code (it used to be dropped, so a client could not tell TABLE_CLOSED apart)."""
    refused = grpc.aio.AioRpcError(
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.aio.Metadata(),
        grpc.aio.Metadata((ERROR_CODE_HEADER, "TABLE_CLOSED")),
        details="this table is closed",
    )
    mapped = ErrorMapper().to_grpc(refused)
    assert (mapped.status, mapped.message, mapped.code) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "this table is closed",
        "TABLE_CLOSED",
    )
    bare = grpc.aio.AioRpcError(
        grpc.StatusCode.NOT_FOUND, grpc.aio.Metadata(), grpc.aio.Metadata(), details="no such"
    )
    assert ErrorMapper().to_grpc(bare).code is None
