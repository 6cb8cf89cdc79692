"""Real NATS (JetStream) and Redis for integration tests, whichever way this machine offers.

Each server comes from the first of these that works:

1. an URL from the environment: ``HOLDEM_TEST_NATS_URL`` / ``HOLDEM_TEST_REDIS_URL`` (a server
   someone else runs; the tests then share its state, so use it for debugging only);
2. testcontainers, when a Docker daemon answers (``HOLDEM_TEST_INFRA=local`` skips this);
3. local binaries (``libs.devstack``): nats-server and redis-server on free loopback
   ports in temp dirs, stopped and removed at the end of the session.

``HOLDEM_TEST_INFRA`` = ``local`` or ``docker`` forces one of the last two. The fixtures in
tests/conftest.py wrap the context managers below; they log which backend they chose
(logger ``holdem.tests.infra``; shown with ``pytest -o log_cli=true --log-cli-level=INFO``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from libs.devstack import start_nats, start_redis

log = logging.getLogger("holdem.tests.infra")

__all__ = ["CHOSEN", "Backend", "nats_backend", "redis_backend"]


@dataclass(frozen=True)
class Backend:
    """Where a test server came from and how to reach it."""

    name: str  # "nats" or "redis"
    kind: str  # "env", "testcontainers" or "local"
    url: str


# Every backend chosen in this process, for the end-of-run summary (tests/conftest.py).
CHOSEN: list[Backend] = []


def _chose(backend: Backend) -> Backend:
    CHOSEN.append(backend)
    return backend


def _mode() -> str:
    mode = os.environ.get("HOLDEM_TEST_INFRA", "auto").lower()
    if mode not in ("auto", "local", "docker"):
        raise ValueError(f"HOLDEM_TEST_INFRA must be auto, local or docker, not {mode!r}")
    return mode


def _import_container(kind: str) -> Any:
    """The testcontainers class for ``kind`` (nats|redis), wherever this version keeps it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        if kind == "nats":
            try:
                from testcontainers.community.nats import NatsContainer
            except ImportError:
                from testcontainers.nats import NatsContainer
            return NatsContainer
        try:
            from testcontainers.community.redis import RedisContainer
        except ImportError:
            from testcontainers.redis import RedisContainer
        return RedisContainer


@contextlib.contextmanager
def _container(kind: str) -> Iterator[str | None]:
    """Yield a URL from a started container, or None when Docker is not usable here."""
    if _mode() == "local":
        yield None
        return
    try:
        from docker.errors import DockerException  # type: ignore[import-untyped]

        cls = _import_container(kind)
        container = cls(jetstream=True) if kind == "nats" else cls()
    except ImportError as exc:
        log.info("%s: testcontainers not usable (%s)", kind, exc)
        if _mode() == "docker":
            raise
        yield None
        return
    except DockerException as exc:  # no daemon: fails at construction
        log.info("%s: no Docker daemon (%s)", kind, exc)
        if _mode() == "docker":
            raise
        yield None
        return
    try:
        container.start()
    except Exception as exc:  # e.g. image pull failed offline
        log.warning("%s: Docker is there but the container did not start: %s", kind, exc)
        with contextlib.suppress(Exception):
            container.stop()
        if _mode() == "docker":
            raise
        yield None
        return
    try:
        if kind == "nats":
            yield str(container.nats_uri())
        else:
            host = container.get_container_host_ip()
            port = container.get_exposed_port(container.port)
            yield f"redis://{host}:{port}/0"
    finally:
        container.stop()


@contextlib.contextmanager
def _backend(kind: str) -> Iterator[Backend]:
    env_var = f"HOLDEM_TEST_{kind.upper()}_URL"
    if url := os.environ.get(env_var):
        log.info("%s: using %s=%s", kind, env_var, url)
        yield _chose(Backend(kind, "env", url))
        return
    with _container(kind) as container_url:
        if container_url is not None:
            log.info("%s: using testcontainers at %s", kind, container_url)
            yield _chose(Backend(kind, "testcontainers", container_url))
            return
    start = start_nats if kind == "nats" else start_redis
    with start() as server:
        log.info("%s: using local %s-server pid %d at %s", kind, kind, server.pid, server.url)
        yield _chose(Backend(kind, "local", server.url))


def nats_backend() -> contextlib.AbstractContextManager[Backend]:
    """A NATS server with JetStream for the duration of the ``with`` block."""
    return _backend("nats")


def redis_backend() -> contextlib.AbstractContextManager[Backend]:
    """A Redis server for the duration of the ``with`` block."""
    return _backend("redis")
