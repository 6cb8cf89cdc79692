"""``holdem chaos --hands N --kill-every K [--json]``: play bot-only hands through the table
service while killing it (SIGKILL) every K commits, and once restarting redis-server; restart the
table service each time; then check the stream: every hand completed or voided by rule, the chip
total unchanged, no commit applied twice, no sequence gap, and every dealt card following from
its revealed seed.

It runs its own nats-server (JetStream) and redis-server on free loopback ports, plus the dealer
and table services as processes, and stops all of them at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import nats
from holdem.common.v1 import common_pb2
from holdem.table.v1 import table_pb2, table_pb2_grpc

from libs.devstack import (
    RedisServer,
    ServiceProcess,
    free_port,
    log_tail,
    service_env,
    start_nats,
    start_redis,
)
from libs.eventstore.jetstream import JetStreamEventStore
from libs.fairdeck.audit import outcomes_from_stream
from libs.platform import healthcheck
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
    redis_restarts: int = 0
    chips_before: int = 0
    chips_after: int = 0
    duplicate_commits: int = 0
    sequence_gaps: int = 0
    commits: int = 0
    decks_verified: int = 0
    decks_unverifiable: int = 0  # completed, but the dealer's store was wiped before the reveal
    fairness_failures: list[str] = field(default_factory=list)
    seconds: float = 0.0
    ok: bool = False

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class Services:
    """The dealer, evaluator and table services as processes; the table is restartable."""

    def __init__(self, nats_url: str, redis_url: str, workdir: Path) -> None:
        self.nats_url, self.redis_url, self.workdir = nats_url, redis_url, workdir
        addresses = {name: f"127.0.0.1:{free_port()}" for name in ("dealer", "evaluator")}
        env = service_env(peers=addresses, nats_url=nats_url, redis_url=redis_url, log_level="info")
        self.dealer = self._service("dealer", addresses["dealer"], env)
        self.evaluator = self._service("evaluator", addresses["evaluator"], env)
        table_env = {
            **env,
            "HOLDEM_TABLE_LEASE_TTL_SECONDS": "1",
            "HOLDEM_TABLE_SNAPSHOT_EVERY": "7",
            "HOLDEM_TABLE_DEALER": "service",
            "HOLDEM_TABLE_EVALUATOR": "service",
        }
        self.table = self._service("table", "127.0.0.1:0", table_env)
        try:
            self.dealer.start(60.0)
            self.evaluator.start(60.0)
            self.start_table()
        except BaseException:
            self.stop()
            raise

    def _service(self, name: str, listen: str, env: dict[str, str]) -> ServiceProcess:
        return ServiceProcess(name, self.workdir / f"{name}.log", listen=listen, env=env)

    @property
    def table_addr(self) -> str:
        return self.table.address

    def start_table(self, wait: bool = True) -> ServiceProcess:
        """The table service again, on a new port; with ``wait``, once it serves."""
        self.table.listen = f"127.0.0.1:{free_port()}"
        return self.table.start(60.0) if wait else self.table.spawn()

    def kill_table(self) -> None:
        self.table.kill()

    def stop(self) -> None:
        for service in (self.table, self.evaluator, self.dealer):
            service.stop(10.0)


def _restart_redis(server: RedisServer) -> None:
    """Crash redis-server (SIGKILL: it keeps nothing) and start it again on the same port."""
    server.kill()
    server.restart(timeout=20.0)


CONFIG = common_pb2.TableConfig(
    variant=common_pb2.VARIANT_HOLDEM,
    betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
    max_seats=6,
    small_blind=1,
    big_blind=2,
    action_clock_seconds=30,
)


async def _call(services: Services, method: str, request: Any, deadline: float) -> Any:
    """Call the table service, retrying while it is down or another replica's lease lingers."""
    while True:
        async with grpc.aio.insecure_channel(services.table_addr) as channel:
            stub = table_pb2_grpc.TableServiceStub(channel)
            try:
                return await getattr(stub, method)(request, timeout=60)
            except grpc.aio.AioRpcError as exc:
                if (
                    exc.code()
                    not in (
                        grpc.StatusCode.UNAVAILABLE,
                        grpc.StatusCode.ABORTED,
                        grpc.StatusCode.DEADLINE_EXCEEDED,
                    )
                    or time.monotonic() > deadline
                ):
                    raise
        await asyncio.sleep(0.2)


