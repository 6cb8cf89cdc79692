"""`start_stack`: run `holdem stack up` as a subprocess for a test; nothing outlives the test."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import pytest

from libs.devstack import pid_alive
from libs.devstack.stackstate import read_state
from tests.stack.stackrun import StackRun, holdem_argv


@pytest.fixture
def start_stack(tmp_path: Path) -> Iterator[Callable[..., StackRun]]:
    """``start_stack(env=..., timeout=..., state_dir=..., args=...)`` runs `holdem stack up
    --state-dir DIR [ARGS]` (a new temp dir unless given) and returns once the state file is
    written (everything SERVING). At teardown anything still alive is killed, so a failing
    test leaks no process."""
    runs: list[tuple[subprocess.Popen[str], Path]] = []

    def start(
        env: Mapping[str, str] | None = None,
        timeout: float = 90.0,
        state_dir: Path | None = None,
        args: Sequence[str] = (),
    ) -> StackRun:
        state_dir = state_dir or tmp_path / f"stack{len(runs)}"
        proc = subprocess.Popen(
            holdem_argv(
                "stack", "up", "--state-dir", str(state_dir), "--timeout", str(timeout), *args
            ),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=dict(env) if env is not None else None,
        )
        runs.append((proc, state_dir))
        deadline = time.monotonic() + timeout + 15
        while time.monotonic() < deadline:
            state = read_state(state_dir)
            if state is not None and state.get("pid") == proc.pid:
                return StackRun(proc, state_dir, state)
            if proc.poll() is not None:
                out, _ = proc.communicate()
                pytest.fail(f"holdem stack up exited with {proc.returncode}:\n{out}")
            time.sleep(0.1)
        proc.kill()
        out, _ = proc.communicate()
        pytest.fail(f"holdem stack up did not come up in {timeout}s:\n{out}")

    yield start

    for proc, state_dir in runs:
        state = read_state(state_dir)
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
        # only this run's state (a later run on the same state dir rewrote it)
        if state is not None and state.get("pid") == proc.pid:
            run = StackRun(proc, state_dir, state)
            for pid in run.pids():
                if pid_alive(pid):
                    os.kill(pid, signal.SIGKILL)
