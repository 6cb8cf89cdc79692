"""``holdem load --tables N --duration S [--replicas R] [--json]``: drive N tables through the
table service and measure it.

It starts its own nats-server and redis-server on free loopback ports and R table services (cards
and showdowns in-process: ``HOLDEM_TABLE_DEALER=local``, ``HOLDEM_TABLE_EVALUATOR=local``, so the
table service is what is measured), opens N tables of six players and plays them for S seconds
as clients do: for each table, whoever is to act reads their view (``GetPlayerView``: the legal
actions) and acts (``SubmitAction``, checking when free and folding to a bet, so no hand needs
a showdown decision; with an idempotency key); who acts next is read from that answer's view
(``GetTableState`` when it shows nobody to act); deals and hands follow inside the service.
With replicas, the tables spread over them by lease: a table is asked of one replica and,
answered UNAVAILABLE (another one holds it), of the next.

Reported: commits per second and hands per second (counted on the public projection,
``holdem.public.table.>``), p50/p99 latency of ``SubmitAction`` in milliseconds, errors (calls
that failed with anything but UNAVAILABLE for a table another replica holds), and the CPU seconds
each process used per second of the run. Then, on the same nats-server in the same run, the
ceiling: bare guarded appends (nats-py's ``publish`` with a message id and the expected last
sequence, what one commit costs JetStream) from as many appenders as there are tables, each on
its own subject of the table stream, one at a time each, as a table commits; and the ratio of the
two. JSON keys: ``tables``, ``replicas``, ``seconds``, ``commits_per_s``, ``hands_per_s``,
``p50_ms``, ``p99_ms``, ``errors``, ``actions``, ``bare_appends_per_s``, ``ratio``, ``cpu``.
With ``--pace`` the tables are played at a person's pace through the gateway instead
(``libs.cli.load_pace``, up to 100,000 tables); with ``--gateway HOST:PORT[,...]`` as well, against
a running deployment through its gateways, starting nothing (``libs.cli.load_remote``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from holdem.common.v1 import common_pb2
from holdem.table.v1 import table_pb2

from libs.cli.arguments import number, whole_number
from libs.cli.load_remote_cli import add_remote_arguments, check_remote
from libs.devstack import ManagedProcess, ServiceProcess, service_env, start_nats, start_redis
from libs.devstack.identity import aio_channel_as
from libs.devstack.tablestub import aio_table_stub
from libs.eventstore.jetstream import TABLE_STREAM
from libs.platform.natsconn import connect_nats

SEATS = 6
BUY_IN = 10_000
MAX_TABLES = 1000
MAX_PACE_TABLES = 100_000
MAX_DURATION = 3600.0
STREAM = TABLE_STREAM
CONFIG = common_pb2.TableConfig(
    variant=common_pb2.VARIANT_HOLDEM,
    betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
    max_seats=SEATS,
    small_blind=1,
    big_blind=2,
    min_buy_in=100,
    max_buy_in=BUY_IN,
    action_clock_seconds=60,
    min_players_to_start=SEATS,
)


@dataclass
class LoadReport:
    tables: int
    replicas: int
    seconds: float = 0.0
    commits_per_s: float = 0.0
    hands_per_s: float = 0.0
    p50_ms: float = 0.0
    p99_ms: float = 0.0
    errors: int = 0
    actions: int = 0
    bare_appends_per_s: float = 0.0  # guarded appends, as many appenders as tables, same server
    ratio: float = 0.0  # commits_per_s / bare_appends_per_s
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds per second, by process

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


class _Client:
    """The table replicas as one client: each table is asked of the replica that answered for
    it last; UNAVAILABLE moves it to the next one."""

    def __init__(self, addresses: list[str]) -> None:
        # per-viewer views are the gateway's to ask for: the load runs as the gateway would
        # (seats and commands as tools: chips reach a table only from the lobby or tools)
        gateways = [aio_channel_as(a, "gateway") for a in addresses]
        tools = [aio_channel_as(a) for a in addresses]
        self.channels = gateways + tools
        self.stubs = [aio_table_stub(t, g) for t, g in zip(tools, gateways, strict=True)]
        self.route: dict[str, int] = {}

    async def call(self, table_id: str, method: str, request: Any, deadline: float) -> Any:
        index = self.route.setdefault(table_id, hash(table_id) % len(self.stubs))
        while True:
            try:
                return await getattr(self.stubs[index], method)(request, timeout=10)
            except grpc.aio.AioRpcError as exc:
                if exc.code() != grpc.StatusCode.UNAVAILABLE or time.monotonic() > deadline:
                    raise
                index = self.route[table_id] = (index + 1) % len(self.stubs)
                await asyncio.sleep(0.01)

    async def close(self) -> None:
        for channel in self.channels:
            await channel.close()


async def _open(client: _Client, table_id: str, deadline: float) -> None:
    await client.call(
        table_id,
        "SubmitCommand",
        table_pb2.SubmitCommandRequest(
            table_id=table_id,
            idempotency_key="open",
            open_table=table_pb2.OpenTable(config=CONFIG),
        ),
        deadline,
    )
    for seat in range(SEATS):
        await client.call(
            table_id,
            "SubmitCommand",
            table_pb2.SubmitCommandRequest(
                table_id=table_id,
                idempotency_key=f"seat-{seat}",
                seat_player=table_pb2.SeatPlayer(player_id=f"p{seat}", seat=seat, buy_in=BUY_IN),
            ),
            deadline,
        )


async def _play(
    client: _Client, table_id: str, until: float, latencies: list[float], report: LoadReport
) -> None:
    """Act until ``until`` for whoever the last answer (else the table) shows: check or fold."""
    action = 0
    view: common_pb2.PlayerView | None = None  # the last answer's view
    while time.monotonic() < until:
        try:
            if view is None or not view.HasField("acting_seat"):
                state = await client.call(
                    table_id,
                    "GetTableState",
                    table_pb2.GetTableStateRequest(table_id=table_id),
                    until,
                )
                view = state.view
                if not view.HasField("acting_seat"):
                    view = None
                    await asyncio.sleep(0.01)  # between hands: the next one starts by itself
                    continue
            player = next(s.player_id for s in view.seats if s.seat == view.acting_seat)
            mine = await client.call(
                table_id,
                "GetPlayerView",
                table_pb2.GetPlayerViewRequest(table_id=table_id, player_id=player),
                until,
            )
            legal = mine.view.legal_actions
            # the simplest players: check when free, fold to any bet (every call measured is a
            # betting action)
            kind = common_pb2.ACTION_TYPE_CHECK if legal.can_check else common_pb2.ACTION_TYPE_FOLD
            action += 1
            request = table_pb2.SubmitActionRequest(
                table_id=table_id,
                idempotency_key=f"a{action}",
                player_id=player,
                hand_id=mine.view.hand_id,
                action=kind,
            )
            started = time.perf_counter()
            view = (await client.call(table_id, "SubmitAction", request, until)).view
            latencies.append(time.perf_counter() - started)
            report.actions += 1
        except grpc.aio.AioRpcError as exc:
            view = None
            if time.monotonic() >= until:
                return
            report.errors += 1
            if exc.code() == grpc.StatusCode.FAILED_PRECONDITION:
                continue  # the hand moved on under us (a view read before the last action)
            await asyncio.sleep(0.05)


async def _drive(
    addresses: list[str], nats_url: str, tables: int, duration: float, report: LoadReport
) -> None:
    client = _Client(addresses)
    nc = await connect_nats(nats_url)
    commits = hands = 0
    counting = False

    async def count(msg: Any) -> None:
        nonlocal commits, hands
        if counting:
            commits += 1
            if b"HandEnded" in msg.data or b"HandVoided" in msg.data:
                hands += 1

    try:
        await nc.subscribe("holdem.public.table.>", cb=count)
        ids = [f"load{i}" for i in range(tables)]
        setup_deadline = time.monotonic() + 120
        await asyncio.gather(*(_open(client, t, setup_deadline) for t in ids))
        latencies: list[float] = []
        counting = True
        started = time.monotonic()
        until = started + duration
        await asyncio.gather(*(_play(client, t, until, latencies, report) for t in ids))
        report.seconds = round(time.monotonic() - started, 2)
        counting = False
        report.commits_per_s = round(commits / report.seconds, 1)
        report.hands_per_s = round(hands / report.seconds, 2)
        if latencies:
            ordered = sorted(latencies)
            report.p50_ms = round(statistics.median(ordered) * 1000, 2)
            report.p99_ms = round(
                ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1000, 2
            )
        report.bare_appends_per_s = round(
            await _bare_appends(nc, tables, min(max(duration / 2, 1.0), 5.0)), 1
        )
        if report.bare_appends_per_s:
            report.ratio = round(report.commits_per_s / report.bare_appends_per_s, 3)
    finally:
        await nc.close()
        await client.close()


async def _bare_appends(nc: Any, appenders: int, seconds: float) -> float:
    """Guarded appends per second for ``seconds``: ``appenders`` at once, each on its own
    subject of the table stream and one after another, with a commit's payload (the last one
    of the first table)."""
    js = nc.jetstream()
    payload = (await js.get_last_msg(STREAM, "holdem.table.load0")).data or b"x" * 200
    count = 0
    until = time.monotonic() + seconds

    async def append(index: int) -> None:
        nonlocal count
        last, n, subject = 0, 0, f"holdem.table.bare{index}"
        while time.monotonic() < until:
            headers = {
                "Nats-Msg-Id": f"bare{index}/{n}",
                "Nats-Expected-Last-Subject-Sequence": str(last),
            }
            last = (await js.publish(subject, payload, stream=STREAM, headers=headers)).seq
            n += 1
            count += 1

    started = time.monotonic()
    await asyncio.gather(*(append(i) for i in range(appenders)))
    return count / (time.monotonic() - started)


def run_load(tables: int, duration: float, replicas: int = 1) -> LoadReport:
    report = LoadReport(tables=tables, replicas=replicas)
    with (
        tempfile.TemporaryDirectory(prefix="holdem-load-") as tmp,
        start_nats() as nats_server,
        start_redis() as redis_server,
    ):
        env = service_env(
            nats_url=nats_server.url,
            redis_url=redis_server.url,
            log_level="info",
            extra={
                "HOLDEM_TABLE_DEALER": "local",
                "HOLDEM_TABLE_EVALUATOR": "local",
                "HOLDEM_TABLE_AI": "local",
            },
        )
        services = [
            ServiceProcess("table", Path(tmp) / f"table-{i}.log", env=env) for i in range(replicas)
        ]
        try:
            for service in services:
                service.start(60.0)
            processes: dict[str, ManagedProcess] = {
                "nats-server": nats_server,
                "redis-server": redis_server,
                **{f"table-{i}": s for i, s in enumerate(services)},
            }
            pids = {name: p.pid for name, p in processes.items()}
            pids["client"] = os.getpid()
            before = {name: _cpu_seconds(pid) for name, pid in pids.items()}
            wall = time.monotonic()
            asyncio.run(
                _drive([s.address for s in services], nats_server.url, tables, duration, report)
            )
            wall = time.monotonic() - wall
            report.cpu = {
                name: round((_cpu_seconds(pid) - before[name]) / wall, 2)
                for name, pid in pids.items()
            }
        finally:
            for service in services:
                with contextlib.suppress(Exception):
                    service.stop(10.0)
    return report


def run(args: argparse.Namespace) -> int:
    if args.gateway is not None:
        from libs.cli.load_remote_cli import run_remote

        return run_remote(args)
    if args.pace is not None:
        from libs.cli.load_pace import run_cli

        return run_cli(args)
    report = run_load(args.tables, args.duration, args.replicas)
    if args.json:
        print(json.dumps(report.as_dict(), indent=2))
    else:
        cpu = ", ".join(f"{name} {share:.2f}" for name, share in report.cpu.items())
        print(
            f"{report.tables} tables, {report.replicas} replica(s), {report.seconds}s: "
            f"{report.commits_per_s:,.0f} commits/s, {report.hands_per_s:,.1f} hands/s, "
            f"SubmitAction p50 {report.p50_ms} ms p99 {report.p99_ms} ms, "
            f"{report.errors} errors\nbare guarded appends in the same run: "
            f"{report.bare_appends_per_s:,.0f}/s ({report.tables} appenders): "
            f"{report.ratio:.2f}x\nCPU (cores busy, setup and appends included): {cpu}",
            file=sys.stdout,
        )
    return 0 if report.errors == 0 else 1


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "load", help="play N tables through the table service; commits/s, latency, CPU"
    )
    parser.add_argument(
        "--tables",
        type=whole_number(1, MAX_PACE_TABLES, "--tables"),
        default=10,
        help=f"tables played at once (1-{MAX_TABLES}; with --pace 1-{MAX_PACE_TABLES})",
    )
    parser.add_argument(
        "--pace",
        type=number(0.1, 3600, "--pace"),
        default=None,
        metavar="HANDS_PER_HOUR",
        help="play at a person's pace (players think for a drawn time) through the gateway, "
        "about this many hands an hour per table, and report what the tables cost",
    )
    parser.add_argument(
        "--duration",
        type=number(0.5, MAX_DURATION, "--duration"),
        default=10.0,
        help=f"seconds of play (0.5-{MAX_DURATION:.0f})",
    )
    parser.add_argument(
        "--replicas", type=int, default=None, choices=range(1, 5), metavar="R",
        help="table services (default 1)",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print one JSON report")
    add_remote_arguments(parser)

    def checked(args: argparse.Namespace) -> int:
        if args.gateway is not None:
            check_remote(parser, args)
        elif args.pace is None and args.tables > MAX_TABLES:
            parser.error(f"argument --tables: at most {MAX_TABLES} at bot pace (without --pace)")
        args.replicas = args.replicas or 1
        return run(args)

    parser.set_defaults(func=checked)
