"""Fixtures shared by every test area (each area adds its own in tests/<area>/conftest.py).

``nats_url`` and ``redis_url``: real servers for the whole session, from the environment,
testcontainers or local binaries; see tests/infra.py.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests import infra


@pytest.fixture(scope="session")
def nats_url() -> Iterator[str]:
    """URL of a NATS server with JetStream enabled."""
    with infra.nats_backend() as backend:
        yield backend.url


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """URL of a Redis server (``redis://host:port/0``)."""
    with infra.redis_backend() as backend:
        yield backend.url


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for backend in infra.CHOSEN:
        terminalreporter.write_line(f"infra: {backend.name} from {backend.kind} at {backend.url}")
