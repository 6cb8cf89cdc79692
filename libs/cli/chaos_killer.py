"""When and how a ``holdem chaos`` run crashes things: the kill plan (``KillPlan``: every K
commits, or with jitter at random points after commits, inside a call or between hands), the
run's moving deadline (``Progress``), what the bots and the killer both watch (``Pulse``: the
table's commits, the calls in flight, whether the table service is up), and the ``Killer``,
which kills a target at each point of the plan, brings it back and times the table service's
restarts.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from libs.cli.chaos_cluster import TARGETS, Cluster, Target, restart_redis
from libs.cli.chaos_report import Report
from libs.devstack import ServiceProcess
from libs.platform import healthcheck
from libs.poker.events import HandEnded, HandVoided
from libs.tableproto.envelope import decode_commit

AFTER_COMMITS = "after_commits"
IN_CALL = "in_call"
BETWEEN_HANDS = "between_hands"


@dataclass(frozen=True)
class KillPoint:
    """When the next kill comes: after ``commits`` more commits; with jitter also while a call
    is in flight (``IN_CALL``) or right after a hand ended (``BETWEEN_HANDS``)."""

    kind: str
    commits: int = 0


class KillPlan:
    """Every ``kill_every`` commits, or with ``jitter`` at random points of three kinds: after a
    random number of commits (1 to 2K-1, K on average), inside a call, between hands. Targets
    take turns; with jitter they are drawn at random. Seeded, so a failing run can be rerun."""

    def __init__(
        self, kill_every: int, targets: tuple[str, ...], jitter: bool, rng: random.Random
    ) -> None:
        self.kill_every, self.targets, self.jitter, self.rng = kill_every, targets, jitter, rng
        self._turn = 0

    def next_point(self) -> KillPoint:
        if not self.jitter:
            return KillPoint(AFTER_COMMITS, self.kill_every)
        kind = self.rng.choice((AFTER_COMMITS, AFTER_COMMITS, IN_CALL, BETWEEN_HANDS))
        if kind == AFTER_COMMITS:
            return KillPoint(kind, self.rng.randint(1, max(1, 2 * self.kill_every - 1)))
        # the others still wait for some play first, so kills do not pile up
        return KillPoint(kind, self.rng.randint(1, self.kill_every))

    def next_target(self) -> str:
        if self.jitter:
            return self.rng.choice(self.targets)
        self._turn += 1
        return self.targets[(self._turn - 1) % len(self.targets)]


class Progress:
    """The run's deadline moves with its progress: it fails only when nothing was committed for
    ``stall`` seconds (or, with ``timeout``, when the whole run took longer)."""

    def __init__(self, stall: float, timeout: float | None) -> None:
        self.stall = stall
        now = time.monotonic()
        self.last = now
        self.end = None if not timeout else now + timeout

    def touch(self) -> None:
        self.last = time.monotonic()

    def expired(self) -> bool:
        now = time.monotonic()
        return now - self.last > self.stall or (self.end is not None and now > self.end)

    def reason(self) -> str:
        if self.end is not None and time.monotonic() > self.end:
            return "the run took longer than --timeout"
        return f"nothing was committed for {self.stall:.0f}s"


@dataclass
class Pulse:
    """What the bots and the killer both watch while a run goes on: the table's public commits
    as they come (``count``; ``hand_ended`` is set at a hand's end while ``watch_hands``), the
    calls to the table service in flight, and ``up`` (set while the table service is up: calls
    wait while it is cleared)."""

    progress: Progress
    commits: int = 0
    in_flight: int = 0
    watch_hands: bool = False
    hand_ended: asyncio.Event = field(default_factory=asyncio.Event)
    up: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self.up.set()

    async def count(self, msg: Any) -> None:
        """The handler of the table's public subject."""
        self.commits += 1
        self.progress.touch()
        if self.watch_hands and any(
            isinstance(e, (HandEnded, HandVoided)) for e in decode_commit(msg.data)[1]
        ):
            self.hand_ended.set()


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 3) if values else 0.0


