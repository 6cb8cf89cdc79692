"""The local stack: nats-server, redis-server and the seven services, wired together.

``LocalStack`` starts a ``NatsServer`` (or, with ``nats_cluster=3``, a three-node JetStream
``NatsCluster``, and tells the services ``HOLDEM_NATS_REPLICAS=3``) and a ``RedisServer`` on free
loopback ports, then each service as a ``ServiceProcess`` on its own free port (all at once:
every address is chosen first, so each service knows its peers), and waits until every service's
gRPC health check answers SERVING. ``stop`` stops the services (SIGTERM, then SIGKILL after a
timeout), then the servers, and removes the stack's temp directory (logs, JetStream store, Redis
dir) unless ``keep_temp``.

Given a ``data_dir``, the JetStream store (``data_dir/nats``) and Redis's data (``data_dir/redis``,
append-only file on) live there instead and outlive the stack: the next stack on the same
``data_dir`` finds every table again. ``supervise`` (called by its owner's loop) restarts any
process that exited, with backoff (``libs.devstack.supervisor``), at the same address and on the
same data, while the others keep running. ``holdem stack up`` is a thin CLI around it (the state
file it writes: ``stackstate``); end-to-end tests use it in-process (``with LocalStack() as
stack: stack.address("gateway")``).
"""

from __future__ import annotations

import base64
import os
import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Self

from libs.platform import healthcheck
from libs.platform.identity import IDENTITIES
from libs.platform.tls import LOOPBACK_HOSTS, issue_set, load_dir, tls_env

from .access import StackAccess
from .cluster import NatsCluster
from .processes import LOOPBACK, ManagedProcess, StartError, free_ports
from .servers import NatsServer, RedisServer
from .services import ServiceProcess, service_env
from .supervisor import RestartEvent, Supervisor

__all__ = ["SERVICE_NAMES", "LocalStack", "StackStartError"]

#: With TLS, nats-server and redis-server get certificates of the stack's CA too.
TLS_SERVERS = ("nats", "redis")
# Front to back: the order in which services are stopped (clients first, so nothing is cut off
# mid-call by a dependency going away); they are started all at once.
SERVICE_NAMES = ("gateway", "tournament", "lobby", "table", "dealer", "evaluator", "ai")
# Longer than the services' default HOLDEM_SHUTDOWN_GRACE_SECONDS, so in-flight calls can finish.
SERVICE_STOP_TIMEOUT = 15.0
PORT_ATTEMPTS = 3  # service ports chosen again when another process took one first


def stack_token_secret() -> str:
    """A fresh random token-signing secret (base64, 32 bytes) for one run of a stack."""
    return base64.b64encode(secrets.token_bytes(32)).decode()


def _lost_a_port(error: StackStartError) -> bool:
    """The failing service could not listen where it was told (gRPC or its metrics port)."""
    text = str(error).lower()
    return "address already in use" in text or "failed to bind to address" in text


class StackStartError(StartError):
    """The stack did not come up; the message names the failing service and shows its log."""


