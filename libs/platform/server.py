"""The one way to run a service: a ``grpc.aio`` server with the standard health service (SERVING
once ready, NOT_SERVING while draining), reflection (so ``grpcurl`` works), logging, metrics,
error-mapping and request-validation interceptors (every request is checked against its proto's
rules before a handler sees it: ``libs.platform.validation``), an optional per-caller concurrency
limit, a Prometheus endpoint (``HOLDEM_METRICS_LISTEN``), and graceful shutdown on
SIGTERM/SIGINT: stop accepting calls, give in-flight calls
``HOLDEM_SHUTDOWN_GRACE_SECONDS`` to finish, exit 0.

A service's ``__main__`` is::

    SPEC = ServiceSpec(name="lobby", variables=VARS, load_config=load_config, build=build)
    def main() -> int:
        return run_service(SPEC)
"""

from __future__ import annotations

import asyncio
import inspect
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

import grpc
import structlog
from google.protobuf.message import DecodeError, Message
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection

from libs.platform.callers import (
    CALLER_NOT_ALLOWED,
    CALLER_SERVICE,
    AnyCaller,
    Caller,
    CallerPolicy,
    caller_of,
    peer_address,
)
from libs.platform.config import ConfigError, PlatformConfig, Var, documentation, markdown_table
from libs.platform.errors import ErrorMapper, InvalidArgument, PermissionDenied
from libs.platform.identity import SERVICE_TOKEN_HEADER, ServiceVerifier
from libs.platform.limits import RETRY_AFTER_HEADER, TOO_MANY_CALLS, CallerLimiter
from libs.platform.logging import (
    REQUEST_ID_HEADER,
    configure_logging,
    get_logger,
    request_id_from_metadata,
)
from libs.platform.metrics import service as metrics
from libs.platform.metrics.endpoint import MetricsBindError, start_metrics_endpoint
from libs.platform.tasks import stop_tasks
from libs.platform.tls import server_credentials
from libs.platform.validation import MALFORMED_REQUEST, validate

ERROR_CODE_HEADER = "x-error-code"
HEALTH_SERVICE = health_pb2.DESCRIPTOR.services_by_name["Health"].full_name
# Probes and reflection are frequent and uninteresting: logged at debug only.
#: Services whose callers are people's clients: with TLS they ask for no client certificate (every
#: other service requires one issued by the services' CA: libs.platform.tls).
PUBLIC_SERVICES = frozenset({"gateway"})
_QUIET_PREFIXES = (f"/{HEALTH_SERVICE}/", f"/{reflection.SERVICE_NAME}/")

#: How servicers annotate their context parameter.
Context = grpc.aio.ServicerContext[Any, Any]
Behaviour = Callable[..., Any]  # (request or request iterator, context) -> response(s)
log = get_logger("libs.platform.server")


# ---- interceptors -----------------------------------------------------------------------------


def _wrap_handler(
    handler: grpc.RpcMethodHandler[Any, Any],
    unary: Callable[[Behaviour], Behaviour],
    streaming: Callable[[Behaviour], Behaviour],
    deserializer: Callable[[bytes], Any] | None = None,
) -> grpc.RpcMethodHandler[Any, Any]:
    """The same handler with its behaviour wrapped (``unary`` for single responses), and its
    request deserializer replaced when ``deserializer`` is given."""
    des, ser = deserializer or handler.request_deserializer, handler.response_serializer
    if handler.unary_unary is not None:
        return grpc.unary_unary_rpc_method_handler(unary(handler.unary_unary), des, ser)
    if handler.stream_unary is not None:
        return grpc.stream_unary_rpc_method_handler(unary(handler.stream_unary), des, ser)
    if handler.unary_stream is not None:
        return grpc.unary_stream_rpc_method_handler(streaming(handler.unary_stream), des, ser)
    if handler.stream_stream is not None:
        return grpc.stream_stream_rpc_method_handler(streaming(handler.stream_stream), des, ser)
    return handler


