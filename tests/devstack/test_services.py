"""libs.devstack.ServiceProcess: a real service on a port it chose, SERVING, crashed and restarted
at the same address, stopped gracefully; a service that cannot start is reported with its log."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from libs.devstack import (
    ServiceProcess,
    StartError,
    clean_environ,
    pid_alive,
    restartable_port,
    service_env,
)
from libs.devstack.services import REPO_ROOT
from libs.platform import healthcheck
from tests.conditions import wait_until_sync

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


def test_a_service_restarts_where_it_was(tmp_path: Path) -> None:
    env = service_env(base=clean_environ())  # the evaluator needs neither NATS nor Redis
    # restarted on its port: one outside the kernel's ephemeral range, which no outgoing
    # connection takes meanwhile (libs/devstack/ports.py)
    listen = f"127.0.0.1:{restartable_port()}"
    evaluator = ServiceProcess("evaluator", tmp_path / "evaluator.log", listen=listen, env=env)
    with evaluator:
        address, first_pid = evaluator.address, evaluator.pid
        assert evaluator.port != 0 and address == listen
        assert healthcheck.check(address) == healthcheck.SERVING
        evaluator.kill()
        assert not pid_alive(first_pid)
        assert healthcheck.check(address, timeout=0.5) == healthcheck.UNREACHABLE
        evaluator.restart()
        assert evaluator.address == address and evaluator.restarts == 1
        assert healthcheck.check(address) == healthcheck.SERVING
        assert evaluator.stop() == 0
    events = [line.get("event") for line in evaluator.log_lines()]
    assert events.count("serving") == 2
    assert events[-1] == "stopped"


def test_a_service_that_exits_while_starting_is_reported_with_its_log(tmp_path: Path) -> None:
    crashing = ServiceProcess(
        "table",
        tmp_path / "table.log",
        env=service_env(base=clean_environ()),
        argv=[sys.executable, "-c", "print('no such table'); raise SystemExit(3)"],
    )
    with pytest.raises(StartError, match=r"service table exited with status 3") as caught:
        crashing.start(timeout=20)
    assert "no such table" in str(caught.value)
    assert not crashing.running


def test_a_child_dies_with_the_runner_that_started_it(tmp_path: Path) -> None:
    """Kill -9 the process that spawned a child: the kernel sends the child SIGTERM, so a killed
    `holdem stack up` leaves nothing behind."""
    script = (
        "import sys, time; from pathlib import Path; from libs.devstack.processes import spawn\n"
        "child = spawn([sys.executable, '-c', 'import time; time.sleep(120)'], "
        "Path(sys.argv[1]))\n"
        "print(child.pid, flush=True); time.sleep(120)\n"
    )
    runner = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path / "child.log")],
        stdout=subprocess.PIPE,
        text=True,
        env=service_env(base=clean_environ()) | {"PYTHONPATH": str(REPO_ROOT)},
    )
    try:
        assert runner.stdout is not None
        child = int(runner.stdout.readline())
        wait_until_sync(lambda: "time.sleep(120)" in _cmdline(child), "the child to exec")
        runner.kill()
        runner.wait()
        wait_until_sync(lambda: not pid_alive(child), "the child to get SIGTERM and exit")
    finally:
        runner.kill()
        runner.wait()


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""
