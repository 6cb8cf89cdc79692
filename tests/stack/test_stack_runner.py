"""The stack machinery (`holdem stack up|status|down`, LocalStack) with stand-in services, so it
is checked whatever state the real services are in. tests/stack/test_stack.py runs the real ones."""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from libs.devstack import SERVICE_NAMES, LocalStack, StackStartError, pid_alive
from libs.devstack import stack as stack_module
from libs.devstack.processes import free_ports
from libs.devstack.stackstate import describe, read_state
from libs.platform import healthcheck
from tests.stack.stackrun import (
    FAKE_SERVICE,
    StackRun,
    fake_services_env,
    run_holdem,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]


def _entry(state: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in state["services"] if s["name"] == name)


def _wait_for_state(
    run: StackRun, ready: Callable[[dict[str, Any]], bool], timeout: float = 60
) -> dict[str, Any]:
    """The stack's state file once ``ready`` holds for it (fails at ``timeout``)."""
    deadline = time.monotonic() + timeout
    state: dict[str, Any] | None = None
    while time.monotonic() < deadline:
        state = read_state(run.state_dir)
        if state is not None and ready(state):
            return state
        time.sleep(0.1)
    pytest.fail(f"the stack's state never got there: {state}")


def _assert_all_gone(run: StackRun) -> None:
    assert [pid for pid in run.pids() if pid_alive(pid)] == []
    assert not Path(run.state["workdir"]).exists()
    assert not (run.state_dir / "state.json").exists()


def test_up_status_down(start_stack: Callable[..., StackRun]) -> None:
    env = fake_services_env()
    run = start_stack(env=env)
    assert [s["name"] for s in run.state["services"]] == list(SERVICE_NAMES)

    status = run_holdem("stack", "status", "--json", "--state-dir", str(run.state_dir), env=env)
    assert status.returncode == 0, status.stderr
    report = json.loads(status.stdout)
    assert report["nats"] == run.state["nats"]["url"]
    assert [(s["name"], s["status"]) for s in report["services"]] == [
        (name, "SERVING") for name in SERVICE_NAMES
    ]

    again = run_holdem("stack", "up", "--state-dir", str(run.state_dir), env=env)
    assert again.returncode == 1
    assert "already running" in again.stderr

    down = run_holdem("stack", "down", "--state-dir", str(run.state_dir), env=env)
    assert down.returncode == 0, down.stderr
    assert run.proc.wait(timeout=30) == 0
    _assert_all_gone(run)

    after = run_holdem("stack", "status", "--state-dir", str(run.state_dir), env=env)
    assert after.returncode == 1
    assert "no holdem stack running" in after.stderr


def test_sigterm_stops_everything(start_stack: Callable[..., StackRun]) -> None:
    run = start_stack(env=fake_services_env())
    run.proc.send_signal(signal.SIGTERM)
    assert run.proc.wait(timeout=30) == 0
    _assert_all_gone(run)


def test_a_process_that_dies_is_restarted_and_the_others_keep_running(
    start_stack: Callable[..., StackRun],
) -> None:
    env = fake_services_env()
    run = start_stack(env=env)
    before = {s["name"]: s["pid"] for s in run.state["services"]}
    os.kill(before["lobby"], signal.SIGKILL)
    os.kill(run.state["redis"]["pid"], signal.SIGKILL)
    state = _wait_for_state(
        run, lambda s: _entry(s, "lobby")["restarts"] == 1 and s["redis"]["restarts"] == 1
    )
    lobby = _entry(state, "lobby")
    assert lobby["pid"] != before["lobby"] and pid_alive(lobby["pid"])
    assert lobby["address"] == _entry(run.state, "lobby")["address"]  # where it was
    assert pid_alive(state["redis"]["pid"]) and state["redis"]["url"] == run.state["redis"]["url"]
    # nothing else was touched
    others = {s["name"]: s["pid"] for s in state["services"] if s["name"] != "lobby"}
    assert others == {name: pid for name, pid in before.items() if name != "lobby"}
    assert run.proc.poll() is None
    assert healthcheck.check(lobby["address"], timeout=5) == healthcheck.SERVING

    status = run_holdem("stack", "status", "--json", "--state-dir", str(run.state_dir), env=env)
    assert status.returncode == 0, status.stderr
    report = json.loads(status.stdout)
    assert report["restarts"] == {
        "nats": 0,
        "redis": 1,
        **{name: int(name == "lobby") for name in SERVICE_NAMES},
    }
    assert [s["restarts"] for s in report["services"]] == [
        int(name == "lobby") for name in SERVICE_NAMES
    ]
    text = run_holdem("stack", "status", "--state-dir", str(run.state_dir), env=env)
    assert "restarts 1" in text.stdout

    run.proc.send_signal(signal.SIGTERM)
    assert run.proc.wait(timeout=30) == 0
    out = run.output()
    assert f"lobby exited with status {-signal.SIGKILL}" in out
    assert f"redis exited with status {-signal.SIGKILL}" in out
    assert "lobby restarted" in out
    run.state = state
    _assert_all_gone(run)