class Killer:
    """Kills a target at each point of the plan and restarts it (``run``); the table service's
    restart is watched (``_restart_table``), the others' run in the background while the plan
    goes on (a dealer or a NATS node takes a second or two to come back, in which the table
    plays on: waiting for it made the run kill a tenth as often as asked); when the plan picks a
    target still coming back, the next target that is up is killed instead, or, when none is,
    that one once it is back. Without ``redis`` in the targets, redis-server is restarted once
    (at the second kill)."""

    def __init__(self, cluster: Cluster, plan: KillPlan, pulse: Pulse, report: Report) -> None:
        self.cluster, self.plan, self.pulse, self.report = cluster, plan, pulse, report
        self.targets = {name: TARGETS[name](cluster) for name in plan.targets}
        # From a kill of the table service until it is SERVING again, and until the table's
        # next commit, in seconds.
        self.serving_times: list[float] = []
        self.commit_times: list[float] = []

    def record_restarts(self) -> None:
        """The table service's restart times, into the report: median and worst."""
        report = self.report
        report.restart_serving_p50 = _median(self.serving_times)
        report.restart_serving_max = round(max(self.serving_times, default=0.0), 3)
        report.restart_commit_p50 = _median(self.commit_times)
        report.restart_commit_max = round(max(self.commit_times, default=0.0), 3)

    async def run(self) -> None:
        if not self.plan.kill_every:
            return
        restarts: dict[str, asyncio.Task[None]] = {}
        try:
            await self._kill_on_plan(restarts)
        finally:  # the run is over (or failed): the targets come back before it is checked
            for task in restarts.values():
                with contextlib.suppress(Exception):
                    await asyncio.shield(task)

    async def _kill_on_plan(self, restarts: dict[str, asyncio.Task[None]]) -> None:
        plan, report, targets = self.plan, self.report, self.targets
        services = self.cluster.services
        while True:
            point = plan.next_point()
            await self._wait_for(point)
            for task in restarts.values():
                if task.done():
                    task.result()  # a target that did not come back fails the run
            name = plan.next_target()
            for _ in range(len(targets) - 1):  # one that is not still coming back, if any
                if name not in restarts or restarts[name].done():
                    break
                name = plan.next_target()
            pending = restarts.get(name)
            if pending is not None:
                await pending
            target = targets[name]
            victim = services.table
            replicated = len(services.tables) > 1
            if name == "table" and not replicated:
                self.pulse.up.clear()
            target.kill()
            report.kills += 1
            report.kills_by_target[name] = report.kills_by_target.get(name, 0) + 1
            report.kill_points[point.kind] = report.kill_points.get(point.kind, 0) + 1
            if report.kills == 2 and not report.redis_restarts and "redis" not in targets:
                await asyncio.to_thread(restart_redis, self.cluster.redis)
                report.redis_restarts += 1
            if name == "redis":
                report.redis_restarts += 1
            if name == "table" and replicated:
                await self._takeover(target, victim)
            elif name == "table":
                await self._restart_table(target, point)
            else:
                restarts[name] = asyncio.create_task(asyncio.to_thread(target.restart))

    async def _wait_for(self, point: KillPoint) -> None:
        pulse = self.pulse
        start = pulse.commits
        while pulse.commits - start < point.commits:
            await asyncio.sleep(0.005)
        if point.kind == IN_CALL:
            while pulse.in_flight == 0:
                await asyncio.sleep(0.001)
            await asyncio.sleep(self.plan.rng.uniform(0, 0.01))  # somewhere inside it
        elif point.kind == BETWEEN_HANDS:
            pulse.hand_ended.clear()
            pulse.watch_hands = True
            try:
                await pulse.hand_ended.wait()
            finally:
                pulse.watch_hands = False

    async def _takeover(self, target: Target, victim: ServiceProcess) -> None:
        """With replicas: another one takes the killed one's table over (its lease expires);
        then the killed one starts again and serves its share."""
        pulse, progress = self.pulse, self.pulse.progress
        killed_at, before = time.monotonic(), pulse.commits
        while pulse.commits == before:
            if progress.expired():
                raise TimeoutError(f"no replica took the table over: {progress.reason()}")
            await asyncio.sleep(0.002)
        self.commit_times.append(time.monotonic() - killed_at)
        target.restart()
        while await asyncio.to_thread(healthcheck.check, victim.address, "", 0.1) != (
            healthcheck.SERVING
        ):
            if not victim.running:
                raise victim.failed("did not start")
            if progress.expired():
                raise TimeoutError(f"the killed replica did not come back: {progress.reason()}")
            await asyncio.sleep(0.01)
        self.serving_times.append(time.monotonic() - killed_at)

    async def _restart_table(self, target: Target, point: KillPoint) -> None:
        """The table service again (a prewarmed spare). A restarted table takes its tables
        over and bots play on at once, before its health check answers: keep counting while
        it starts, and kill again as soon as the next point comes, serving or not. (Health
        checks are sync gRPC: off the event loop, where they could stall against grpc.aio.)"""
        pulse, progress = self.pulse, self.pulse.progress
        killed_at, before = time.monotonic(), pulse.commits
        target.restart()
        table = self.cluster.services.table
        while True:
            status = await asyncio.to_thread(healthcheck.check, table.address, "", 0.1)
            if status == healthcheck.SERVING:
                self.serving_times.append(time.monotonic() - killed_at)
                pulse.up.set()
                break
            if not table.running:
                raise table.failed("did not start")
            if progress.expired():
                raise TimeoutError(f"the table service did not come back: {progress.reason()}")
            if pulse.commits - before >= max(point.commits, 1):
                return  # it commits before it says SERVING: the next kill may come now
            await asyncio.sleep(0.01)
        while pulse.commits == before and not progress.expired():
            await asyncio.sleep(0.002)
        self.commit_times.append(time.monotonic() - killed_at)
