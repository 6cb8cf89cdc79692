"""Fixtures shared by every test area (each area adds its own in tests/<area>/conftest.py).

``nats_url`` and ``redis_url``: real servers for the whole session, from the environment,
testcontainers or local binaries; see tests/infra.py. ``nats_cluster``: a three-node JetStream
cluster of local nats-servers for one test (it may kill and restart nodes); ``nats_cluster.url``
names every node.

When the run includes the containers tier (marker ``containers``), a Docker engine is made to
answer right after collection (started, as root installed: deploy/containers/engine.py), before
any fixture chooses where NATS and Redis come from: so with the tier, the integration fixtures
run on testcontainers. If no engine can be had the tier fails with the reason
(tests/containers/conftest.py); ``-m "not containers"`` leaves it out.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator

import pytest

from libs.devstack import NatsCluster, NatsServer, start_nats
from tests import infra

# CLI code that tests call (holdem audit, seating AIs) signs its calls with the keys of a stack
# in $HOLDEM_STACK_DIR, default ./.stack: a stack left there by `make run` would make every such
# call PERMISSION_DENIED against the services the tests start. Point it at an empty place.
os.environ["HOLDEM_STACK_DIR"] = tempfile.mkdtemp(prefix="holdem-tests-stack-")

# Fixtures that start or reach real servers or processes: a test using any of them is an
# integration test whether or not its module says so, so `make test-fast` never starts one.
INTEGRATION_FIXTURES = frozenset({"nats_url", "redis_url", "nats_cluster", "start", "start_stack"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if INTEGRATION_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.integration)


#: How the Docker engine came to answer for this run (a message), or why it could not (the
#: exception); None while the containers tier is not part of the run.
DOCKER_ENGINE: str | Exception | None = None


def start_docker_engine() -> str | Exception:
    from deploy.containers.engine import EngineError, ensure_engine

    try:
        return ensure_engine()
    except EngineError as exc:
        return exc


def pytest_collection_finish(session: pytest.Session) -> None:
    global DOCKER_ENGINE
    if any(item.get_closest_marker("containers") for item in session.items):
        DOCKER_ENGINE = start_docker_engine()


@pytest.fixture(scope="session")
def nats_url() -> Iterator[str]:
    """URL of a NATS server with JetStream enabled."""
    with infra.nats_backend() as backend:
        yield backend.url


@pytest.fixture
def own_nats() -> Iterator[NatsServer]:
    """A local nats-server of the test's own, stopped and removed after it: nothing in it that
    earlier tests left (the session's ``nats_url`` holds their buckets and streams), and it may
    be frozen, stopped and started again."""
    with start_nats() as server:
        yield server


@pytest.fixture
def nats_cluster() -> Iterator[NatsCluster]:
    """A started three-node JetStream cluster (local nats-servers on free loopback ports),
    stopped and removed after the test."""
    with NatsCluster(3) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """URL of a Redis server (``redis://host:port/0``)."""
    with infra.redis_backend() as backend:
        yield backend.url


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for backend in infra.CHOSEN:
        terminalreporter.write_line(f"infra: {backend.name} from {backend.kind} at {backend.url}")
