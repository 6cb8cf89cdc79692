"""The layers every method of a service's server runs in: :func:`standard_layers` lists the
platform's, outermost first: logging (request id, one line per call), metrics, error mapping
(statuses and ``x-error-code``), identity and caller policy, request validation, the optional
per-caller limit. How a layer wraps a method and how a server registers through them:
``libs.platform.wrapping``.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import Any

import grpc
import structlog
from google.protobuf.message import DecodeError, Message
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha import reflection

from libs.errors import InvalidArgument, PermissionDenied
from libs.platform.callers import (
    CALLER_NOT_ALLOWED,
    CALLER_SERVICE,
    Caller,
    CallerPolicy,
    caller_of,
    peer_address,
)
from libs.platform.errors import ERROR_CODE_HEADER, ErrorMapper
from libs.platform.identity import SERVICE_TOKEN_HEADER, ServiceVerifier
from libs.platform.limits import RETRY_AFTER_HEADER, CallerLimiter
from libs.platform.logging import REQUEST_ID_HEADER, get_logger, request_id_from_metadata
from libs.platform.metrics import service as metrics
from libs.platform.validation import MALFORMED_REQUEST
from libs.platform.validator import validate
from libs.platform.wrapping import (
    Behaviour,
    Handler,
    Layer,
    around,
    status_name,
    stream_of,
    wrap_behaviour,
)

HEALTH_SERVICE = health_pb2.DESCRIPTOR.services_by_name["Health"].full_name
# Probes and reflection are frequent and uninteresting: logged at debug only, never limited.
QUIET_PREFIXES = (f"/{HEALTH_SERVICE}/", f"/{reflection.SERVICE_NAME}/")

log = get_logger("libs.platform.server")


def logging_layer(method: str, handler: Handler) -> Handler:
    """Binds ``request_id`` (from ``x-request-id`` or generated) and ``rpc`` to every log line of
    the call, echoes the request id in trailing metadata and logs one line per finished call
    (health and reflection at debug)."""
    quiet = method.startswith(QUIET_PREFIXES)

    def begin(context: Any) -> tuple[Any, float]:
        request_id = request_id_from_metadata(context.invocation_metadata())
        context.set_trailing_metadata(((REQUEST_ID_HEADER, request_id),))
        # set and reset by their tokens (bound_contextvars also copies the whole context first)
        tokens = structlog.contextvars.bind_contextvars(request_id=request_id, rpc=method)
        return tokens, time.monotonic()

    def end(context: Any, begun: tuple[Any, float], failure: BaseException | None) -> None:
        tokens, started = begun
        status = status_name(context, failure)
        elapsed_ms = round((time.monotonic() - started) * 1000, 2)
        # ``log`` is built on its first use, after logging was configured (libs.platform.logging)
        if quiet:
            log.debug("rpc finished", status=status, duration_ms=elapsed_ms)
        else:
            log.info("rpc finished", status=status, duration_ms=elapsed_ms)
        try:
            structlog.contextvars.reset_contextvars(**tokens)
        except ValueError:  # a stream the client left is closed by grpc in another context
            structlog.contextvars.unbind_contextvars("request_id", "rpc")

    return around(handler, begin, end)


def metrics_layer(method: str, handler: Handler) -> Handler:
    """Records every finished call in ``holdem_grpc_server_requests_total`` (by method and
    status), the time to answer single-response calls in
    ``holdem_grpc_server_request_duration_seconds``, and open server streams in
    ``holdem_grpc_server_streams_in_flight`` (libs.platform.metrics.service). A method's series
    appear with its first call."""
    service, name = metrics.split_method(method)
    counters: dict[str, Any] = {}  # status -> its series, once created

    def count(context: Any, failure: BaseException | None) -> None:
        status = status_name(context, failure)
        counter = counters.get(status)
        if counter is None:
            counter = counters[status] = metrics.REQUESTS.labels(service, name, status)
        counter.inc()

    @functools.cache
    def in_flight() -> Any:
        return metrics.STREAMS_IN_FLIGHT.labels(service, name)

    @functools.cache
    def latency() -> Any:
        return metrics.LATENCY.labels(service, name)

    if handler.response_streaming:

        def opened(context: Any) -> None:
            in_flight().inc()

        def closed(context: Any, _: None, failure: BaseException | None) -> None:
            in_flight().dec()
            count(context, failure)

        return around(handler, opened, closed)

    def started(context: Any) -> float:
        return time.perf_counter()

    def answered(context: Any, since: float, failure: BaseException | None) -> None:
        latency().observe(time.perf_counter() - since)
        count(context, failure)

    return around(handler, started, answered)


def error_layer(mapper: ErrorMapper | None = None) -> Layer:
    """Maps exceptions escaping a servicer to a status (see :class:`ErrorMapper`). Domain errors
    keep their message and their stable code (trailing metadata ``x-error-code``) and their retry
    hint (``grpc-retry-pushback-ms``); unexpected exceptions are logged with their traceback and
    answered INTERNAL with a generic message."""
    mapper = mapper or ErrorMapper()

    async def abort(context: Any, exc: Exception) -> None:
        error = mapper.to_grpc(exc)
        if error.internal:
            log.error("unhandled exception", exc_info=exc)
        else:
            log.info(
                "call refused", status=error.status.name, code=error.code, reason=error.message
            )
        trailing = list(context.trailing_metadata() or ())
        if error.code:
            trailing.append((ERROR_CODE_HEADER, error.code))
        if error.retry_after_ms is not None:
            trailing.append((RETRY_AFTER_HEADER, str(error.retry_after_ms)))
        await context.abort(error.status, error.message, trailing_metadata=tuple(trailing))

    def unary(behaviour: Behaviour) -> Behaviour:
        async def mapped(request: Any, context: Any) -> Any:
            try:
                return await behaviour(request, context)
            except (grpc.aio.AbortError, asyncio.CancelledError):
                raise
            except Exception as exc:
                await abort(context, exc)

        return mapped

    def streaming(behaviour: Behaviour) -> Behaviour:
        async def mapped(request: Any, context: Any) -> AsyncIterator[Any]:
            try:
                async for item in stream_of(behaviour, request, context):
                    yield item
            except (grpc.aio.AbortError, asyncio.CancelledError):
                raise
            except Exception as exc:
                await abort(context, exc)

        return mapped

    def layer(method: str, handler: Handler) -> Handler:
        return wrap_behaviour(handler, unary, streaming)

    return layer


def identity_layer(
    verifier: ServiceVerifier | None,
    policy: CallerPolicy | None = None,
    services: Iterable[str] = (),
) -> Layer:
    """Verifies the caller's signed service token (``x-holdem-service``,
    :mod:`libs.platform.identity`) and binds the service it proves for the call, where
    :func:`libs.platform.callers.caller_of` finds it; a call without a valid token runs with no
    identity. A method of ``services`` that ``policy`` does not open to the caller is refused
    PERMISSION_DENIED (code ``CALLER_NOT_ALLOWED``) before its request is even validated."""
    restricted = frozenset(services)

    def identify(context: Any) -> str | None:
        if verifier is None:
            return None
        for key, value in context.invocation_metadata() or ():
            if key == SERVICE_TOKEN_HEADER and isinstance(value, str):
                return verifier.verify(value)
        return None

    def layer(method: str, handler: Handler) -> Handler:
        owner, _, rpc = method.lstrip("/").rpartition("/")
        # Health, reflection and every method of a server without a policy are open to anyone.
        checked = policy if policy is not None and owner in restricted else None

        def admit(context: Any) -> Any:
            service = identify(context)
            if checked is not None and not checked.allows(
                Caller(peer_address(str(context.peer() or "unknown")), service), rpc
            ):
                raise PermissionDenied(
                    CALLER_NOT_ALLOWED,
                    f"{rpc} is only for other holdem services; this caller has "
                    + ("no valid service token" if service is None else f"identity {service}"),
                )
            return CALLER_SERVICE.set(service)

        def release(context: Any, bound: Any, failure: BaseException | None) -> None:
            try:
                CALLER_SERVICE.reset(bound)
            except ValueError:
                # a stream the client left is closed by grpc in another task, whose context did
                # not make the token: nothing of the call's is bound there
                CALLER_SERVICE.set(None)

        return around(handler, admit, release)

    return layer


@dataclass(frozen=True, slots=True)
class _Undecodable:
    """Stands in for a request whose bytes are not a message of the method's type."""

    type_name: str


