"""What the containers tier asks Docker directly: a project's leftovers, stale projects of
earlier runs, a container's process as the host sees it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from deploy.containers import compose
from deploy.containers.engine import docker_command

PROJECT_LABEL = "com.docker.compose.project"


def docker(*args: str, check: bool = True) -> str:
    result = subprocess.run(
        [docker_command(), *args], capture_output=True, text=True, check=False, timeout=120
    )
    if check and result.returncode != 0:
        raise AssertionError(f"docker {' '.join(args)}: {result.stderr.strip()}")
    return result.stdout


def leftovers(project: str) -> dict[str, list[str]]:
    """The containers, networks and volumes still labelled with ``project`` (none after down)."""
    label = f"label={PROJECT_LABEL}={project}"
    found = {
        "containers": docker("ps", "--all", "--quiet", "--filter", label).split(),
        "networks": docker("network", "ls", "--quiet", "--filter", label).split(),
        "volumes": docker("volume", "ls", "--quiet", "--filter", label).split(),
    }
    return {kind: ids for kind, ids in found.items() if ids}


def remove_stale_projects(prefix: str) -> None:
    """Take down the projects named ``prefix<pid>`` (or ``prefix<pid>-<what>``) whose test run
    is gone (a run killed before its teardown), so they hold no ports, memory or disk."""
    names = docker("ps", "--all", "--format", f'{{{{.Label "{PROJECT_LABEL}"}}}}').split()
    for name in sorted(set(names)):
        pid = name.removeprefix(prefix).split("-")[0]
        if name.startswith(prefix) and pid.isdigit() and not Path(f"/proc/{pid}").exists():
            compose.down(name, dict(os.environ))


def main_process(container: str) -> tuple[int, int]:
    """(host pid, real uid) of the container's main process."""
    pid = int(docker("inspect", "--format", "{{.State.Pid}}", container).strip())
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Uid:"):
            return pid, int(line.split()[1])
    raise AssertionError(f"no Uid line for pid {pid}")


def inspect(container: str) -> dict[str, object]:
    found = json.loads(docker("inspect", container))
    assert isinstance(found, list) and len(found) == 1
    result: dict[str, object] = found[0]
    return result