async def _stream_of(behaviour: Behaviour, request: Any, context: Any) -> AsyncIterator[Any]:
    """Iterate a streaming behaviour written either as an async generator or with context.write."""
    result = behaviour(request, context)
    if inspect.isasyncgen(result) or hasattr(result, "__aiter__"):
        async for item in result:
            yield item
    elif inspect.isawaitable(result):
        await result


def _status_name(context: Any, failure: BaseException | None) -> str:
    """The status a finished call ends with: the one set on its context (abort, set_code), else
    OK when it returned, CANCELLED when it was cancelled, UNKNOWN when an exception escaped."""
    code = context.code()
    if code is not None:
        return str(getattr(code, "name", code))
    if failure is None:
        return "OK"
    if isinstance(failure, asyncio.CancelledError):
        return "CANCELLED"
    return "UNKNOWN"


class LoggingInterceptor(grpc.aio.ServerInterceptor):
    """Binds ``request_id`` (from ``x-request-id`` or generated) and ``rpc`` to every log line of
    the call, echoes the request id in trailing metadata and logs one line per finished call."""

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        method = handler_call_details.method
        quiet = method.startswith(_QUIET_PREFIXES)

        def begin(context: Any) -> tuple[Any, float]:
            request_id = request_id_from_metadata(context.invocation_metadata())
            context.set_trailing_metadata(((REQUEST_ID_HEADER, request_id),))
            bound = structlog.contextvars.bound_contextvars(request_id=request_id, rpc=method)
            bound.__enter__()
            return bound, time.monotonic()

        def end(context: Any, bound: Any, started: float, failure: BaseException | None) -> None:
            status = _status_name(context, failure)
            elapsed_ms = round((time.monotonic() - started) * 1000, 2)
            if quiet:
                log.debug("rpc finished", status=status, duration_ms=elapsed_ms)
            else:
                log.info("rpc finished", status=status, duration_ms=elapsed_ms)
            bound.__exit__(None, None, None)

        def unary(behaviour: Behaviour) -> Behaviour:
            async def logged(request: Any, context: Any) -> Any:
                bound, started = begin(context)
                failure: BaseException | None = None
                try:
                    return await behaviour(request, context)
                except BaseException as exc:
                    failure = exc
                    raise
                finally:
                    end(context, bound, started, failure)

            return logged

        def streaming(behaviour: Behaviour) -> Behaviour:
            async def logged(request: Any, context: Any) -> AsyncIterator[Any]:
                bound, started = begin(context)
                failure: BaseException | None = None
                try:
                    async for item in _stream_of(behaviour, request, context):
                        yield item
                except BaseException as exc:
                    failure = exc
                    raise
                finally:
                    end(context, bound, started, failure)

            return logged

        return _wrap_handler(handler, unary, streaming)


class MetricsInterceptor(grpc.aio.ServerInterceptor):
    """Records every finished call in ``holdem_grpc_server_requests_total`` (by method and
    status), the time to answer single-response calls in
    ``holdem_grpc_server_request_duration_seconds``, and open server streams in
    ``holdem_grpc_server_streams_in_flight`` (see libs.platform.metrics.service)."""

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        service, method = metrics.split_method(handler_call_details.method)

        def finished(context: Any, failure: BaseException | None) -> None:
            metrics.REQUESTS.labels(service, method, _status_name(context, failure)).inc()

        def unary(behaviour: Behaviour) -> Behaviour:
            latency = metrics.LATENCY.labels(service, method)

            async def measured(request: Any, context: Any) -> Any:
                started = time.perf_counter()
                failure: BaseException | None = None
                try:
                    return await behaviour(request, context)
                except BaseException as exc:
                    failure = exc
                    raise
                finally:
                    latency.observe(time.perf_counter() - started)
                    finished(context, failure)

            return measured

        def streaming(behaviour: Behaviour) -> Behaviour:
            in_flight = metrics.STREAMS_IN_FLIGHT.labels(service, method)

            async def measured(request: Any, context: Any) -> AsyncIterator[Any]:
                in_flight.inc()
                failure: BaseException | None = None
                try:
                    async for item in _stream_of(behaviour, request, context):
                        yield item
                except BaseException as exc:
                    failure = exc
                    raise
                finally:
                    in_flight.dec()
                    finished(context, failure)

            return measured

        return _wrap_handler(handler, unary, streaming)