def _request_type_name(deserializer: Any) -> str:
    """The message type a generated deserializer (``Request.FromString``) parses."""
    owner = getattr(deserializer, "__self__", None)
    descriptor = getattr(owner, "DESCRIPTOR", None)
    return str(getattr(descriptor, "full_name", "request"))


def validation_layer(method: str, handler: Handler) -> Handler:
    """Checks every unary request against its proto's rules before the handler runs
    (:func:`libs.platform.validator.validate`): a bad one is refused INVALID_ARGUMENT naming the
    field (code ``INVALID_FIELD``), and bytes that do not decode as the request type are refused
    INVALID_ARGUMENT (code ``MALFORMED_REQUEST``) instead of gRPC's INTERNAL. Sits inside the
    error layer, which turns these refusals into statuses. (No method of ours takes a request
    stream; such methods pass through unchecked.)"""
    if handler.request_streaming:
        return handler
    decode = handler.request_deserializer
    type_name = _request_type_name(decode)

    def deserialize(raw: bytes) -> Any:
        if decode is None:
            return raw
        try:
            return decode(raw)
        except (DecodeError, ValueError, TypeError):
            return _Undecodable(type_name)

    def check(request: Any) -> None:
        if isinstance(request, _Undecodable):
            raise InvalidArgument(
                MALFORMED_REQUEST, f"the request is not a valid {request.type_name} message"
            )
        if isinstance(request, Message):
            validate(request)

    def unary(behaviour: Behaviour) -> Behaviour:
        async def checked(request: Any, context: Any) -> Any:
            check(request)
            return await behaviour(request, context)

        return checked

    def streaming(behaviour: Behaviour) -> Behaviour:
        async def checked(request: Any, context: Any) -> AsyncIterator[Any]:
            check(request)
            async for item in stream_of(behaviour, request, context):
                yield item

        return checked

    return wrap_behaviour(handler, unary, streaming, deserializer=deserialize)