async def _drive(
    services: Services,
    redis: RedisServer,
    hands: int,
    players: int,
    kill_every: int,
    timeout: float,
    report: Report,
) -> None:
    deadline = time.monotonic() + timeout
    nc = await nats.connect(services.nats_url)
    commits = 0

    async def count(_: Any) -> None:
        nonlocal commits
        commits += 1

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
    last_kill = commits
    restarting = asyncio.Event()
    restarting.set()  # set = the table service is up

    async def killer() -> None:
        """SIGKILL the table service every ``kill_every`` commits (wherever they come from:
        a call, or bots playing on in the background), restart it; once, restart redis-server."""
        nonlocal last_kill
        while kill_every:
            await asyncio.sleep(0.005)
            if commits - last_kill < kill_every:
                continue
            restarting.clear()
            services.kill_table()
            report.kills += 1
            last_kill = commits
            if report.kills == 2 and not report.redis_restarts:
                await asyncio.to_thread(_restart_redis, redis)
                report.redis_restarts += 1
            # A restarted table takes its tables over and bots play on at once, before its
            # health check answers: keep counting while it starts, and kill again as soon as
            # it has made ``kill_every`` commits, serving or not. (Health checks are sync gRPC:
            # off the event loop, where they could stall against grpc.aio.)
            table = services.start_table(wait=False)
            while commits - last_kill < kill_every:
                status = await asyncio.to_thread(healthcheck.check, services.table_addr, "", 0.1)
                if status == healthcheck.SERVING:
                    restarting.set()
                    break
                if not table.running or time.monotonic() > deadline:
                    raise table.failed("did not start")
                await asyncio.sleep(0.01)

    async def chaotic(method: str, request: Any) -> Any:
        """Call the table service; when a kill cuts the call off, ask again with the same
        idempotency key (so a call that did land is answered with its first outcome)."""
        while True:
            await restarting.wait()
            try:
                return await _call(services, method, request, deadline)
            except grpc.aio.AioRpcError as exc:
                if exc.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED):
                    raise
                if time.monotonic() > deadline:
                    raise

    killing = asyncio.create_task(killer())
    # Everyone sits before the first hand: it starts only with ``players`` ready.
    for request in setup:
        await chaotic("SubmitCommand", request)
    kick = 0
    while True:
        state = (
            await chaotic("GetTableState", table_pb2.GetTableStateRequest(table_id=TABLE_ID))
        ).view
        if state.table_status == common_pb2.TABLE_STATUS_CLOSED:
            break
        if time.monotonic() > deadline:
            raise TimeoutError(f"the hands did not finish within {timeout:.0f}s")
        kick += 1
        request = table_pb2.SubmitCommandRequest(
            table_id=TABLE_ID, idempotency_key=f"kick-{kick}", start_hand=table_pb2.StartHand()
        )
        with contextlib.suppress(grpc.aio.AioRpcError):
            await chaotic("SubmitCommand", request)  # nothing to start: look again
        await asyncio.sleep(0.05)
    killing.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await killing
    await nc.close()


async def _verify(nats_url: str, hands: int, report: Report) -> None:
    nc = await nats.connect(nats_url)
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


def run_chaos(
    hands: int,
    kill_every: int,
    players: int = 6,
    timeout: float = 600.0,
    keep_temp: bool = False,
) -> Report:
    report = Report()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="holdem-chaos-") as tmp:
        workdir = Path(tmp)
        with (
            start_nats(keep_temp=keep_temp) as nats_server,
            start_redis(keep_temp=keep_temp) as redis_server,
        ):
            services = Services(nats_server.url, redis_server.url, workdir)
            try:
                asyncio.run(
                    _drive(services, redis_server, hands, players, kill_every, timeout, report)
                )
            except grpc.aio.AioRpcError as exc:
                log = workdir / "table.log"
                raise RuntimeError(
                    f"the table service answered {exc.code().name}: {exc.details()}; last "
                    f"lines of its log:\n{log_tail(log, 60)}"
                ) from exc
            finally:
                services.stop()
            asyncio.run(_verify(nats_server.url, hands, report))
    report.seconds = round(time.monotonic() - started, 1)
    return report


def run(args: argparse.Namespace) -> int:
    try:
        report = run_chaos(args.hands, args.kill_every, args.players, args.timeout)
    except (RuntimeError, TimeoutError) as exc:
        print(f"holdem chaos: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(report.as_dict(), indent=2))
    else:
        r = report
        print(
            f"{r.hands_completed} hands completed, {r.hands_voided} voided, {r.kills} kills, "
            f"{r.redis_restarts} redis restart(s), {r.commits} commits in {r.seconds}s\n"
            f"chips before {r.chips_before}, after {r.chips_after}; "
            f"{r.duplicate_commits} duplicate commits, {r.sequence_gaps} sequence gaps; "
            f"{r.decks_verified} decks verified"
            + "".join(f"\n  unfair: {f}" for f in r.fairness_failures)
            + f"\n{'OK' if r.ok else 'FAILED'}"
        )
    return 0 if report.ok else 1


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "chaos", help="kill the table service while bots play; check nothing is lost"
    )
    parser.add_argument("--hands", type=int, default=20, help="hands to play (default 20)")
    parser.add_argument(
        "--kill-every", type=int, default=25, help="SIGKILL the table service every K commits"
    )
    parser.add_argument("--players", type=int, default=6, help="bots at the table (2-6)")
    parser.add_argument("--timeout", type=float, default=600.0, help="give up after (seconds)")
    parser.add_argument("--json", action="store_true", help="print one JSON report")
    parser.set_defaults(func=run)