class LocalStack:
    """nats-server + redis-server + the services, as local processes on free loopback ports."""

    def __init__(
        self,
        *,
        services: Sequence[str] = SERVICE_NAMES,
        service_argv: Callable[[str], Sequence[str]] | None = None,
        keep_temp: bool = False,
        workdir_parent: Path | None = None,
        host: str = LOOPBACK,
        log_level: str = "info",
        log_format: str = "json",
        startup_timeout: float = 60.0,
        python: str = sys.executable,
        extra_env: Mapping[str, str] | None = None,
        nats_cluster: int = 1,
        data_dir: Path | None = None,
        on_restart: Callable[[RestartEvent], None] | None = None,
        auth: bool = True,
        secrets_dir: Path | None = None,
        tls_dir: Path | None = None,
    ) -> None:
        if not 1 <= nats_cluster <= 5:
            raise ValueError("nats_cluster is the number of NATS nodes, 1..5")
        if tls_dir is not None and nats_cluster > 1:
            raise ValueError("TLS runs with one NATS node (not with a cluster yet)")
        if data_dir is not None and nats_cluster > 1:
            raise ValueError("a NATS cluster keeps its stores in the temp directory only")
        # where NATS and Redis keep their data between runs (None: in the temp dir, removed)
        self.data_dir = data_dir
        self.on_restart = on_restart
        self.supervisor: Supervisor | None = None
        self.started_at = 0.0
        # per-service NATS and Redis users (libs.devstack.access), written to secrets_dir
        # (default: the temp directory's "secrets"); None: open servers, as the test fixtures
        self.access: StackAccess | None = StackAccess.generate() if auth else None
        self.secrets_dir = secrets_dir
        # mutual TLS between the services (libs.platform.tls): a new CA and a certificate per
        # identity written here at each start (None: plaintext gRPC)
        self.tls_dir = tls_dir
        self.nats_nodes = nats_cluster
        self.service_names = tuple(services)
        # How to run one service; tests substitute stand-ins.
        self.service_argv = service_argv or (lambda name: [python, "-m", f"services.{name}"])
        self.keep_temp = keep_temp
        self.workdir_parent = workdir_parent
        self.host = host
        self.log_level = log_level
        self.log_format = log_format
        self.startup_timeout = startup_timeout
        self.extra_env = dict(extra_env or {})
        if "HOLDEM_TOKEN_KEYS" not in self.extra_env and not os.environ.get("HOLDEM_TOKEN_KEYS"):
            # One key ring for this stack's life, shared by the lobby (signs) and the gateway
            # (verifies): tokens die with the stack.
            secret = base64.b64encode(secrets.token_bytes(32)).decode()
            self.extra_env["HOLDEM_TOKEN_KEYS"] = f"dev:{secret}"
        self.workdir: Path | None = None
        self.nats: NatsServer | None = None  # one server (nats_cluster=1)
        self.cluster: NatsCluster | None = None  # or a cluster
        self.redis: RedisServer | None = None
        self.services: list[ServiceProcess] = []
        self.metrics_addresses: dict[str, str] = {}
        self.web_address = ""

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> Self:
        """Start everything and wait until every service is SERVING; on any failure (or
        KeyboardInterrupt) stop what was started and re-raise."""
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self) -> None:
        if self.workdir_parent is not None:
            self.workdir_parent.mkdir(parents=True, exist_ok=True)
        self.workdir = Path(tempfile.mkdtemp(prefix="holdem-stack-", dir=self.workdir_parent))
        self.started_at = time.time()
        self._start_servers()
        for attempt in range(PORT_ATTEMPTS):
            self._start_services()
            try:
                self.wait_serving(self.startup_timeout)
                break
            except StackStartError as exc:
                # Another process took a chosen port between choosing it and the bind: choose
                # them all again (the services must know each other's addresses up front).
                if not _lost_a_port(exc) or attempt + 1 == PORT_ATTEMPTS:
                    raise
                self._stop_services(SERVICE_STOP_TIMEOUT)
                self.services = []
        self.supervisor = Supervisor(self._processes(), on_event=self.on_restart)

    def _data(self, name: str) -> Path | None:
        return None if self.data_dir is None else self.data_dir / name

    def _start_servers(self) -> None:
        """nats-server (or the cluster) and redis-server. Their temp dirs live inside the
        stack's, so one rmtree cleans all; their data in ``data_dir`` if given."""
        assert self.workdir is not None
        nats_config: Path | None = None
        redis_args: list[str] = []
        if self.access is not None:
            if self.secrets_dir is None:
                self.secrets_dir = self.workdir / "secrets"
            files = self.access.write(self.secrets_dir)
            nats_config = files["nats.conf"]
            redis_args = ["--aclfile", str(files["redis-users.acl"])]
        server_tls = None
        if self.tls_dir is not None:
            issue_set(self.tls_dir, [*IDENTITIES, *TLS_SERVERS], [self.host, *LOOPBACK_HOSTS])
            server_tls = {name: load_dir(self.tls_dir, name) for name in TLS_SERVERS}
        if self.nats_nodes > 1:
            self.cluster = NatsCluster(
                self.nats_nodes,
                self.host,
                keep_temp=True,
                parent_dir=self.workdir,
                config=nats_config,
            )
            self.cluster.start()
        else:
            self.nats = NatsServer(
                self.host,
                keep_temp=True,
                parent_dir=self.workdir,
                data_dir=self._data("nats"),
                config=nats_config,
                tls=None if server_tls is None else server_tls["nats"],
            )
            self.nats.start()
        self.redis = RedisServer(
            self.host,
            keep_temp=True,
            parent_dir=self.workdir,
            data_dir=self._data("redis"),
            extra_args=redis_args,
            tls=None if server_tls is None else server_tls["redis"],
        )
        self.redis.start()

    def _start_services(self) -> None:
        """Spawn every service at once (every address chosen first, so each knows its peers)."""
        assert self.workdir is not None and self.redis is not None
        count = len(self.service_names)
        ports = free_ports(self.host, 2 * count + 1)
        # the gateway's HTTP port: Connect for browsers and the web client's page
        self.web_address = f"{self.host}:{ports[-1]}"
        addresses = {
            name: f"{self.host}:{port}"
            for name, port in zip(self.service_names, ports[:count], strict=True)
        }
        # Chosen here (not port 0), so `holdem stack status` knows where to scrape them.
        self.metrics_addresses = {
            name: f"{self.host}:{port}"
            for name, port in zip(self.service_names, ports[count : 2 * count], strict=True)
        }
        env = service_env(
            peers=addresses,
            nats_url=self.nats_url,
            redis_url=self.redis.url,
            log_level=self.log_level,
            log_format=self.log_format,
            extra={"HOLDEM_NATS_REPLICAS": str(self.nats_nodes), **self.extra_env},
        )
        # One token key for the whole stack: the lobby signs with it, the gateway verifies.
        env.setdefault("HOLDEM_TOKEN_KEYS", f"stack:{stack_token_secret()}")
        for name in self.service_names:
            web = {"HOLDEM_GATEWAY_HTTP_LISTEN": self.web_address} if name == "gateway" else {}
            service = ServiceProcess(
                name,
                self.workdir / "logs" / f"{name}.log",
                listen=addresses[name],
                env={
                    **env,
                    "HOLDEM_METRICS_LISTEN": self.metrics_addresses[name],
                    "HOLDEM_NATS_URL": self.nats_url_for(name),
                    "HOLDEM_REDIS_URL": self.redis_url_for(name),
                    **({} if self.tls_dir is None else tls_env(self.tls_dir, name)),
                    **web,
                },
                argv=self.service_argv(name),
            )
            self.services.append(service.spawn())

    @property
    def web_url(self) -> str:
        """Where a browser opens the web client (the gateway's HTTP port), or "" without one."""
        if not self.web_address or "gateway" not in self.service_names:
            return ""
        return f"{'http' if self.tls_dir is None else 'https'}://{self.web_address}/"

    def supervise(self) -> list[RestartEvent]:
        """Restart what exited (after its backoff); what happened. Call it every half second
        or so while the stack runs."""
        return [] if self.supervisor is None else self.supervisor.poll()

    def wait_serving(self, timeout: float) -> None:
        """Wait until every service's health check says SERVING, else raise StackStartError
        (as soon as a service exits, or at the timeout) with the failing service's log tail."""
        deadline = time.monotonic() + timeout
        pending = list(self.services)
        last: dict[str, str] = {}
        while pending:
            for svc in list(pending):
                try:
                    last[svc.name] = svc.poll_ready(timeout=0.5)
                except StartError as exc:
                    raise StackStartError(str(exc)) from None
                if last[svc.name] == healthcheck.SERVING:
                    pending.remove(svc)
            if not pending:
                return
            if time.monotonic() >= deadline:
                details = "\n".join(
                    f"--- {svc.name} ({svc.address}) health={last.get(svc.name)}; "
                    f"last lines of {svc.log_path}:\n{svc.log_tail()}"
                    for svc in pending
                )
                names = ", ".join(s.name for s in pending)
                raise StackStartError(f"not SERVING after {timeout:.0f}s: {names}\n{details}")
            time.sleep(0.2)

    def stop(self, timeout: float = SERVICE_STOP_TIMEOUT) -> None:
        """Stop the services (all signalled at once, front to back), then redis and nats, then
        remove the temp directory unless ``keep_temp``. Safe to call more than once."""
        self._stop_services(timeout)
        for server in (self.redis, self.nats):
            if server is not None:
                server.stop(timeout)
        if self.cluster is not None:
            self.cluster.stop()
        if self.workdir is not None and not self.keep_temp:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def _stop_services(self, timeout: float) -> None:
        for svc in self.services:
            svc.send_stop()
        # one deadline for all of them: a stuck service costs `timeout`, not six times it
        deadline = time.monotonic() + timeout
        for svc in self.services:
            svc.stop(max(0.0, deadline - time.monotonic()))

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- queries -----------------------------------------------------------------------------

    def _processes(self) -> list[ManagedProcess]:
        servers: list[ManagedProcess] = [s for s in (self.nats, self.redis) if s is not None]
        nodes: list[ManagedProcess] = list(self.cluster.nodes) if self.cluster else []
        return servers + nodes + list(self.services)

    def service(self, name: str) -> ServiceProcess:
        for svc in self.services:
            if svc.name == name:
                return svc
        raise KeyError(name)

    def address(self, name: str) -> str:
        return self.service(name).address

    @property
    def nats_url(self) -> str:
        """The NATS server's URL, or every cluster node's, comma-separated."""
        if self.cluster is not None:
            return self.cluster.url
        assert self.nats is not None, "stack not started"
        return self.nats.url

    def nats_url_for(self, user: str) -> str:
        """The NATS URL with ``user``'s credentials (a service's name, "spectator" or "admin";
        the bare URL without auth, or for a service that has no NATS user)."""
        return self.nats_url if self.access is None else self.access.nats_url(user, self.nats_url)

    def redis_url_for(self, user: str) -> str:
        """The Redis URL with ``user``'s credentials (as ``nats_url_for``)."""
        url = self.redis_url
        return url if self.access is None else self.access.redis_url(user, url)

    def nats_node(self, index: int) -> NatsServer:
        """Node ``index`` of the NATS cluster (0 without a cluster: the one server)."""
        if self.cluster is not None:
            return self.cluster.node(index)
        assert self.nats is not None and index == 0, "stack not started, or no such node"
        return self.nats

    @property
    def redis_url(self) -> str:
        """Redis's URL, without credentials (``redis_url_for`` adds a user's)."""
        assert self.redis is not None, "stack not started"
        return self.redis.url

    def pids(self) -> list[int]:
        """Every process this stack started."""
        return [p.pid for p in self._processes() if p.started]

    def exited(self) -> list[str]:
        """Names of processes that have exited (and are not yet restarted by ``supervise``)."""
        return [p.name for p in self._processes() if p.returncode is not None]

    def restarts(self) -> dict[str, int]:
        """How often each process was restarted after a crash, by name."""
        return {p.name: p.restarts for p in self._processes()}

    def log_path(self, name: str) -> Path:
        for process in self._processes():
            if process.name == name:
                return process.log_path
        raise KeyError(name)
