"""``holdem chaos --hands N --kill-every K [--kill table,dealer,...] [--jitter] [--json]``: play
bot-only hands through the table service while killing (SIGKILL) one of the targets every K
commits (with ``--jitter``: at random points, inside calls and between hands too) and restarting
it; then check the stream: every hand completed or voided by rule, the chip total unchanged, no
commit applied twice, no sequence gap, and every dealt card following from its revealed seed.

It runs its own nats-server (JetStream; with ``--nats-cluster 3``, or the ``nats-node`` target, a
three-node cluster with every stream replicated three times) and redis-server on free loopback
ports, plus the dealer, evaluator and table services as processes (``--replicas 2``: two table
services sharing the table by lease, so killing the one serving it makes the other take it over),
and stops all of them at the end. Kill
targets are a registry (``TARGETS``); the table service restarts from a prewarmed spare. The run
has no fixed deadline: it fails when nothing was committed for ``--stall-timeout`` seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from holdem.common.v1 import common_pb2
from holdem.table.v1 import table_pb2, table_pb2_grpc

from libs.devstack import (
    ManagedProcess,
    NatsCluster,
    NatsServer,
    RedisServer,
    ServiceProcess,
    StartError,
    free_port,
    log_tail,
    service_env,
    start_redis,
)
from libs.devstack.identity import aio_channel_as
from libs.devstack.standby import PrewarmedService
from libs.eventstore.jetstream import JetStreamEventStore
from libs.fairdeck.audit import outcomes_from_stream
from libs.platform import healthcheck
from libs.platform.natsconn import connect_nats
from libs.platform.tasks import stop_tasks
from libs.poker.events import HandEnded, HandVoided
from libs.table import replay
from libs.table.events import Event, PlayerLeft, PlayerSeated, TableClosed
from libs.tableproto.envelope import decode_commit

TABLE_ID = "chaos"
STREAM = "HOLDEM_TABLES"


@dataclass
class Report:
    hands_completed: int = 0
    hands_voided: int = 0
    kills: int = 0
    kills_by_target: dict[str, int] = field(default_factory=dict)
    kill_points: dict[str, int] = field(default_factory=dict)  # after commits, in a call, ...
    redis_restarts: int = 0
    replacements: int = 0  # bots that lost every chip, replaced by new ones (new buy-ins)
    chips_before: int = 0
    chips_after: int = 0
    duplicate_commits: int = 0
    sequence_gaps: int = 0
    commits: int = 0
    decks_verified: int = 0
    decks_unverifiable: int = 0  # completed, but the dealer's store was wiped before the reveal
    fairness_failures: list[str] = field(default_factory=list)
    # From a kill of the table service until it is SERVING again, and until the table's next
    # commit (its lease taken back, its projection caught up): median and worst, in seconds.
    restart_serving_p50: float = 0.0
    restart_serving_max: float = 0.0
    restart_commit_p50: float = 0.0
    restart_commit_max: float = 0.0
    prewarmed: bool = True
    replicas: int = 1  # table services sharing the table by lease
    nats_nodes: int = 1  # nats-servers (a JetStream cluster when more than one)
    seconds: float = 0.0
    ok: bool = False

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class Services:
    """The dealer, evaluator and table services as processes on fixed loopback ports, each
    restartable; the table service's restarts hand over to a prewarmed spare process
    (``libs.devstack.standby``) unless ``prewarm`` is off. ``replicas`` table services share
    the tables by lease (``tables``; ``owner`` is the one that answered last)."""

    def __init__(
        self,
        nats_url: str,
        redis_url: str,
        workdir: Path,
        prewarm: bool = True,
        replicas: int = 1,
        nats_replicas: int = 1,
    ) -> None:
        self.nats_url, self.redis_url, self.workdir = nats_url, redis_url, workdir
        addresses = {name: f"127.0.0.1:{free_port()}" for name in ("dealer", "evaluator")}
        env = service_env(
            peers=addresses,
            nats_url=nats_url,
            redis_url=redis_url,
            log_level="info",
            extra={"HOLDEM_NATS_REPLICAS": str(nats_replicas)},
        )
        self.dealer = self._service("dealer", addresses["dealer"], env)
        self.evaluator = self._service("evaluator", addresses["evaluator"], env)
        self.tables: list[ServiceProcess] = []
        for index in range(replicas):
            table_env = {
                **env,
                "HOLDEM_TABLE_LEASE_TTL_SECONDS": "1",
                "HOLDEM_TABLE_SNAPSHOT_EVERY": "7",
                "HOLDEM_TABLE_DEALER": "service",
                "HOLDEM_TABLE_EVALUATOR": "service",
                # bots decide in-process (the same levels as the ai service), which chaos
                # does not run: without this every bot decision would fall back to the clock rule
                "HOLDEM_TABLE_AI": "local",
                # each replica restarted under its name: it takes its leases back at once
                "HOLDEM_TABLE_REPLICA_ID": "chaos-table" + (f"-{index}" if replicas > 1 else ""),
            }
            table_listen = f"127.0.0.1:{free_port()}"
            log = workdir / ("table.log" if index == 0 else f"table-{index}.log")
            self.tables.append(
                PrewarmedService("table", log, listen=table_listen, env=table_env)
                if prewarm
                else ServiceProcess("table", log, listen=table_listen, env=table_env)
            )
        self.owner = 0
        try:
            self.dealer.start(60.0)
            self.evaluator.start(60.0)
            for table in self.tables:
                table.start(60.0)
        except BaseException:
            self.stop()
            raise

    @property
    def table(self) -> ServiceProcess:
        """The table service that answered last (with one replica: the table service)."""
        return self.tables[self.owner]

    def _service(self, name: str, listen: str, env: dict[str, str]) -> ServiceProcess:
        return ServiceProcess(name, self.workdir / f"{name}.log", listen=listen, env=env)

    @property
    def table_addr(self) -> str:
        return self.table.address

    def stop(self) -> None:
        for service in (*self.tables, self.evaluator, self.dealer):
            service.stop(10.0)


def _restart_redis(server: RedisServer) -> None:
    """Crash redis-server (SIGKILL: it keeps nothing) and start it again on the same port."""
    server.kill()
    server.restart(timeout=20.0)


# ---------------------------------------------------------------------------- kill targets


@dataclass(frozen=True)
class Target:
    """Something chaos can crash: ``kill`` it (SIGKILL), then ``restart`` it (blocking: run off
    the event loop). ``restart`` may return before the process serves (the table service:
    the killer watches it come back while commits keep being counted)."""

    name: str
    kill: Callable[[], None]
    restart: Callable[[], None]


@dataclass
class Cluster:
    """What the targets act on: the servers and the services of one chaos run."""

    services: Services
    redis: RedisServer
    nats: NatsServer | NatsCluster


def _process(name: str, process: ManagedProcess, restart: Callable[[], object]) -> Target:
    def kill() -> None:
        process.kill()

    def again() -> None:
        restart()

    return Target(name, kill, again)


def _table(cluster: Cluster) -> Target:
    """The table service that answered last (with replicas: the one serving the table, so the
    other has to take it over)."""
    services = cluster.services
    victim: list[ServiceProcess] = []

    def kill() -> None:
        victim[:] = [services.table]
        victim[0].kill()

    def again() -> None:
        victim[0].spawn()

    return Target("table", kill, again)


def _nats_node(cluster: Cluster) -> Target:
    """One node of the NATS cluster, in turn (the first kill takes the first node), restarted
    on its ports with its store once it is back in the cluster."""
    nats = cluster.nats
    if not isinstance(nats, NatsCluster):
        raise ValueError("the nats-node target needs a NATS cluster (--nats-cluster 3)")
    turn = [0]

    def kill() -> None:
        nats.node(turn[0] % nats.size).kill()

    def again() -> None:
        nats.restart_node(turn[0] % nats.size, timeout=60.0)
        turn[0] += 1

    return Target("nats-node", kill, again)


def _service(name: str) -> Callable[[Cluster], Target]:
    def target(cluster: Cluster) -> Target:
        process: ServiceProcess = getattr(cluster.services, name)
        return _process(name, process, lambda: process.start(60.0))

    return target


def _redis(cluster: Cluster) -> Target:
    return _process("redis", cluster.redis, lambda: cluster.redis.restart(timeout=20.0))


#: What ``--kill`` may name, each built for a run. Add a target here (e.g. one NATS node of a
#: cluster) and ``--kill`` accepts it.
TARGETS: dict[str, Callable[[Cluster], Target]] = {
    "table": _table,
    "dealer": _service("dealer"),
    "evaluator": _service("evaluator"),
    "redis": _redis,
    "nats-node": _nats_node,
}


def parse_targets(text: str) -> tuple[str, ...]:
    """``"table,redis"`` -> ("table", "redis"); ValueError naming an unknown target."""
    names = tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    unknown = [n for n in names if n not in TARGETS]
    if unknown or not names:
        raise ValueError(
            f"unknown kill target(s) {', '.join(unknown) or '(none)'}: choose from "
            f"{', '.join(TARGETS)}"
        )
    return names


# ---------------------------------------------------------------------------- kill points

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


CONFIG = common_pb2.TableConfig(
    variant=common_pb2.VARIANT_HOLDEM,
    betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
    max_seats=6,
    small_blind=1,
    big_blind=2,
    action_clock_seconds=30,
)

RETRIED = (
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.CANCELLED,
)


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 3) if values else 0.0


async def _drive(
    cluster: Cluster,
    plan: KillPlan,
    hands: int,
    players: int,
    progress: Progress,
    report: Report,
) -> None:
    services = cluster.services
    targets = {name: TARGETS[name](cluster) for name in plan.targets}
    nc = await connect_nats(services.nats_url)
    commits = 0
    hand_ended = asyncio.Event()
    watch_hands = False
    in_flight = 0

    async def count(msg: Any) -> None:
        nonlocal commits
        commits += 1
        progress.touch()
        if watch_hands and any(
            isinstance(e, (HandEnded, HandVoided)) for e in decode_commit(msg.data)[1]
        ):
            hand_ended.set()

    await nc.subscribe(f"holdem.public.table.{TABLE_ID}", cb=count)
    config = common_pb2.TableConfig()
    config.CopyFrom(CONFIG)
    config.hand_limit = hands
    config.min_players_to_start = players
    setup: list[table_pb2.SubmitCommandRequest] = [
        table_pb2.SubmitCommandRequest(
            table_id=TABLE_ID,
            idempotency_key="open",
            open_table=table_pb2.OpenTable(config=config),
        ),
        *(
            table_pb2.SubmitCommandRequest(
                table_id=TABLE_ID,
                idempotency_key=f"seat-{i}",
                seat_player=table_pb2.SeatPlayer(
                    player_id=f"bot{i}", seat=i, buy_in=200, is_bot=True, wait_for_big_blind=True
                ),
            )
            for i in range(players)
        ),
    ]
    restarting = asyncio.Event()
    restarting.set()  # set = the table service is up
    serving_times: list[float] = []
    commit_times: list[float] = []

    async def wait_for(point: KillPoint) -> None:
        nonlocal watch_hands
        start = commits
        while commits - start < point.commits:
            await asyncio.sleep(0.005)
        if point.kind == IN_CALL:
            while in_flight == 0:
                await asyncio.sleep(0.001)
            await asyncio.sleep(plan.rng.uniform(0, 0.01))  # somewhere inside it
        elif point.kind == BETWEEN_HANDS:
            hand_ended.clear()
            watch_hands = True
            try:
                await hand_ended.wait()
            finally:
                watch_hands = False

    async def takeover(target: Target, victim: ServiceProcess) -> None:
        """With replicas: another one takes the killed one's table over (its lease expires);
        then the killed one starts again and serves its share."""
        killed_at, before = time.monotonic(), commits
        while commits == before:
            if progress.expired():
                raise TimeoutError(f"no replica took the table over: {progress.reason()}")
            await asyncio.sleep(0.002)
        commit_times.append(time.monotonic() - killed_at)
        target.restart()
        while await asyncio.to_thread(healthcheck.check, victim.address, "", 0.1) != (
            healthcheck.SERVING
        ):
            if not victim.running:
                raise victim.failed("did not start")
            if progress.expired():
                raise TimeoutError(f"the killed replica did not come back: {progress.reason()}")
            await asyncio.sleep(0.01)
        serving_times.append(time.monotonic() - killed_at)

    async def restart_table(target: Target, point: KillPoint) -> None:
        """The table service again (a prewarmed spare). A restarted table takes its tables
        over and bots play on at once, before its health check answers: keep counting while
        it starts, and kill again as soon as the next point comes, serving or not. (Health
        checks are sync gRPC: off the event loop, where they could stall against grpc.aio.)"""
        killed_at, before = time.monotonic(), commits
        target.restart()
        table = services.table
        while True:
            status = await asyncio.to_thread(healthcheck.check, table.address, "", 0.1)
            if status == healthcheck.SERVING:
                serving_times.append(time.monotonic() - killed_at)
                restarting.set()
                break
            if not table.running:
                raise table.failed("did not start")
            if progress.expired():
                raise TimeoutError(f"the table service did not come back: {progress.reason()}")
            if commits - before >= max(point.commits, 1):
                return  # it commits before it says SERVING: the next kill may come now
            await asyncio.sleep(0.01)
        while commits == before and not progress.expired():
            await asyncio.sleep(0.002)
        commit_times.append(time.monotonic() - killed_at)

    async def killer() -> None:
        """Kill a target at each point of the plan and restart it; the table service's
        restart is watched (see ``restart_table``), the others' run in the background while
        the plan goes on (a dealer or a NATS node takes a second or two to come back, in which
        the table plays on: waiting for it made the run kill a tenth as often as asked); when
        the plan picks a target still coming back, the next target that is up is killed
        instead, or, when none is, that one once it is back.
        Without ``redis`` in the targets, redis-server is restarted once (at the second
        kill)."""
        if not plan.kill_every:
            return
        restarts: dict[str, asyncio.Task[None]] = {}
        try:
            await kill_on_plan(restarts)
        finally:  # the run is over (or failed): the targets come back before it is checked
            for task in restarts.values():
                with contextlib.suppress(Exception):
                    await asyncio.shield(task)

    async def kill_on_plan(restarts: dict[str, asyncio.Task[None]]) -> None:
        while True:
            point = plan.next_point()
            await wait_for(point)
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
                restarting.clear()
            target.kill()
            report.kills += 1
            report.kills_by_target[name] = report.kills_by_target.get(name, 0) + 1
            report.kill_points[point.kind] = report.kill_points.get(point.kind, 0) + 1
            if report.kills == 2 and not report.redis_restarts and "redis" not in targets:
                await asyncio.to_thread(_restart_redis, cluster.redis)
                report.redis_restarts += 1
            if name == "redis":
                report.redis_restarts += 1
            if name == "table" and replicated:
                await takeover(target, victim)
            elif name == "table":
                await restart_table(target, point)
            else:
                restarts[name] = asyncio.create_task(asyncio.to_thread(target.restart))

    async def call(method: str, request: Any) -> Any:
        """Call the table service; while it is down, or a call is cut off by a kill, ask again
        with the same idempotency key (so a call that did land is answered with its first
        outcome)."""
        nonlocal in_flight
        while True:
            # Wait while the table service restarts, but not for ever: a restart cut short by
            # the next kill point never says it is up.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(restarting.wait(), 1.0)
            asked = services.owner
            async with aio_channel_as(services.tables[asked].address) as channel:
                stub = table_pb2_grpc.TableServiceStub(channel)
                in_flight += 1
                try:
                    return await getattr(stub, method)(request, timeout=60)
                except grpc.aio.AioRpcError as exc:
                    if exc.code() not in RETRIED:
                        raise
                    if exc.code() == grpc.StatusCode.UNAVAILABLE and services.owner == asked:
                        # down, or another replica serves the table: ask the next one
                        services.owner = (asked + 1) % len(services.tables)
                    if progress.expired():
                        raise TimeoutError(
                            f"{method} kept failing ({exc.code().name}: {exc.details()}): "
                            f"{progress.reason()}"
                        ) from exc
                finally:
                    in_flight -= 1
            await asyncio.sleep(0.05)

    killing = asyncio.create_task(killer())
    try:
        # Everyone sits before the first hand: it starts only with ``players`` ready.
        for request in setup:
            await _racing(call("SubmitCommand", request), killing)
        kick = 0
        while True:
            get = call("GetTableState", table_pb2.GetTableStateRequest(table_id=TABLE_ID))
            state = (await _racing(get, killing)).view
            if state.table_status == common_pb2.TABLE_STATUS_CLOSED:
                break
            if progress.expired():
                raise TimeoutError(f"the hands did not finish: {progress.reason()}")
            for seat in _busted(state):  # a new bot takes the seat of one who lost every chip
                await _racing(call("SubmitCommand", _leave(seat)), killing)
                await _racing(call("SubmitCommand", _replace(seat)), killing)
                report.replacements += 1
            kick += 1
            request = table_pb2.SubmitCommandRequest(
                table_id=TABLE_ID, idempotency_key=f"kick-{kick}", start_hand=table_pb2.StartHand()
            )
            with contextlib.suppress(grpc.aio.AioRpcError):
                await _racing(call("SubmitCommand", request), killing)  # nothing to start: again
            await asyncio.sleep(0.05)
    finally:
        await stop_tasks([killing])
        await nc.close()
    report.restart_serving_p50 = _median(serving_times)
    report.restart_serving_max = round(max(serving_times, default=0.0), 3)
    report.restart_commit_p50 = _median(commit_times)
    report.restart_commit_max = round(max(commit_times, default=0.0), 3)


def _busted(view: common_pb2.PlayerView) -> list[common_pb2.SeatView]:
    """Bots that lost every chip and sat out: the table cannot start a hand with fewer than
    ``--players`` ready, so each is replaced (a new bot with a new buy-in)."""
    return [
        seat
        for seat in view.seats
        if seat.player_id and seat.stack == 0 and seat.status == common_pb2.SEAT_STATUS_SITTING_OUT
    ]


def _leave(seat: common_pb2.SeatView) -> table_pb2.SubmitCommandRequest:
    return table_pb2.SubmitCommandRequest(
        table_id=TABLE_ID,
        idempotency_key=f"leave-{seat.player_id}",
        leave_seat=table_pb2.LeaveSeat(player_id=seat.player_id),
    )


def _replace(seat: common_pb2.SeatView) -> table_pb2.SubmitCommandRequest:
    """The replacement of ``seat``'s bot: bot3 -> bot3_2 -> bot3_3, one buy-in each."""
    base, _, generation = seat.player_id.partition("_")
    player = f"{base}_{int(generation or 1) + 1}"
    return table_pb2.SubmitCommandRequest(
        table_id=TABLE_ID,
        idempotency_key=f"seat-{player}",
        seat_player=table_pb2.SeatPlayer(
            player_id=player, seat=seat.seat, buy_in=200, is_bot=True, wait_for_big_blind=False
        ),
    )