def caller_limit_layer(limiter: CallerLimiter) -> Layer:
    """At most ``limiter.limit`` calls of one caller in flight (``libs.platform.limits``); a call
    beyond it is refused at once: RESOURCE_EXHAUSTED (raised into the error layer) with its
    retry hint. Health checks and reflection are never limited."""

    async def admit(context: Any) -> str:
        caller = caller_of(context).address
        if not limiter.try_acquire(caller):
            raise limiter.refused()
        return caller

    def unary(behaviour: Behaviour) -> Behaviour:
        async def limited(request: Any, context: Any) -> Any:
            caller = await admit(context)
            started = time.monotonic()
            try:
                return await behaviour(request, context)
            finally:
                limiter.release(caller, time.monotonic() - started)

        return limited

    def streaming(behaviour: Behaviour) -> Behaviour:
        async def limited(request: Any, context: Any) -> AsyncIterator[Any]:
            caller = await admit(context)
            started = time.monotonic()
            try:
                async for item in stream_of(behaviour, request, context):
                    yield item
            finally:
                limiter.release(caller, time.monotonic() - started)

        return limited

    def layer(method: str, handler: Handler) -> Handler:
        if method.startswith(QUIET_PREFIXES):
            return handler
        return wrap_behaviour(handler, unary, streaming)

    return layer


def standard_layers(
    *,
    error_mapper: ErrorMapper | None = None,
    verifier: ServiceVerifier | None = None,
    policy: CallerPolicy | None = None,
    services: Iterable[str] = (),
    max_calls_per_caller: int = 0,
) -> list[Layer]:
    """The platform's layers, outermost first (``max_calls_per_caller`` 0: no limit)."""
    layers: list[Layer] = [
        logging_layer,
        metrics_layer,
        error_layer(error_mapper),
        identity_layer(verifier, policy, services),
        validation_layer,
    ]
    if max_calls_per_caller > 0:
        layers.append(caller_limit_layer(CallerLimiter(max_calls_per_caller)))
    return layers
