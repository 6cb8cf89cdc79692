"""Helpers for tests that run `holdem stack up` as a subprocess (fixture in conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FAKE_SERVICE = Path(__file__).with_name("fake_service.py")


def holdem_argv(*args: str) -> list[str]:
    """The `holdem` console script of this environment (``python -m libs.cli.main`` if absent)."""
    script = Path(sys.executable).with_name("holdem")
    base = [str(script)] if script.exists() else [sys.executable, "-m", "libs.cli.main"]
    return [*base, *args]


def run_holdem(
    *args: str, env: Mapping[str, str] | None = None, timeout: float = 90
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        holdem_argv(*args), capture_output=True, text=True, timeout=timeout, env=env, check=False
    )


def fake_services_env() -> dict[str, str]:
    """Environment in which `holdem stack up` runs tests/stack/fake_service.py for each service."""
    return {**os.environ, "HOLDEM_STACK_SERVICE_CMD": f"{sys.executable} {FAKE_SERVICE} {{name}}"}


@dataclass
class StackRun:
    """A `holdem stack up` subprocess and the state file it wrote."""

    proc: subprocess.Popen[str]
    state_dir: Path
    state: dict[str, Any]

    def pids(self) -> list[int]:
        s = self.state
        nodes = [n["pid"] for n in s["nats"].get("nodes", [])]
        return [
            s["pid"],
            s["nats"]["pid"],
            *nodes,
            s["redis"]["pid"],
            *(x["pid"] for x in s["services"]),
        ]

    def output(self) -> str:
        out, _ = self.proc.communicate(timeout=30)
        return out