async def _racing(call: Awaitable[Any], killing: asyncio.Task[None]) -> Any:
    """``call``'s result; if the killer fails first (a target that does not come back), its
    error."""
    task = asyncio.ensure_future(call)
    await asyncio.wait({task, killing}, return_when=asyncio.FIRST_COMPLETED)
    if not task.done():
        await stop_tasks([task])
        killing.result()  # raises the killer's error
    return task.result()


async def _verify(nats_url: str, hands: int, report: Report) -> None:
    nc = await connect_nats(nats_url)
    try:
        store = JetStreamEventStore(nc, stream=STREAM)
        commits = await store.read(TABLE_ID)
    finally:
        await nc.close()
    report.commits = len(commits)
    ids = Counter(c.msg_id for c in commits)
    report.duplicate_commits = sum(n - 1 for n in ids.values() if n > 1)
    previous = 0
    events: list[Event] = []
    for commit in commits:
        expected = commit.headers.get("Nats-Expected-Last-Subject-Sequence")
        if expected is None or int(expected) != previous:
            report.sequence_gaps += 1
        previous = commit.sequence
        events.extend(decode_commit(commit.data)[1])
    report.chips_before = sum(e.stack for e in events if isinstance(e, PlayerSeated))
    state = replay(events)
    left = sum(e.stack for e in events if isinstance(e, PlayerLeft))
    closed = sum(stack for e in events if isinstance(e, TableClosed) for _, _, stack in e.stacks)
    report.chips_after = left + (closed if state.closed else state.total_chips())
    report.hands_completed = sum(isinstance(e, HandEnded) for e in events)
    report.hands_voided = sum(isinstance(e, HandVoided) for e in events)
    _verify_decks(events, report)
    report.ok = (
        report.hands_completed + report.hands_voided == hands
        and report.chips_before == report.chips_after
        and report.duplicate_commits == 0
        and report.sequence_gaps == 0
        and not report.fairness_failures
        and state.closed
    )


