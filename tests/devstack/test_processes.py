"""libs.devstack.processes, the one way to start a program: a ``Program`` is ready when it says
so (a server's port file), a program that exits first is reported with its log, and a child
spawned to ``outlive`` its runner (``holdem stack up --detach``) is not tied to it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from libs.devstack import StartError, clean_environ, pid_alive, service_env
from libs.devstack.programs import Program, port_file_written
from libs.devstack.services import REPO_ROOT
from tests.conditions import wait_until_sync

pytestmark = pytest.mark.timeout(60)


def test_a_program_is_ready_once_its_port_file_is_written(tmp_path: Path) -> None:
    port_file = tmp_path / "server.port"
    writes_late = (
        "import sys, time; from pathlib import Path\n"
        "time.sleep(0.3); Path(sys.argv[1]).write_text('4242'); time.sleep(60)\n"
    )
    program = Program(
        "server",
        [sys.executable, "-c", writes_late, str(port_file)],
        tmp_path / "server.log",
        ready=port_file_written(port_file),
    )
    with program:
        assert port_file.read_text() == "4242"
        assert program.running
    assert not program.running


def test_a_program_that_exits_before_it_is_ready_is_reported_with_its_log(tmp_path: Path) -> None:
    port_file = tmp_path / "server.port"
    program = Program(
        "server",
        [sys.executable, "-c", "print('no port for you'); raise SystemExit(4)"],
        tmp_path / "server.log",
        ready=port_file_written(port_file),
    )
    with pytest.raises(StartError, match="server exited with status 4") as caught:
        program.start(timeout=20)
    assert "no port for you" in str(caught.value)


#: A child that says it is ready, then answers SIGUSR1 by writing "alive" (both to files).
CHILD = """\
import signal, sys, time
from pathlib import Path
signal.signal(signal.SIGUSR1, lambda *_: Path(sys.argv[2]).write_text("alive"))
Path(sys.argv[1]).write_text("ready")
while True:
    time.sleep(1)
"""


def test_a_child_spawned_to_outlive_its_runner_does(tmp_path: Path) -> None:
    """The opposite of test_services' tied child: kill -9 the runner, and the child still
    answers a signal sent after the runner is gone (a tied child has SIGTERM pending by then,
    which the kernel delivers before a later SIGUSR1's handler can run)."""
    ready, alive = tmp_path / "ready", tmp_path / "alive"
    script = (
        "import sys; from pathlib import Path; from libs.devstack.processes import spawn\n"
        "child = spawn([sys.executable, '-c', sys.argv[2], sys.argv[3], sys.argv[4]], "
        "Path(sys.argv[1]), outlive=True)\n"
        "print(child.pid, flush=True); import time; time.sleep(120)\n"
    )
    runner = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path / "child.log"), CHILD, str(ready), str(alive)],
        stdout=subprocess.PIPE,
        text=True,
        env=service_env(base=clean_environ()) | {"PYTHONPATH": str(REPO_ROOT)},
    )
    child = 0
    try:
        assert runner.stdout is not None
        child = int(runner.stdout.readline())
        wait_until_sync(ready.exists, "the child to be ready")
        runner.kill()
        runner.wait()
        os.kill(child, signal.SIGUSR1)
        wait_until_sync(alive.exists, "the child to answer after its runner died")
    finally:
        runner.kill()
        runner.wait()
        if child and pid_alive(child):
            os.kill(child, signal.SIGKILL)
