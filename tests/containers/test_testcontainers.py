"""testcontainers for real: the event-store contract suite (JetStream and Redis stores) and the
six services' gateway -> lobby flow run on NATS and Redis containers that this module starts
with testcontainers (``HOLDEM_TEST_INFRA=docker`` for these fixtures: no fallback to local
binaries), on the images `make images` would use (the stand-ins where the public ones cannot be
pulled). And the session's own integration fixtures took testcontainers too, as the tier's
engine makes them (a silent fallback to local binaries fails here)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests import infra
from tests.eventstore import test_contracts as contracts
from tests.services.test_services import (
    gateway,  # noqa: F401 (a fixture of the imported test)
    stack,  # noqa: F401 (a fixture of the imported test)
    test_register_login_create_and_list_tables_through_the_gateway,  # noqa: F401
    test_service_reports_serving,  # noqa: F401
)

pytestmark = [pytest.mark.containers, pytest.mark.integration, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def container_nats(docker_engine: str) -> Iterator[infra.Backend]:
    with infra.nats_backend(mode="docker") as backend:
        yield backend


@pytest.fixture(scope="module")
def container_redis(docker_engine: str) -> Iterator[infra.Backend]:
    with infra.redis_backend(mode="docker") as backend:
        yield backend


# The imported service tests' fixtures ask for these: here they are this module's containers.
@pytest.fixture(scope="module")
def nats_url(container_nats: infra.Backend) -> str:
    return container_nats.url


@pytest.fixture(scope="module")
def redis_url(container_redis: infra.Backend) -> str:
    return container_redis.url


class TestContractsOnTestcontainers(contracts.TestRealNatsAndRedis):
    """The whole contract suite (events, snapshots, projections, projector, repository)."""

    @pytest.fixture(autouse=True)
    def _urls(self, nats_url: str, redis_url: str) -> None:
        self.nats_url = nats_url
        self.redis_url = redis_url


def test_these_servers_are_containers(
    container_nats: infra.Backend, container_redis: infra.Backend
) -> None:
    for backend in (container_nats, container_redis):
        assert backend.kind == "testcontainers", backend
        assert backend.url.split("://")[1].startswith("127.0.0.1:"), backend


def test_no_integration_fixture_fell_back_to_local_binaries(docker_engine: str) -> None:
    """With the tier the engine answers, so in the default mode (auto) every NATS and Redis of
    this run came from testcontainers: the session's (the other areas' integration tests, when
    they ran before this) and one chosen now as they are chosen. A run that asks for local
    binaries (HOLDEM_TEST_INFRA=local) or names servers gets those."""
    mode = os.environ.get("HOLDEM_TEST_INFRA", "auto").lower()
    with infra.nats_backend() as nats, infra.redis_backend() as redis:
        chosen_now = [nats, redis]
    for backend in [*infra.CHOSEN, *chosen_now]:
        named = os.environ.get(f"HOLDEM_TEST_{backend.name.upper()}_URL")
        allowed = {"testcontainers"}
        if named:
            allowed.add("env")
        if mode == "local":
            allowed.add("local")
        assert backend.kind in allowed, (backend, mode)
    assert {b.kind for b in chosen_now} <= {"testcontainers", "env", "local"}
    if mode != "local" and not os.environ.get("HOLDEM_TEST_NATS_URL"):
        assert nats.kind == "testcontainers"