def _verify_decks(events: list[Event], report: Report) -> None:
    """Every completed hand's cards must follow from its revealed seed and commitment (the
    checks of ``holdem verify --table``); voided hands are not checked."""
    for outcome in outcomes_from_stream(events):
        if outcome.voided:
            continue
        if outcome.seed_lost:  # revealed empty: the dealer lost it (redis-server restarted)
            report.decks_unverifiable += 1
        elif outcome.ok:
            report.decks_verified += 1
        else:
            report.fairness_failures.append(f"{outcome.path}: {'; '.join(outcome.failures)}")


@contextlib.contextmanager
def _workdir(keep: bool) -> Iterator[Path]:
    """The run's temp dir (the services' logs); removed at the end unless ``keep``."""
    path = Path(tempfile.mkdtemp(prefix="holdem-chaos-"))
    try:
        yield path
    finally:
        if keep:
            print(f"holdem chaos: logs kept in {path}", file=sys.stderr)
        else:
            shutil.rmtree(path, ignore_errors=True)


def run_chaos(
    hands: int,
    kill_every: int,
    players: int = 6,
    timeout: float | None = None,
    keep_temp: bool = False,
    *,
    targets: tuple[str, ...] = ("table",),
    jitter: bool = False,
    seed: int | None = None,
    stall: float = 120.0,
    prewarm: bool = True,
    replicas: int = 1,
    nats_nodes: int = 0,
) -> Report:
    """Play ``hands`` bot hands while killing ``targets``; the report of the checks. The run
    fails (TimeoutError) only when nothing was committed for ``stall`` seconds, or it took
    longer than ``timeout`` when one is given: its length scales with the work.
    ``replicas``: table services sharing the table (a killed one's table is taken over by
    another); ``nats_nodes``: nats-servers, as a JetStream cluster with every stream
    replicated on each when more than one (0: three when ``nats-node`` is a target, else
    one)."""
    if not nats_nodes:
        nats_nodes = 3 if "nats-node" in targets else 1
    if "nats-node" in targets and nats_nodes < 3:
        raise ValueError("killing a NATS node needs a cluster of at least 3 (--nats-cluster 3)")
    report = Report(prewarmed=prewarm, replicas=replicas, nats_nodes=nats_nodes)
    rng = random.Random(seed)
    started = time.monotonic()
    with _workdir(keep_temp) as workdir:
        nats_server: NatsServer | NatsCluster = (
            NatsCluster(nats_nodes, keep_temp=keep_temp, parent_dir=workdir)
            if nats_nodes > 1
            else NatsServer(keep_temp=keep_temp)
        )
        with nats_server, start_redis(keep_temp=keep_temp) as redis_server:
            services = Services(
                nats_server.url,
                redis_server.url,
                workdir,
                prewarm=prewarm,
                replicas=replicas,
                nats_replicas=nats_nodes,
            )
            cluster = Cluster(services, redis_server, nats_server)
            plan = KillPlan(kill_every, targets, jitter, rng)
            progress = Progress(stall, timeout)
            try:
                asyncio.run(_drive(cluster, plan, hands, players, progress, report))
            except (grpc.aio.AioRpcError, TimeoutError, StartError) as exc:
                what = (
                    f"the table service answered {exc.code().name}: {exc.details()}"
                    if isinstance(exc, grpc.aio.AioRpcError)
                    else str(exc)
                )
                log = services.table.log_path
                raise RuntimeError(
                    f"{what}; last lines of the table service's log ({log}):\n{log_tail(log, 60)}"
                ) from exc
            finally:
                services.stop()
            asyncio.run(_verify(nats_server.url, hands, report))
    report.seconds = round(time.monotonic() - started, 1)
    return report


