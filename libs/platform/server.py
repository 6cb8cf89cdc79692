"""The one way to run a service: a ``grpc.aio`` server with the standard health service (SERVING
once ready, NOT_SERVING while draining), reflection (so ``grpcurl`` works), every method wrapped
once, as it is registered, in logging, metrics, error mapping, caller identity, request
validation (every request is checked against its proto's rules before a handler sees it:
``libs.platform.validation``) and an optional per-caller concurrency limit
(``libs.platform.layers``), a Prometheus endpoint (``HOLDEM_METRICS_LISTEN``), and graceful
shutdown on SIGTERM/SIGINT: stop accepting calls, give in-flight calls
``HOLDEM_SHUTDOWN_GRACE_SECONDS`` to finish, exit 0.

A service's ``__main__`` is::

    SPEC = ServiceSpec(name="lobby", variables=VARS, load_config=load_config, build=build)
    def main() -> int:
        return run_service(SPEC)
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection

from libs.platform.callers import CallerPolicy
from libs.platform.config import PlatformConfig
from libs.platform.configdoc import documentation, markdown_table
from libs.platform.configvars import ConfigError, Var
from libs.platform.errors import ErrorMapper
from libs.platform.httpsite import HttpSite, RunningHttp, site_app, start_http
from libs.platform.identity import ServiceVerifier
from libs.platform.layers import HEALTH_SERVICE, standard_layers
from libs.platform.logging import configure_logging, get_logger
from libs.platform.metrics import service as metrics
from libs.platform.metrics.endpoint import MetricsBindError, start_metrics_endpoint
from libs.platform.tasks import stop_tasks
from libs.platform.tls import server_credentials
from libs.platform.wrapping import Handler, WrappingServer

#: Services whose callers are people's clients: with TLS they ask for no client certificate (every
#: other service requires one issued by the services' CA: libs.platform.tls).
PUBLIC_SERVICES = frozenset({"gateway"})

#: How servicers annotate their context parameter.
Context = grpc.aio.ServicerContext[Any, Any]
log = get_logger("libs.platform.server")


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
    # The same endpoints over Connect and gRPC-Web on an HTTP port too (libs.platform.httpsite).
    http: HttpSite | None = None


class BindError(RuntimeError):
    pass


@dataclass
class RunningServer:
    server: grpc.aio.Server
    health: health_aio.HealthServicer
    port: int
    service_names: Sequence[str]
    # every method's handler as the layers wrapped it ("/package.Service/Method")
    handlers: Mapping[str, Handler] = field(default_factory=dict)

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
    Every method, health and reflection included, runs in the platform's layers
    (:func:`libs.platform.layers.standard_layers`), wrapped once as it is registered: every
    request is validated; ``max_calls_per_caller`` > 0 limits each caller's calls in flight;
    callers are identified by their service tokens with ``verifier`` and refused what ``policy``
    does not open to them (without a verifier no caller has an identity, so every restricted
    method refuses everyone). With ``credentials`` it listens with TLS (libs.platform.tls), else
    in plaintext."""
    names = [endpoint.name for endpoint in endpoints]
    server = grpc.aio.server(
        # Without this, Linux lets a second server bind the same port silently.
        options=[("grpc.so_reuseport", 0), *options],
    )
    registrar = WrappingServer(
        server,
        standard_layers(
            error_mapper=error_mapper,
            verifier=verifier,
            policy=policy,
            services=names,
            max_calls_per_caller=max_calls_per_caller,
        ),
    )
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, registrar)
    for endpoint in endpoints:
        endpoint.add_to_server(registrar)
    reflection.enable_server_reflection(
        [*names, HEALTH_SERVICE, reflection.SERVICE_NAME], registrar
    )
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
    handlers = {method: wrapped for method, (_, wrapped) in registrar.wrapped.handlers.items()}
    return RunningServer(
        server=server, health=health, port=port, service_names=names, handlers=handlers
    )


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
    http: RunningHttp | None = None
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
        if mount.http is not None:
            try:
                http = await start_http(
                    site_app(mount.http, running.handlers), mount.http.listen, platform.tls
                )
            except (OSError, SystemExit, RuntimeError) as exc:
                await running.stop(0)
                raise BindError(f"cannot listen on {mount.http.listen}: {exc}") from exc
        log.info(
            "serving",
            listen=platform.listen,
            tls=platform.tls is not None,
            port=running.port,
            http_port=None if http is None else http.port,
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
        if http is not None:
            await http.stop()
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
