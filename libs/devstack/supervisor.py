"""Restarting crashed processes of the local stack, with backoff: what ``holdem stack up`` does
instead of stopping everything when one process dies.

A ``Supervisor`` watches ``ManagedProcess``es (nats-server, redis-server, the services). Each
``poll`` (the stack's main loop calls it every half second or so) notices a process that has
exited, reports it (``on_event``: its name, exit status and when it will be started again) and,
once its backoff has passed, spawns it again as it was: same command line, address and data
directory, so peers and clients reconnect to it where it was. It does not wait for the process
to be ready; the others keep running meanwhile.

Backoff: ``base`` seconds after the first crash, doubling with every further crash up to ``cap``;
a process that then runs for ``stable_after`` seconds has its backoff reset, so a service that
crashed once an hour ago restarts at once while one that crashes on every start is retried at
most every ``cap`` seconds, never in a tight loop.

    >>> sup = Supervisor([nats, redis, *services], on_event=print)  # doctest: +SKIP
    >>> while True:  # doctest: +SKIP
    ...     sup.poll()
    ...     time.sleep(0.5)
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .processes import ManagedProcess

__all__ = ["BACKOFF_BASE", "BACKOFF_CAP", "STABLE_AFTER", "RestartEvent", "Supervisor"]

log = logging.getLogger("holdem.devstack.supervisor")

#: Seconds before the first restart after a crash.
BACKOFF_BASE = 0.5
#: The longest wait between two restarts of a process that keeps crashing.
BACKOFF_CAP = 30.0
#: Seconds a restarted process must run for its backoff to start again from ``BACKOFF_BASE``.
STABLE_AFTER = 30.0


@dataclass(frozen=True)
class RestartEvent:
    """Something the supervisor did: ``kind`` is "exited" (with ``status`` and ``delay``, the
    seconds until the restart) or "restarted" (with the new ``pid``) or "failed" (the spawn
    itself failed; retried after ``delay``)."""

    kind: str
    name: str
    restarts: int
    status: int | None = None
    delay: float = 0.0
    pid: int | None = None
    error: str = ""

    def describe(self) -> str:
        if self.kind == "exited":
            return (
                f"{self.name} exited with status {self.status}; "
                f"restarting it in {self.delay:.1f}s (restart {self.restarts + 1})"
            )
        if self.kind == "restarted":
            return f"{self.name} restarted (pid {self.pid}, restart {self.restarts})"
        return f"{self.name} could not be started: {self.error}; retrying in {self.delay:.1f}s"


@dataclass
class _Watch:
    process: ManagedProcess
    crashes: int = 0  # consecutive, since it last ran for STABLE_AFTER
    started_at: float = 0.0
    due: float | None = None  # when to start it again (None: running, or not yet noticed)
    history: list[int | None] = field(default_factory=list)  # exit statuses seen


class Supervisor:
    """Restart any watched process that exits, with capped exponential backoff."""

    def __init__(
        self,
        processes: Iterable[ManagedProcess],
        *,
        on_event: Callable[[RestartEvent], None] | None = None,
        base: float = BACKOFF_BASE,
        cap: float = BACKOFF_CAP,
        stable_after: float = STABLE_AFTER,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.clock = clock
        self._watches = [_Watch(p, started_at=clock()) for p in processes]
        self.on_event = on_event
        self.base = base
        self.cap = cap
        self.stable_after = stable_after

    def backoff(self, crashes: int) -> float:
        """The wait before the restart that follows the ``crashes``-th consecutive crash."""
        return float(min(self.cap, self.base * 2 ** max(0, crashes - 1)))

    def _emit(self, event: RestartEvent) -> None:
        log.warning("%s", event.describe())
        if self.on_event is not None:
            self.on_event(event)

    def poll(self) -> list[RestartEvent]:
        """One look at every process: note what exited, restart what is due. Returns what
        happened (also given to ``on_event``)."""
        events: list[RestartEvent] = []
        now = self.clock()
        for watch in self._watches:
            proc = watch.process
            if watch.due is None:
                status = proc.returncode
                if status is None or not proc.started:
                    continue
                if now - watch.started_at >= self.stable_after:
                    watch.crashes = 0
                watch.crashes += 1
                watch.history.append(status)
                delay = self.backoff(watch.crashes)
                watch.due = now + delay
                events.append(RestartEvent("exited", proc.name, proc.restarts, status, delay))
            if watch.due is not None and now >= watch.due:
                try:
                    proc.spawn()
                except Exception as exc:  # a spawn that fails (e.g. the binary is gone)
                    watch.crashes += 1
                    delay = self.backoff(watch.crashes)
                    watch.due = now + delay
                    events.append(
                        RestartEvent(
                            "failed", proc.name, proc.restarts, delay=delay, error=str(exc)
                        )
                    )
                    continue
                watch.due = None
                watch.started_at = now
                events.append(RestartEvent("restarted", proc.name, proc.restarts, pid=proc.pid))
        for event in events:
            self._emit(event)
        return events

    def restarts(self) -> dict[str, int]:
        """How often each process was started again, by name."""
        return {w.process.name: w.process.restarts for w in self._watches}

    def exit_statuses(self) -> dict[str, list[int | None]]:
        """The exit status of every crash seen, by process name."""
        return {w.process.name: list(w.history) for w in self._watches}

    def pending(self) -> list[str]:
        """Processes that exited and wait for their restart."""
        return [w.process.name for w in self._watches if w.due is not None]
