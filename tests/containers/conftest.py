"""The containers tier's fixtures: the Docker engine, the images, and one compose stack for the
whole tier.

``docker_engine`` (session): a daemon that answers. tests/conftest.py already tried to start
one at collection (so that testcontainers is chosen for every integration fixture); here its
failure becomes the tier's error, with the reason, never a skip.

``compose_stack`` (the tier's package): `make images` (the layer cache makes it seconds when nothing
changed), then docker-compose.yml up under a project name of this run's own, the gateway and
Prometheus published on free ports of 127.0.0.1, the monitoring profile's Prometheus included
(Grafana too where its image is here); every container healthy before any test runs. At the end
it is taken down (containers, networks, volumes), and nothing of the project may be left.
"""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from deploy.containers import compose, images
from deploy.containers.debian import build_lock
from deploy.containers.engine import docker_command
from tests.containers.docker import leftovers, remove_stale_projects

TIER_PREFIX = "holdem-tier-"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class ComposeStack:
    """A running docker-compose.yml stack of this test run."""

    project: str
    environment: dict[str, str]
    gateway: str  # host:port on 127.0.0.1
    web: str  # http://127.0.0.1:port/: the gateway's HTTP port (the web client)
    prometheus: str  # http://127.0.0.1:port
    grafana: str | None  # http://127.0.0.1:port where Grafana runs
    healthy_after: float  # seconds from `up` to every container healthy

    def compose(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return compose.compose(args, self.project, self.environment, check=check, timeout=300)

    def container(self, service: str) -> str:
        """The id of the service's (only) container."""
        found = self.compose("ps", "--all", "--quiet", service).stdout.split()
        assert len(found) == 1, (service, found)
        return found[0]

    def inspect(self, service: str, template: str) -> str:
        result = subprocess.run(
            [docker_command(), "inspect", "--format", template, self.container(service)],
            capture_output=True,
            text=True,
            check=True,
        )
        return result.stdout.strip()


@pytest.fixture(scope="session")
def docker_engine() -> str:
    """How the Docker engine came to answer (the tier fails here, with why, when it cannot)."""
    from tests import conftest

    outcome = conftest.DOCKER_ENGINE
    if outcome is None:  # the tier was not selected at collection (a direct call): try now
        outcome = conftest.start_docker_engine()
    if isinstance(outcome, Exception):
        pytest.fail(f"the containers tier needs a Docker engine: {outcome}", pytrace=False)
    return outcome


@pytest.fixture(scope="session")
def built_images(docker_engine: str) -> dict[str, str]:
    """`make images`: what it chose, as compose's variables."""
    with build_lock():
        chosen = images.build_all()
    images.write_env(chosen)
    return chosen


# Package scope: taken down once the tier's modules are done, not at the end of the whole run
# (eight idle containers and their health checks would burn CPU the other tests need).
@pytest.fixture(scope="package")
def compose_stack(built_images: dict[str, str]) -> Iterator[ComposeStack]:
    remove_stale_projects(TIER_PREFIX)
    project = f"{TIER_PREFIX}{os.getpid()}"
    gateway_port, prometheus_port, grafana_port = _free_port(), _free_port(), _free_port()
    web_port = _free_port()
    environment = {
        **os.environ,
        **built_images,
        "HOLDEM_GATEWAY_PORT": f"127.0.0.1:{gateway_port}",
        "HOLDEM_GATEWAY_HTTP_PORT": f"127.0.0.1:{web_port}",
        "HOLDEM_PROMETHEUS_PORT": str(prometheus_port),
        "HOLDEM_GRAFANA_PORT": str(grafana_port),
    }
    try:
        seconds = compose.up(project, environment, monitoring=True)
        grafana = "HOLDEM_GRAFANA_IMAGE" in built_images
        yield ComposeStack(
            project=project,
            environment=environment,
            gateway=f"127.0.0.1:{gateway_port}",
            web=f"http://127.0.0.1:{web_port}/",
            prometheus=f"http://127.0.0.1:{prometheus_port}",
            grafana=f"http://127.0.0.1:{grafana_port}" if grafana else None,
            healthy_after=seconds,
        )
    finally:
        compose.down(project, environment)
    left = leftovers(project)
    assert not left, f"compose down left {left} of project {project}"
