"""The local stack as processes: nats-server, redis-server and the six services, wired together.

``LocalStack`` starts a real nats-server (JetStream) and redis-server on free loopback ports (see
``libs.platform.localinfra``), then each service as ``python -m services.<name>`` on its own free
port, configured only through the ``HOLDEM_*`` environment variables, and waits until every
service's gRPC health check answers SERVING. ``stop`` stops the services (SIGTERM, then SIGKILL
after a timeout), then the infrastructure, and removes the stack's temp directory (logs, JetStream
store, Redis dir) unless ``keep_temp``. ``holdem stack up`` is a thin CLI around it; end-to-end
tests use it in-process:

    >>> with LocalStack() as stack:  # doctest: +SKIP
    ...     gateway = stack.address("gateway")
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from libs.platform import healthcheck
from libs.platform.config import DEFAULT_PORTS
from libs.platform.localinfra import (
    LOOPBACK,
    LocalServer,
    log_tail,
    spawn,
    start_nats,
    start_redis,
    terminate,
)

__all__ = [
    "DEFAULT_PORTS",
    "SERVICE_NAMES",
    "LocalStack",
    "ServiceProcess",
    "StackStartError",
    "service_env",
]

# Front to back: the order in which services are stopped (clients first, so nothing is cut off
# mid-call by a dependency going away); they are started all at once.
SERVICE_NAMES: tuple[str, ...] = ("gateway", "lobby", "table", "dealer", "evaluator", "ai")
REPO_ROOT = Path(__file__).resolve().parents[2]
# Longer than the services' default HOLDEM_SHUTDOWN_GRACE_SECONDS, so in-flight calls can finish.
SERVICE_STOP_TIMEOUT = 15.0


class StackStartError(RuntimeError):
    """The stack did not come up; the message names the failing service and shows its log."""


@dataclass
class ServiceProcess:
    """One service subprocess."""

    name: str
    address: str
    proc: subprocess.Popen[bytes]
    log_path: Path

    @property
    def pid(self) -> int:
        return self.proc.pid


def addr_env_var(name: str) -> str:
    return f"HOLDEM_{name.upper()}_ADDR"


def service_env(
    listen: str,
    addresses: Mapping[str, str],
    nats_url: str,
    redis_url: str,
    log_level: str = "info",
    log_format: str = "json",
    base: Mapping[str, str] | None = None,
    metrics_listen: str = f"{LOOPBACK}:0",
) -> dict[str, str]:
    """The environment of one service process: the agreed ``HOLDEM_*`` variables on top of
    ``base`` (default: this process's environment). Metrics go to a free port unless told
    otherwise, never to the fixed defaults another local run may hold."""
    env = dict(os.environ if base is None else base)
    env.update(
        {
            "HOLDEM_LISTEN": listen,
            "HOLDEM_METRICS_LISTEN": metrics_listen,
            "HOLDEM_NATS_URL": nats_url,
            "HOLDEM_REDIS_URL": redis_url,
            "HOLDEM_LOG_LEVEL": log_level,
            "HOLDEM_LOG_FORMAT": log_format,
            "PYTHONUNBUFFERED": "1",
        }
    )
    for other, address in addresses.items():
        env[addr_env_var(other)] = address
    # The checkout and its generated code first, whether or not the project is installed.
    paths = [str(p) for p in (REPO_ROOT, REPO_ROOT / "gen") if p.is_dir()]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def _free_ports(host: str, count: int) -> list[int]:
    """``count`` distinct free ports (all held open while choosing, so no duplicates)."""
    socks: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            socks.append(sock)
            sock.bind((host, 0))
        return [int(s.getsockname()[1]) for s in socks]
    finally:
        for s in socks:
            s.close()


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
    ) -> None:
        self.service_names = tuple(services)
        # How to run one service; tests substitute stand-ins.
        self.service_argv = service_argv or (lambda name: [python, "-m", f"services.{name}"])
        self.keep_temp = keep_temp
        self.workdir_parent = workdir_parent
        self.host = host
        self.log_level = log_level
        self.log_format = log_format
        self.startup_timeout = startup_timeout
        self.python = python
        self.extra_env = dict(extra_env or {})
        self.workdir: Path | None = None
        self.nats: LocalServer | None = None
        self.redis: LocalServer | None = None
        self.services: list[ServiceProcess] = []
        self.metrics_addresses: dict[str, str] = {}

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
        # The servers' own temp dirs live inside the stack's, so one rmtree cleans all.
        self.nats = start_nats(self.host, keep_temp=True, parent_dir=self.workdir)
        self.redis = start_redis(self.host, keep_temp=True, parent_dir=self.workdir)
        count = len(self.service_names)
        ports = _free_ports(self.host, 2 * count)
        addresses = {
            name: f"{self.host}:{port}"
            for name, port in zip(self.service_names, ports[:count], strict=True)
        }
        # Chosen here (not port 0), so `holdem stack status` knows where to scrape them.
        self.metrics_addresses = {
            name: f"{self.host}:{port}"
            for name, port in zip(self.service_names, ports[count:], strict=True)
        }
        logs = self.workdir / "logs"
        for name in self.service_names:
            env = service_env(
                addresses[name],
                addresses,
                self.nats.url,
                self.redis.url,
                self.log_level,
                self.log_format,
                metrics_listen=self.metrics_addresses[name],
            )
            env.update(self.extra_env)
            argv = self.service_argv(name)
            log_path = logs / f"{name}.log"
            proc = spawn(argv, log_path, env=env)
            self.services.append(ServiceProcess(name, addresses[name], proc, log_path))
        self.wait_serving(self.startup_timeout)

    def wait_serving(self, timeout: float) -> None:
        """Wait until every service's health check says SERVING, else raise StackStartError
        (as soon as a service exits, or at the timeout) with the failing service's log tail."""
        deadline = time.monotonic() + timeout
        pending = list(self.services)
        last: dict[str, str] = {}
        while pending:
            for svc in list(pending):
                if svc.proc.poll() is not None:
                    raise StackStartError(
                        f"service {svc.name} exited with status {svc.proc.returncode} while "
                        f"starting (listen {svc.address}); last lines of {svc.log_path}:\n"
                        f"{log_tail(svc.log_path)}"
                    )
                last[svc.name] = healthcheck.check(svc.address, timeout=0.5)
                if last[svc.name] == healthcheck.SERVING:
                    pending.remove(svc)
            if not pending:
                return
            if time.monotonic() >= deadline:
                details = "\n".join(
                    f"--- {svc.name} ({svc.address}) health={last.get(svc.name)}; "
                    f"last lines of {svc.log_path}:\n{log_tail(svc.log_path)}"
                    for svc in pending
                )
                names = ", ".join(s.name for s in pending)
                raise StackStartError(f"not SERVING after {timeout:.0f}s: {names}\n{details}")
            time.sleep(0.2)

    def stop(self, timeout: float = SERVICE_STOP_TIMEOUT) -> None:
        """Stop the services (all signalled at once, front to back), then redis and nats, then
        remove the temp directory unless ``keep_temp``. Safe to call more than once."""
        for svc in self.services:
            if svc.proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    svc.proc.terminate()
        # one deadline for all of them: a stuck service costs `timeout`, not six times it
        deadline = time.monotonic() + timeout
        for svc in self.services:
            terminate(svc.proc, max(0.0, deadline - time.monotonic()))
        for server in (self.redis, self.nats):
            if server is not None:
                server.stop(timeout)
        if self.workdir is not None and not self.keep_temp:
            shutil.rmtree(self.workdir, ignore_errors=True)

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

    def address(self, name: str) -> str:
        for svc in self.services:
            if svc.name == name:
                return svc.address
        raise KeyError(name)

    @property
    def nats_url(self) -> str:
        assert self.nats is not None, "stack not started"
        return self.nats.url

    @property
    def redis_url(self) -> str:
        assert self.redis is not None, "stack not started"
        return self.redis.url

    def pids(self) -> list[int]:
        """Every process this stack started."""
        servers = [s for s in (self.nats, self.redis) if s is not None]
        return [s.pid for s in servers] + [svc.pid for svc in self.services]

    def exited(self) -> list[str]:
        """Names of processes that have exited (none should while the stack is up)."""
        names = [svc.name for svc in self.services if svc.proc.poll() is not None]
        names += [
            s.name for s in (self.nats, self.redis) if s is not None and s.proc.poll() is not None
        ]
        return names

    def log_path(self, name: str) -> Path:
        for svc in self.services:
            if svc.name == name:
                return svc.log_path
        for server in (self.nats, self.redis):
            if server is not None and server.name == name:
                return server.log_path
        raise KeyError(name)

    def state(self) -> dict[str, Any]:
        """A JSON-able description of the running stack (what ``holdem stack up`` writes)."""
        assert self.nats is not None and self.redis is not None, "stack not started"
        return {
            "pid": os.getpid(),
            "started_at": time.time(),
            "workdir": str(self.workdir),
            "keep_temp": self.keep_temp,
            "nats": {"url": self.nats.url, "pid": self.nats.pid, "log": str(self.nats.log_path)},
            "redis": {
                "url": self.redis.url,
                "pid": self.redis.pid,
                "log": str(self.redis.log_path),
            },
            "services": [
                {
                    "name": s.name,
                    "address": s.address,
                    "metrics": self.metrics_addresses.get(s.name),
                    "pid": s.pid,
                    "log": str(s.log_path),
                }
                for s in self.services
            ],
        }