class ErrorInterceptor(grpc.aio.ServerInterceptor):
    """Maps exceptions escaping a servicer to a status (see :class:`ErrorMapper`). Domain errors
    keep their message and their stable code (trailing metadata ``x-error-code``); unexpected
    exceptions are logged with their traceback and answered INTERNAL with a generic message."""

    def __init__(self, mapper: ErrorMapper | None = None) -> None:
        self.mapper = mapper or ErrorMapper()

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None

        def unary(behaviour: Behaviour) -> Behaviour:
            async def mapped(request: Any, context: Any) -> Any:
                try:
                    return await behaviour(request, context)
                except (grpc.aio.AbortError, asyncio.CancelledError):
                    raise
                except Exception as exc:
                    await self._abort(context, exc)

            return mapped

        def streaming(behaviour: Behaviour) -> Behaviour:
            async def mapped(request: Any, context: Any) -> AsyncIterator[Any]:
                try:
                    async for item in _stream_of(behaviour, request, context):
                        yield item
                except (grpc.aio.AbortError, asyncio.CancelledError):
                    raise
                except Exception as exc:
                    await self._abort(context, exc)

            return mapped

        return _wrap_handler(handler, unary, streaming)

    async def _abort(self, context: Any, exc: Exception) -> None:
        error = self.mapper.to_grpc(exc)
        if error.internal:
            log.error("unhandled exception", exc_info=exc)
        else:
            log.info(
                "call refused", status=error.status.name, code=error.code, reason=error.message
            )
        trailing = list(context.trailing_metadata() or ())
        if error.code:
            trailing.append((ERROR_CODE_HEADER, error.code))
        await context.abort(error.status, error.message, trailing_metadata=tuple(trailing))


@dataclass(frozen=True, slots=True)
class _Undecodable:
    """Stands in for a request whose bytes are not a message of the method's type."""

    type_name: str


class ValidationInterceptor(grpc.aio.ServerInterceptor):
    """Checks every unary request against its proto's rules before the handler runs
    (:func:`libs.platform.validation.validate`): a bad one is refused INVALID_ARGUMENT naming the
    field (code ``INVALID_FIELD``), and bytes that do not decode as the request type are refused
    INVALID_ARGUMENT (code ``MALFORMED_REQUEST``) instead of gRPC's INTERNAL. Sits inside the error
    interceptor, which turns these refusals into statuses. (No method of ours takes a request
    stream; such methods pass through unchecked.)"""

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
        if handler is None or handler.request_streaming:
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
                async for item in _stream_of(behaviour, request, context):
                    yield item

            return checked

        return _wrap_handler(handler, unary, streaming, deserializer=deserialize)


def _request_type_name(deserializer: Any) -> str:
    """The message type a generated deserializer (``Request.FromString``) parses."""
    owner = getattr(deserializer, "__self__", None)
    descriptor = getattr(owner, "DESCRIPTOR", None)
    return str(getattr(descriptor, "full_name", "request"))


