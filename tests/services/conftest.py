"""Start services as real subprocesses (``python -m services.<name>``) for tests.

Each listens on ``127.0.0.1:0`` (a free port chosen by the OS, no race) and the port is read from
its "serving" log line. Every process started here is stopped at teardown (SIGTERM, then SIGKILL).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 20.0


@dataclass
class ServiceProcess:
    name: str
    process: subprocess.Popen[bytes]
    port: int
    log_path: Path

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def log_lines(self) -> list[dict[str, object]]:
        lines = []
        for raw in self.log_path.read_text(errors="replace").splitlines():
            try:
                lines.append(json.loads(raw))
            except ValueError:
                continue
        return lines

    def terminate(self, timeout: float = 15.0) -> int:
        """SIGTERM, wait for the exit status (SIGKILL if it does not stop in time)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise


def clean_env(extra: Mapping[str, str]) -> dict[str, str]:
    """The test runner's environment without any HOLDEM_* setting, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOLDEM_")}
    env.update({"HOLDEM_LISTEN": "127.0.0.1:0", "HOLDEM_LOG_FORMAT": "json"})
    env["HOLDEM_METRICS_LISTEN"] = "127.0.0.1:0"  # a free port, never a default another run holds
    env.update(extra)
    return env


@dataclass
class Launched:
    """A service process that may not be listening yet."""

    name: str
    process: subprocess.Popen[bytes]
    log_path: Path

    def wait_serving(self, timeout: float = START_TIMEOUT) -> ServiceProcess:
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                for line in self.log_path.read_text(errors="replace").splitlines():
                    if '"serving"' in line:
                        record = json.loads(line)
                        if record.get("event") == "serving":
                            port = int(record["port"])
                            return ServiceProcess(self.name, self.process, port, self.log_path)
                if self.process.poll() is not None:
                    raise RuntimeError(
                        f"{self.name} exited with {self.process.returncode}:\n"
                        + self.log_path.read_text()
                    )
                time.sleep(0.05)
            raise RuntimeError(
                f"{self.name} did not start in {timeout}s:\n{self.log_path.read_text()}"
            )
        except BaseException:
            self.process.kill()
            self.process.wait()
            raise


def launch_service(name: str, log_dir: Path, env: Mapping[str, str] = {}) -> Launched:
    """Start ``python -m services.<name>`` without waiting for it to listen."""
    log_path = log_dir / f"{name}-{time.monotonic_ns()}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", f"services.{name}"],
            cwd=ROOT,
            env=clean_env(env),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    return Launched(name, process, log_path)


def start_service(name: str, log_dir: Path, env: Mapping[str, str] = {}) -> ServiceProcess:
    return launch_service(name, log_dir, env).wait_serving()


def stop_all(services: list[ServiceProcess], timeout: float = 15.0) -> list[int]:
    """SIGTERM every service at once, then collect the exit statuses."""
    for service in services:
        if service.process.poll() is None:
            service.process.send_signal(signal.SIGTERM)
    return [service.terminate(timeout) for service in services]


Starter = Callable[..., ServiceProcess]


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Starter]:
    """``start(name, env={...})`` -> a running ServiceProcess, stopped after the test."""
    started: list[ServiceProcess] = []

    def _start(name: str, env: Mapping[str, str] = {}) -> ServiceProcess:
        service = start_service(name, tmp_path, env)
        started.append(service)
        return service

    yield _start
    for service in reversed(started):
        if service.process.poll() is None:
            service.process.kill()
            service.process.wait()
