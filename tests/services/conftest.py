"""Services as real subprocesses for tests, through libs.devstack (the one way to start them).

Each listens on ``127.0.0.1:0`` (a free port chosen by the OS, read back from its "serving" log
line: no race) with none of the runner's own ``HOLDEM_*`` settings. Every process started by the
``start`` fixture is killed at teardown if it still runs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

from libs.devstack import ServiceProcess, clean_environ, service_env
from libs.devstack.services import REPO_ROOT

__all__ = [
    "ROOT",
    "SERVERS",
    "START_TIMEOUT",
    "ServiceProcess",
    "Starter",
    "clean_env",
    "launch_service",
    "start",
    "start_service",
    "stop_all",
]

ROOT = REPO_ROOT
START_TIMEOUT = 20.0
#: The servers each service connects to. A test names them: left out, a service would take
#: the machine's own 127.0.0.1:4222 and :6379 (the defaults), shared with every other run there,
#: and waits without end, saying nothing, while those are down or slow.
SERVERS = {
    "lobby": ("HOLDEM_NATS_URL", "HOLDEM_REDIS_URL"),
    "gateway": ("HOLDEM_NATS_URL",),
    "table": ("HOLDEM_NATS_URL", "HOLDEM_REDIS_URL"),
    "tournament": ("HOLDEM_NATS_URL", "HOLDEM_REDIS_URL"),
    "dealer": ("HOLDEM_REDIS_URL",),
}


def clean_env(extra: Mapping[str, str]) -> dict[str, str]:
    """The test runner's environment without any HOLDEM_* setting, JSON logs, plus ``extra``."""
    return service_env(extra=extra, base=clean_environ())


def launch_service(name: str, log_dir: Path, env: Mapping[str, str] = {}) -> ServiceProcess:
    """Start ``python -m services.<name>`` without waiting for it to listen
    (``wait_serving()`` waits). ``env`` names the NATS and Redis the service uses (``SERVERS``)."""
    missing = [var for var in SERVERS.get(name, ()) if var not in env]
    if missing:
        raise ValueError(f"{name} started without {', '.join(missing)}: it would use the machine's")
    log_path = log_dir / f"{name}-{time.monotonic_ns()}.log"
    listen = env.get("HOLDEM_LISTEN", "127.0.0.1:0")
    if name == "table" and "HOLDEM_TABLE_AI" not in env and "HOLDEM_AI_ADDR" not in env:
        # a table started without an ai service decides its bots in-process (the same levels);
        # otherwise every bot decision would wait out its budget for a service nobody started
        env = {**env, "HOLDEM_TABLE_AI": "local"}
    if name == "lobby" and "HOLDEM_LOBBY_LOGIN_FAILURES_PER_PEER" not in env:
        # every test client is the peer 127.0.0.1 and the tests share one redis-server: the
        # per-peer count of failed logins would carry over from test to test (its window is
        # minutes), so a test's result would depend on the ones before it
        env = {**env, "HOLDEM_LOBBY_LOGIN_FAILURES_PER_PEER": "100000"}
    if name == "lobby" and "HOLDEM_LOBBY_GUESTS_PER_ADDRESS" not in env:
        # likewise guests: every test client is one address, and tests make guests
        env = {**env, "HOLDEM_LOBBY_GUESTS_PER_ADDRESS": "1000000"}
    return ServiceProcess(name, log_path, listen=listen, env=clean_env(env)).spawn()


def start_service(name: str, log_dir: Path, env: Mapping[str, str] = {}) -> ServiceProcess:
    return launch_service(name, log_dir, env).wait_serving(START_TIMEOUT)


def stop_all(services: list[ServiceProcess], timeout: float = 15.0) -> list[int | None]:
    """SIGTERM every service at once, then collect the exit statuses."""
    for service in services:
        service.send_stop()
    return [service.stop(timeout) for service in services]


Starter = Callable[..., ServiceProcess]


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Starter]:
    """``start(name, env={...})`` -> a running ServiceProcess, killed after the test."""
    started: list[ServiceProcess] = []

    def _start(name: str, env: Mapping[str, str] = {}) -> ServiceProcess:
        service = start_service(name, tmp_path, env)
        started.append(service)
        return service

    yield _start
    for service in reversed(started):
        service.stop()  # gracefully: a table replica hands its shard leases back