class IdentityInterceptor(grpc.aio.ServerInterceptor):
    """Verifies the caller's signed service token (``x-holdem-service``,
    :mod:`libs.platform.identity`) and binds the service it proves for the call, where
    :func:`libs.platform.callers.caller_of` finds it; a call without a valid token runs with no
    identity. A method of ``services`` that ``policy`` does not open to the caller is refused
    PERMISSION_DENIED (code ``CALLER_NOT_ALLOWED``) before its request is even validated."""

    def __init__(
        self,
        verifier: ServiceVerifier | None,
        policy: CallerPolicy | None = None,
        services: Sequence[str] = (),
    ) -> None:
        self.verifier = verifier
        self.policy = policy or AnyCaller()
        self.services = frozenset(services)

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        token: str | None = None
        for key, value in handler_call_details.invocation_metadata or ():
            if key == SERVICE_TOKEN_HEADER and isinstance(value, str):
                token = value
                break
        service = None if self.verifier is None else self.verifier.verify(token)
        owner, _, rpc = handler_call_details.method.lstrip("/").rpartition("/")
        policy = self.policy if owner in self.services else AnyCaller()

        def admit(context: Any) -> None:
            caller = Caller(peer_address(str(context.peer() or "unknown")), service)
            if not policy.allows(caller, rpc):
                raise PermissionDenied(
                    CALLER_NOT_ALLOWED,
                    f"{rpc} is only for other holdem services; this caller has "
                    + ("no valid service token" if service is None else f"identity {service}"),
                )

        def unary(behaviour: Behaviour) -> Behaviour:
            async def identified(request: Any, context: Any) -> Any:
                admit(context)
                bound = CALLER_SERVICE.set(service)
                try:
                    return await behaviour(request, context)
                finally:
                    CALLER_SERVICE.reset(bound)

            return identified

        def streaming(behaviour: Behaviour) -> Behaviour:
            async def identified(request: Any, context: Any) -> AsyncIterator[Any]:
                admit(context)
                bound = CALLER_SERVICE.set(service)
                try:
                    async for item in _stream_of(behaviour, request, context):
                        yield item
                finally:
                    CALLER_SERVICE.reset(bound)

            return identified

        return _wrap_handler(handler, unary, streaming)


class CallerLimitInterceptor(grpc.aio.ServerInterceptor):
    """At most ``limiter.limit`` calls of one caller in flight (``libs.platform.limits``); a call
    beyond it is answered RESOURCE_EXHAUSTED at once, with trailing metadata
    ``grpc-retry-pushback-ms``. Health checks and reflection are never limited."""

    def __init__(self, limiter: CallerLimiter) -> None:
        self.limiter = limiter

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
        if handler is None or handler_call_details.method.startswith(_QUIET_PREFIXES):
            return handler
        limiter = self.limiter

        async def admit(context: Any) -> str:
            caller = caller_of(context).address
            if not limiter.try_acquire(caller):
                trailing = [
                    *(context.trailing_metadata() or ()),
                    (ERROR_CODE_HEADER, TOO_MANY_CALLS),
                    (RETRY_AFTER_HEADER, str(limiter.retry_after_ms())),
                ]
                await context.abort(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    limiter.refusal(),
                    trailing_metadata=tuple(trailing),
                )
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
                    async for item in _stream_of(behaviour, request, context):
                        yield item
                finally:
                    limiter.release(caller, time.monotonic() - started)

            return limited

        return _wrap_handler(handler, unary, streaming)


# ---- server -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Endpoint:
    """One gRPC service implementation: its full proto name and how to add it to a server."""

    name: str  # e.g. "holdem.lobby.v1.LobbyService"
    add_to_server: Callable[[grpc.aio.Server], None]


@dataclass
class Mount:
    """What a service puts on the platform's server, and what to close after it stopped."""

    endpoints: Sequence[Endpoint]
    error_mapper: ErrorMapper = field(default_factory=ErrorMapper)
    cleanups: Sequence[Callable[[], Awaitable[None]]] = ()
    # At most this many calls of one caller in flight (0 = no limit): see libs.platform.limits.
    max_calls_per_caller: int = 0
    # Who may call which of the endpoints' methods (libs.platform.callers; default: anyone).
    policy: CallerPolicy | None = None
    # Why the service cannot serve now (a dependency it needs is down), or None: polled while it
    # runs; health says NOT_SERVING while there is a reason, SERVING again once there is none.
    readiness: Callable[[], str | None] | None = None


class BindError(RuntimeError):
    pass


