"""libs.devstack.supervisor: a process that exits is reported with its status and started
again after a backoff that doubles per consecutive crash up to the cap, and starts over once
the process has stayed up; a spawn that fails is retried. Processes are stand-ins with a fake
clock, so every step is exact."""

from __future__ import annotations

from pathlib import Path
from typing import Self

from libs.devstack.processes import ManagedProcess
from libs.devstack.supervisor import RestartEvent, Supervisor


class FakeProcess(ManagedProcess):
    """Runs until ``crash`` is called; ``spawn`` starts it again (or fails if told to)."""

    def __init__(self, name: str) -> None:
        super().__init__(name, Path(f"/nonexistent/{name}.log"))
        self.status: int | None = None
        self.spawned = 1
        self.fail_spawns = 0
        self._pid = 100

    def crash(self, status: int = -9) -> None:
        self.status = status

    def spawn(self) -> Self:
        if self.fail_spawns:
            self.fail_spawns -= 1
            raise OSError("no such binary")
        self.spawned += 1
        self.restarts += 1
        self.status = None
        self._pid += 1
        return self

    @property
    def started(self) -> bool:
        return True

    @property
    def returncode(self) -> int | None:
        return self.status

    @property
    def pid(self) -> int:
        return self._pid


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _kinds(events: list[RestartEvent]) -> list[tuple[str, str]]:
    return [(e.kind, e.name) for e in events]


def test_a_crash_is_reported_then_restarted_after_the_backoff_and_others_are_left_alone() -> None:
    clock = Clock()
    table, lobby = FakeProcess("table"), FakeProcess("lobby")
    seen: list[RestartEvent] = []
    sup = Supervisor([table, lobby], on_event=seen.append, clock=clock)
    assert sup.poll() == []
    table.crash(-9)
    events = sup.poll()
    assert _kinds(events) == [("exited", "table")]
    assert events[0].status == -9 and events[0].delay == 0.5
    assert "table exited with status -9; restarting it in 0.5s" in events[0].describe()
    assert table.spawned == 1 and sup.pending() == ["table"]
    clock.now += 0.4
    assert sup.poll() == []  # not yet
    clock.now += 0.1
    events = sup.poll()
    assert _kinds(events) == [("restarted", "table")]
    assert events[0].pid == 101 and events[0].restarts == 1
    assert table.spawned == 2 and lobby.spawned == 1
    assert sup.restarts() == {"table": 1, "lobby": 0}
    assert sup.exit_statuses() == {"table": [-9], "lobby": []}
    assert _kinds(seen) == [("exited", "table"), ("restarted", "table")]  # all given on_event


def test_the_backoff_doubles_up_to_the_cap_and_resets_after_a_stable_run() -> None:
    clock = Clock()
    proc = FakeProcess("redis")
    sup = Supervisor([proc], clock=clock, base=0.5, cap=4.0, stable_after=30.0)
    delays = []
    for _ in range(6):
        proc.crash(1)
        (exited,) = sup.poll()
        delays.append(exited.delay)
        clock.now += exited.delay
        assert _kinds(sup.poll()) == [("restarted", "redis")]
        clock.now += 1.0  # crashes again soon after
    assert delays == [0.5, 1.0, 2.0, 4.0, 4.0, 4.0]
    clock.now += 30.0  # then runs long enough
    proc.crash(1)
    (exited,) = sup.poll()
    assert exited.delay == 0.5


def test_a_failed_spawn_is_retried_with_backoff() -> None:
    clock = Clock()
    proc = FakeProcess("nats")
    sup = Supervisor([proc], clock=clock)
    proc.crash(2)
    sup.poll()
    proc.fail_spawns = 1
    clock.now += 0.5
    (failed,) = sup.poll()
    assert failed.kind == "failed" and "no such binary" in failed.describe()
    assert failed.delay == 1.0
    clock.now += 1.0
    assert _kinds(sup.poll()) == [("restarted", "nats")]
    assert proc.returncode is None and proc.spawned == 2