def run(args: argparse.Namespace) -> int:
    try:
        targets = parse_targets(args.kill)
    except ValueError as exc:
        print(f"holdem chaos: {exc}", file=sys.stderr)
        return 2
    try:
        report = run_chaos(
            args.hands,
            args.kill_every,
            args.players,
            args.timeout,
            targets=targets,
            jitter=args.jitter,
            seed=args.seed,
            stall=args.stall_timeout,
            prewarm=not args.cold_restarts,
            replicas=args.replicas,
            nats_nodes=args.nats_cluster,
            keep_temp=args.keep,
        )
    except (RuntimeError, TimeoutError, ValueError) as exc:
        print(f"holdem chaos: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(report.as_dict(), indent=2))
    else:
        r = report
        by_target = ", ".join(f"{n} {k}" for n, k in sorted(r.kills_by_target.items()))
        print(
            f"{r.hands_completed} hands completed, {r.hands_voided} voided, {r.kills} kills "
            f"({by_target or 'none'}), {r.redis_restarts} redis restart(s), {r.commits} commits "
            f"in {r.seconds}s\n"
            f"{r.replicas} table replica(s), {r.nats_nodes} NATS node(s)\n"
            f"table restarts: SERVING after {r.restart_serving_p50}s (max "
            f"{r.restart_serving_max}s), committing after {r.restart_commit_p50}s (max "
            f"{r.restart_commit_max}s)\n"
            f"chips before {r.chips_before}, after {r.chips_after}; "
            f"{r.duplicate_commits} duplicate commits, {r.sequence_gaps} sequence gaps; "
            f"{r.decks_verified} decks verified"
            + "".join(f"\n  unfair: {f}" for f in r.fairness_failures)
            + f"\n{'OK' if r.ok else 'FAILED'}"
        )
    return 0 if report.ok else 1


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "chaos", help="kill services and servers while bots play; check nothing is lost"
    )
    parser.add_argument("--hands", type=int, default=20, help="hands to play (default 20)")
    parser.add_argument(
        "--kill-every", type=int, default=25, help="kill something every K commits (0: never)"
    )
    parser.add_argument(
        "--kill",
        default="table",
        help=f"what to kill, a comma list of {','.join(TARGETS)} (default table; without "
        "redis, redis-server is restarted once; nats-node: one node of a NATS cluster)",
    )
    parser.add_argument(
        "--jitter",
        action="store_true",
        help="random kill points: after 1..2K-1 commits, inside a call, or between hands; "
        "random targets",
    )
    parser.add_argument("--seed", type=int, default=None, help="seed of --jitter's choices")
    parser.add_argument("--players", type=int, default=6, help="bots at the table (2-6)")
    parser.add_argument(
        "--stall-timeout",
        type=float,
        default=120.0,
        help="fail when nothing was committed for this long (seconds; default 120)",
    )
    parser.add_argument(
        "--timeout", type=float, default=None, help="also fail after this long in all (seconds)"
    )
    parser.add_argument(
        "--cold-restarts",
        action="store_true",
        help="restart the table service from scratch, not from a prewarmed spare (to compare)",
    )
    parser.add_argument(
        "--replicas",
        type=int,
        default=1,
        choices=range(1, 5),
        metavar="R",
        help="table services sharing the table by lease (killing the one serving it makes "
        "another take it over within the lease TTL)",
    )
    parser.add_argument(
        "--nats-cluster",
        type=int,
        default=0,
        choices=range(0, 6),
        metavar="N",
        help="run NATS as an N-node JetStream cluster, streams replicated N times (default: 3 "
        "when nats-node is a kill target, else 1)",
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the logs and the servers' data (temp dirs)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON report")
    parser.set_defaults(func=run)
