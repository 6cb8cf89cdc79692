"""docker-compose.yml up and down with the images `make images` chose (``.images.env``).

``up`` starts the stack without building or pulling anything (every image must be here) and
returns once every container is healthy (``--wait``), with the seconds it took; ``down`` removes
the containers, networks and volumes of every profile. Both take a project name, so the
containers tier runs its own stack beside an operator's.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from deploy.containers.engine import compose_command
from deploy.containers.images import IMAGES_ENV, ROOT, chosen_images

__all__ = ["COMPOSE_FILE", "ComposeError", "compose", "down", "stack_environment", "up"]

COMPOSE_FILE = ROOT / "docker-compose.yml"
DEFAULT_PROJECT = "holdem"
MONITORING = ("prometheus", "grafana")


class ComposeError(RuntimeError):
    """A compose command failed; the message has its output."""


def stack_environment(
    images_env: Path = IMAGES_ENV, overrides: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment compose runs in: the chosen images, under what the caller's environment
    sets (an operator's own HOLDEM_*_IMAGE wins) and ``overrides``."""
    images = chosen_images(images_env)
    if not images:
        raise ComposeError(f"no {images_env.name}: run `make images` first")
    return {**images, **os.environ, **(overrides or {})}


def compose(
    args: Sequence[str],
    project: str = DEFAULT_PROJECT,
    environment: Mapping[str, str] | None = None,
    files: Sequence[Path] = (COMPOSE_FILE,),
    check: bool = True,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``compose -p project -f file... args`` and return its result (output captured)."""
    command = [*compose_command(), "--project-name", project, "--project-directory", str(ROOT)]
    for file in files:
        command += ["--file", str(file)]
    result = subprocess.run(
        [*command, *args],
        capture_output=True,
        text=True,
        env=dict(environment) if environment is not None else None,
        timeout=timeout,
        check=False,
    )
    if check and result.returncode != 0:
        raise ComposeError(
            f"`compose {' '.join(args)}` exited {result.returncode}:\n"
            + (result.stderr or result.stdout).strip()[-4000:]
        )
    return result


def up(
    project: str = DEFAULT_PROJECT,
    environment: Mapping[str, str] | None = None,
    monitoring: bool = False,
    timeout: float = 300.0,
    files: Sequence[Path] = (COMPOSE_FILE,),
) -> float:
    """Bring the stack up and wait until every container is healthy; the seconds it took.

    With ``monitoring``, Prometheus too, and Grafana when its image is here."""
    environment = stack_environment() if environment is None else environment
    args = ["up", "--detach", "--wait", "--wait-timeout", str(int(timeout))]
    args += ["--no-build", "--pull", "never", "--remove-orphans"]
    profile: list[str] = []
    if monitoring:
        profile = ["--profile", "monitoring"]
        if "HOLDEM_GRAFANA_IMAGE" not in environment:
            listed = compose(["config", "--services"], project, environment, files)
            services = [s for s in listed.stdout.split() if s != "grafana"]
            args += [*services, "prometheus"]
    started = time.monotonic()
    compose([*profile, *args], project, environment, files, timeout=timeout + 60)
    return time.monotonic() - started


def down(
    project: str = DEFAULT_PROJECT,
    environment: Mapping[str, str] | None = None,
    files: Sequence[Path] = (COMPOSE_FILE,),
) -> None:
    """Remove the project's containers (every profile), networks and volumes."""
    if environment is None:
        try:
            environment = stack_environment()
        except ComposeError:  # images never chosen here: the defaults name the same things
            environment = dict(os.environ)
    compose(
        ["--profile", "monitoring", "down", "--volumes", "--remove-orphans", "--timeout", "20"],
        project,
        environment,
        files,
        timeout=300,
    )