@dataclass
class RunningServer:
    server: grpc.aio.Server
    health: health_aio.HealthServicer
    port: int
    service_names: Sequence[str]

    async def stop(self, grace: float) -> None:
        """Report NOT_SERVING, refuse new calls, let in-flight ones run up to ``grace`` seconds."""
        await self.health.enter_graceful_shutdown()
        await self.server.stop(grace)


async def start_server(
    listen: str,
    endpoints: Sequence[Endpoint],
    *,
    error_mapper: ErrorMapper | None = None,
    options: Sequence[tuple[str, Any]] = (),
    max_calls_per_caller: int = 0,
    verifier: ServiceVerifier | None = None,
    policy: CallerPolicy | None = None,
    credentials: grpc.ServerCredentials | None = None,
) -> RunningServer:
    """Start serving ``endpoints`` plus health and reflection on ``listen`` (port 0 = any free
    port; the chosen one is ``RunningServer.port``). Health is SERVING when this returns.
    Every request is validated (:class:`ValidationInterceptor`); ``max_calls_per_caller`` > 0
    limits each caller's calls in flight (:class:`CallerLimitInterceptor`); callers are
    identified by their service tokens with ``verifier`` and refused what ``policy`` does not
    open to them (:class:`IdentityInterceptor`; without a verifier no caller has an identity, so
    every restricted method refuses everyone). With ``credentials`` it listens with TLS
    (libs.platform.tls), else in plaintext."""
    names = [endpoint.name for endpoint in endpoints]
    interceptors: list[grpc.aio.ServerInterceptor] = [
        LoggingInterceptor(),
        MetricsInterceptor(),
        ErrorInterceptor(error_mapper),
        IdentityInterceptor(verifier, policy, names),
        ValidationInterceptor(),
    ]
    if max_calls_per_caller > 0:
        interceptors.append(CallerLimitInterceptor(CallerLimiter(max_calls_per_caller)))
    server = grpc.aio.server(
        interceptors=interceptors,
        # Without this, Linux lets a second server bind the same port silently.
        options=[("grpc.so_reuseport", 0), *options],
    )
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    for endpoint in endpoints:
        endpoint.add_to_server(server)
    reflection.enable_server_reflection([*names, HEALTH_SERVICE, reflection.SERVICE_NAME], server)
    try:
        port = (
            server.add_insecure_port(listen)
            if credentials is None
            else server.add_secure_port(listen, credentials)
        )
    except RuntimeError as exc:
        raise BindError(f"cannot listen on {listen}: {exc}") from exc
    if port == 0:
        raise BindError(f"cannot listen on {listen}")
    await server.start()
    for name in ("", *names):
        await health.set(name, health_pb2.HealthCheckResponse.SERVING)
    return RunningServer(server=server, health=health, port=port, service_names=names)


READINESS_POLL_SECONDS = 0.25


async def watch_readiness(
    running: RunningServer,
    readiness: Callable[[], str | None],
    interval: float = READINESS_POLL_SECONDS,
) -> None:
    """Keep health in step with ``readiness``: NOT_SERVING (every service name and "") while it
    gives a reason, SERVING once it gives none; each change is logged once."""
    down: str | None = None
    while True:
        reason = readiness()
        if (reason is None) != (down is None):
            status = (
                health_pb2.HealthCheckResponse.SERVING
                if reason is None
                else health_pb2.HealthCheckResponse.NOT_SERVING
            )
            for name in ("", *running.service_names):
                await running.health.set(name, status)
            if reason is None:
                log.info("dependencies back: serving")
            else:
                log.warning("dependency down: not serving", reason=reason)
        down = reason
        await asyncio.sleep(interval)


def awaiting(coro: object) -> list[str]:
    """The chain of coroutines ``coro`` is suspended in, outermost first."""
    frames = []
    while coro is not None:
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
        if frame is not None:
            frames.append(f"{frame.f_code.co_filename}:{frame.f_lineno} {frame.f_code.co_name}")
        coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
    return frames


def dump_tasks() -> None:
    """SIGUSR1: log where every asyncio task is waiting (a service that stands still can be
    looked into while it runs: ``kill -USR1 PID``)."""
    for task in asyncio.all_tasks():
        log.warning("task", name=task.get_name(), awaiting=awaiting(task.get_coro()))