def test_a_service_that_cannot_start_is_reported_with_its_log(tmp_path: Path) -> None:
    env = {
        **fake_services_env(),
        "HOLDEM_STACK_SERVICE_CMD": f"{sys.executable} -c \"print('no such table'); exit(3)\"",
    }
    result = run_holdem("stack", "up", "--state-dir", str(tmp_path), "--timeout", "20", env=env)
    assert result.returncode == 1
    assert "exited with status 3" in result.stderr
    assert "no such table" in result.stderr
    assert not (tmp_path / "state.json").exists()


def test_detach_then_down(tmp_path: Path) -> None:
    env = fake_services_env()
    up = run_holdem("stack", "up", "--detach", "--state-dir", str(tmp_path), env=env)
    try:
        assert up.returncode == 0, up.stderr
        state = json.loads((tmp_path / "state.json").read_text())
        assert pid_alive(state["pid"])
    finally:
        down = run_holdem("stack", "down", "--state-dir", str(tmp_path), env=env)
    assert down.returncode == 0, down.stderr
    run = StackRun(None, tmp_path, state)  # type: ignore[arg-type]
    _assert_all_gone(run)


def test_local_stack_in_process_with_keep_temp(tmp_path: Path) -> None:
    stack = LocalStack(
        services=("gateway", "lobby"),
        service_argv=lambda name: [sys.executable, str(FAKE_SERVICE), name],
        keep_temp=True,
        workdir_parent=tmp_path,
        extra_env={"FAKE_PEERS": "gateway,lobby"},
    )
    with stack:
        assert healthcheck.check(stack.address("gateway")) == healthcheck.SERVING
        # its users' file loaded, and every JetStream write fsynced before it is acknowledged
        assert stack.nats is not None and stack.nats.jetstream_config().get("sync_always")
        pids = stack.pids()
    assert [pid for pid in pids if pid_alive(pid)] == []
    assert stack.workdir is not None
    assert (stack.workdir / "logs" / "gateway.log").is_file()


def test_local_stack_startup_timeout_names_the_service(tmp_path: Path) -> None:
    stack = LocalStack(
        services=("ai",),
        # listens nowhere, never exits: the health check can only time out
        service_argv=lambda name: [sys.executable, "-c", "import time; time.sleep(60)"],
        workdir_parent=tmp_path,
        startup_timeout=2,
    )
    with pytest.raises(StackStartError, match=r"not SERVING after 2s: ai"):
        stack.start()
    assert [pid for pid in stack.pids() if pid_alive(pid)] == []
    assert list(tmp_path.iterdir()) == []


def test_a_service_that_ignores_sigterm_is_killed(tmp_path: Path) -> None:
    stack = LocalStack(
        services=("ai",),
        service_argv=lambda name: [sys.executable, str(FAKE_SERVICE), name],
        workdir_parent=tmp_path,
        extra_env={"FAKE_PEERS": "ai", "FAKE_IGNORE_SIGTERM": "1"},
    )
    stack.start()
    stack.stop(timeout=1)  # returns once every process is gone
    assert stack.services[0].returncode == -signal.SIGKILL
    assert [pid for pid in stack.pids() if pid_alive(pid)] == []


def test_a_stack_on_a_three_node_nats_cluster(tmp_path: Path) -> None:
    stack = LocalStack(
        services=("table",),
        service_argv=lambda name: [sys.executable, str(FAKE_SERVICE), name],
        workdir_parent=tmp_path,
        extra_env={"FAKE_PEERS": "table"},
        nats_cluster=3,
    )
    with stack:
        nodes = describe(stack)["nats"]["nodes"]
        assert [n["name"] for n in nodes] == ["nats-n0", "nats-n1", "nats-n2"]
        assert stack.nats_url == ",".join(n["url"] for n in nodes)
        env = stack.service("table").environment
        assert env["HOLDEM_NATS_URL"] == stack.nats_url_for("table")
        assert env["HOLDEM_NATS_URL"].count("://table:") == 3  # its own user, on every node
        assert env["HOLDEM_NATS_REPLICAS"] == "3"
        # every node fsyncs each JetStream write before acknowledging it (natsconf)
        assert all(stack.nats_node(i).jetstream_config().get("sync_always") for i in range(3))
        pids = stack.pids()
        assert len(pids) == 5  # three nodes, redis, the service
    assert [pid for pid in pids if pid_alive(pid)] == []
    assert list(tmp_path.iterdir()) == []


def test_a_port_taken_before_its_service_binds_it_is_chosen_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ports are chosen before the services start (each must know its peers' addresses); when
    another process binds one first, the stack chooses them all again instead of failing."""
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    real = free_ports
    calls: list[int] = []

    def first_one_taken(host: str, count: int) -> list[int]:
        calls.append(count)
        ports = real(host, count)
        return [taken.getsockname()[1], *ports[1:]] if len(calls) == 1 else ports

    monkeypatch.setattr(stack_module, "free_ports", first_one_taken)
    stack = LocalStack(
        services=("ai",),
        service_argv=lambda name: [sys.executable, str(FAKE_SERVICE), name],
        workdir_parent=tmp_path,
        extra_env={"FAKE_PEERS": "ai"},
    )
    try:
        with stack:
            assert healthcheck.check(stack.address("ai")) == healthcheck.SERVING
            assert len(calls) == 2
    finally:
        taken.close()
