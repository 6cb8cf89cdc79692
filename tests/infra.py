"""Real NATS (JetStream) and Redis for integration tests, whichever way this machine offers.

Each server comes from the first of these that works:

1. an URL from the environment: ``HOLDEM_TEST_NATS_URL`` / ``HOLDEM_TEST_REDIS_URL`` (a server
   someone else runs; the tests then share its state, so use it for debugging only);
2. testcontainers, when a Docker daemon answers (``HOLDEM_TEST_INFRA=local`` skips this);
3. local binaries (``libs.devstack``): nats-server and redis-server on free loopback
   ports in temp dirs, stopped and removed at the end of the session.

``HOLDEM_TEST_INFRA`` = ``local`` or ``docker`` forces one of the last two (a ``mode`` argument
does for one call). The fixtures in tests/conftest.py wrap the context managers below; they log
which backend they chose (logger ``holdem.tests.infra``; shown with ``pytest -o log_cli=true
--log-cli-level=INFO``) and the run's summary lists them (``CHOSEN``).

Every NATS server, local or in a container, fsyncs each JetStream write before acknowledging it
(``sync_interval: always``, libs/devstack/natsconf.py), as every configuration we ship.
Containers run the image ``make images`` would use (deploy/containers/images.py): the public
``nats:2.10-alpine`` / ``redis:7-alpine`` when present or pullable, else the stand-in built from
Debian's packages (built here once if missing). testcontainers' reaper is off (its image cannot
be pulled everywhere): every container is removed by the fixture that started it. Each container
is on a network of its own made for it, with its port published on 127.0.0.1 only.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from libs.devstack import start_nats, start_redis
from libs.devstack.natsconf import write_nats_config

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


def _mode(mode: str | None = None) -> str:
    mode = (mode or os.environ.get("HOLDEM_TEST_INFRA", "auto")).lower()
    if mode not in ("auto", "local", "docker"):
        raise ValueError(f"HOLDEM_TEST_INFRA must be auto, local or docker, not {mode!r}")
    return mode


# Before testcontainers is imported (it reads them once): no reaper (its image is not on every
# machine), and the published ports are reached on IPv4 loopback (not "localhost", which may
# be ::1, where nothing is published), also where this machine is itself a container (with
# /.dockerenv testcontainers would otherwise aim at the container network's gateway address).
os.environ.setdefault("TESTCONTAINERS_RYUK_DISABLED", "true")
os.environ.setdefault("TESTCONTAINERS_HOST_OVERRIDE", "127.0.0.1")
os.environ.setdefault("TESTCONTAINERS_CONNECTION_MODE", "docker_host")


def _image(kind: str) -> str:
    """The image for ``kind``: as `make images` resolves it (public, else the stand-in)."""
    from deploy.containers.debian import build_lock
    from deploy.containers.images import BASES, resolve

    (base,) = [b for b in BASES if b.name == kind]
    with build_lock():
        image = resolve(base)
    assert image is not None, kind
    return image


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


#: where the container reads the sync policy's file (natsconf) from
_CONTAINER_NATS_CONF = "/etc/nats/holdem-nats.conf"


def _durable_jetstream(container: Any, stack: contextlib.ExitStack) -> None:
    """JetStream on, fsyncing every write before acknowledging it, as every server the tests
    start locally (libs/devstack/natsconf.py): the policy's file mounted into the container."""
    directory = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="holdem-nats-conf-")))
    directory.chmod(0o755)  # the image may run nats-server as a user of its own
    config = write_nats_config(directory)
    config.chmod(0o644)
    container.with_volume_mapping(str(config), _CONTAINER_NATS_CONF, "ro")
    container.with_command(f"-js -c {_CONTAINER_NATS_CONF}")


@contextlib.contextmanager
def _container(kind: str, mode: str) -> Iterator[str | None]:
    """Yield a URL from a started container, or None when Docker is not usable here (in mode
    ``docker``, raise instead)."""
    if mode == "local":
        yield None
        return
    try:
        from testcontainers.core.network import Network

        from deploy.containers.engine import engine_answers

        cls = _import_container(kind)
    except ImportError as exc:
        log.info("%s: testcontainers not usable (%s)", kind, exc)
        if mode == "docker":
            raise
        yield None
        return
    if (why := engine_answers()) is not None:
        log.info("%s: no Docker daemon (%s)", kind, why)
        if mode == "docker":
            raise RuntimeError(f"HOLDEM_TEST_INFRA=docker but no Docker engine answers: {why}")
        yield None
        return
    with contextlib.ExitStack() as stack:
        try:
            image = _image(kind)
            network = stack.enter_context(Network())
            container = cls(image=image)
            if kind == "nats":
                _durable_jetstream(container, stack)
            # every port published on loopback only (docker-py's (host ip,) binding: any free
            # port there); testcontainers would publish on every interface
            for port in list(container.ports):
                container.ports[port] = ("127.0.0.1",)
            container.with_network(network)
            stack.callback(container.stop)  # also when start fails after creating it
            with warnings.catch_warnings():  # its own wait helpers, deprecated in 4.x
                warnings.simplefilter("ignore", DeprecationWarning)
                container.start()
        except Exception as exc:  # e.g. no image and none can be built, a start timed out
            log.warning("%s: Docker is there but the container did not start: %s", kind, exc)
            if mode == "docker":
                raise
            container_url = None
        else:
            if kind == "nats":
                container_url = str(container.nats_uri())
            else:
                host = container.get_container_host_ip()
                container_url = f"redis://{host}:{container.get_exposed_port(container.port)}/0"
        yield container_url


@contextlib.contextmanager
def _backend(kind: str, mode: str | None = None) -> Iterator[Backend]:
    env_var = f"HOLDEM_TEST_{kind.upper()}_URL"
    if mode is None and (url := os.environ.get(env_var)):
        log.info("%s: using %s=%s", kind, env_var, url)
        yield _chose(Backend(kind, "env", url))
        return
    with _container(kind, _mode(mode)) as container_url:
        if container_url is not None:
            log.info("%s: using testcontainers at %s", kind, container_url)
            yield _chose(Backend(kind, "testcontainers", container_url))
            return
    start = start_nats if kind == "nats" else start_redis
    with start() as server:
        log.info("%s: using local %s-server pid %d at %s", kind, kind, server.pid, server.url)
        yield _chose(Backend(kind, "local", server.url))


def nats_backend(mode: str | None = None) -> contextlib.AbstractContextManager[Backend]:
    """A NATS server with JetStream for the duration of the ``with`` block (``mode``: auto,
    local or docker, for this call; default ``HOLDEM_TEST_INFRA``, and then an URL from the
    environment first)."""
    return _backend("nats", mode)


def redis_backend(mode: str | None = None) -> contextlib.AbstractContextManager[Backend]:
    """A Redis server for the duration of the ``with`` block (``mode`` as for nats)."""
    return _backend("redis", mode)