async def serve(platform: PlatformConfig, mount: Mount, stop: asyncio.Event | None = None) -> None:
    """Serve until SIGTERM/SIGINT (or ``stop`` is set), then shut down gracefully."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    signals = (signal.SIGTERM, signal.SIGINT)
    for sig in signals:
        loop.add_signal_handler(sig, stop.set)
    loop.add_signal_handler(signal.SIGUSR1, dump_tasks)
    endpoint = None
    try:
        # Before the gRPC server, so a service whose metrics cannot listen never says SERVING.
        if platform.metrics_listen is not None:
            try:
                endpoint = start_metrics_endpoint(platform.metrics_listen)
            except MetricsBindError as exc:
                raise BindError(str(exc)) from exc
        metrics.SERVICE_INFO.labels(platform.service).set(1)
        running = await start_server(
            platform.listen,
            mount.endpoints,
            error_mapper=mount.error_mapper,
            max_calls_per_caller=mount.max_calls_per_caller,
            verifier=ServiceVerifier(platform.service_public_keys),
            policy=mount.policy,
            credentials=None
            if platform.tls is None
            else server_credentials(
                platform.tls, require_client_cert=platform.service not in PUBLIC_SERVICES
            ),
        )
        log.info(
            "serving",
            listen=platform.listen,
            tls=platform.tls is not None,
            port=running.port,
            metrics_port=None if endpoint is None else endpoint.port,
            pid=os.getpid(),
        )
        watching = (
            None
            if mount.readiness is None
            else asyncio.create_task(watch_readiness(running, mount.readiness))
        )
        # Not racing server.wait_for_termination(): cancelling it cancels grpc's own shutdown
        # future and breaks the graceful stop below.
        await stop.wait()
        await stop_tasks([watching])
        log.info("shutting down", grace_seconds=platform.shutdown_grace_seconds)
        await running.stop(platform.shutdown_grace_seconds)
        log.info("stopped")
    finally:
        for cleanup in mount.cleanups:
            await cleanup()
        if endpoint is not None:
            endpoint.close()
        for sig in signals:
            loop.remove_signal_handler(sig)


class ServiceConfig(Protocol):
    @property
    def platform(self) -> PlatformConfig: ...


C = TypeVar("C", bound=ServiceConfig)


@dataclass(frozen=True)
class ServiceSpec(Generic[C]):
    """Everything the platform needs to run one service."""

    name: str
    variables: Sequence[Var[Any]]  # the service's own, besides the shared ones
    load_config: Callable[[Mapping[str, str]], C]
    build: Callable[[C], Awaitable[Mount]]


def run_service(
    spec: ServiceSpec[Any],
    argv: Sequence[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """Validate the configuration, configure logs, serve until signalled. Returns the exit
    status: 0 after a graceful stop, 2 for a configuration error, 1 when it cannot listen."""
    args = list(sys.argv[1:] if argv is None else argv)
    prog = f"holdem-{spec.name}"
    if args and args[0] in ("-h", "--help"):
        print(f"usage: {prog}   (python -m services.{spec.name})\n")
        print("Configured only by environment variables:\n")
        print(markdown_table(documentation({spec.name: spec.variables})))
        return 0
    if args:
        print(
            f"{prog}: takes no arguments (configure it with HOLDEM_* variables; see --help)",
            file=sys.stderr,
        )
        return 2
    try:
        config = spec.load_config(os.environ if environ is None else environ)
    except ConfigError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    platform: PlatformConfig = config.platform
    configure_logging(spec.name, platform.log_level, platform.log_format)

    async def main() -> None:
        mount = await spec.build(config)
        await serve(platform, mount)

    try:
        asyncio.run(main())
    except BindError as exc:
        log.error("cannot start", reason=str(exc))
        print(f"{prog}: {exc}", file=sys.stderr)
        return 1
    return 0
