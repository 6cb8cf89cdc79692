"""``holdem chaos --hands N --kill-every K [--kill table,dealer,...] [--jitter] [--json]``: play
bot-only hands through the table service while killing (SIGKILL) one of the targets every K
commits (with ``--jitter``: at random points, inside calls and between hands too) and restarting
it; then check the stream: every hand completed or voided by rule, the chip total unchanged, no
commit applied twice, no sequence gap, and every dealt card following from its revealed seed.

It runs its own nats-server (JetStream; with ``--nats-cluster 3``, or the ``nats-node`` target, a
three-node cluster with every stream replicated three times) and redis-server on free loopback
ports, plus the dealer, evaluator and table services as processes (``--replicas 2``: two table
services sharing the table by lease, so killing the one serving it makes the other take it over),
and stops all of them at the end. The run has no fixed deadline: it fails when nothing was
committed for ``--stall-timeout`` seconds.

This module is the command and the run's order (servers, services, play, checks); the parts:
``chaos_cluster`` (the processes and the kill targets, a registry), ``chaos_killer`` (the kill
plan and the killer), ``chaos_bots`` (the bots' play), ``chaos_report`` (the report and the
checks of the stream).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import grpc

from libs.cli.arguments import number, whole_number
from libs.cli.chaos_bots import play
from libs.cli.chaos_cluster import TARGETS, Cluster, Services, parse_targets
from libs.cli.chaos_killer import KillPlan, Progress
from libs.cli.chaos_report import Report, verify
from libs.devstack import NatsCluster, NatsServer, StartError, log_tail, start_redis


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
                asyncio.run(play(cluster, plan, hands, players, progress, report))
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
            asyncio.run(verify(nats_server.url, hands, report))
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
    parser.add_argument(
        "--hands",
        type=whole_number(1, 100_000, "--hands"),
        default=20,
        help="hands to play (default 20)",
    )
    parser.add_argument(
        "--kill-every",
        type=whole_number(0, 1_000_000, "--kill-every"),
        default=25,
        help="kill something every K commits (0: never)",
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
    parser.add_argument(
        "--seed",
        type=whole_number(0, 2**63 - 1, "--seed"),
        default=None,
        help="seed of --jitter's choices",
    )
    parser.add_argument(
        "--players", type=whole_number(2, 6, "--players"), default=6, help="bots at the table (2-6)"
    )
    parser.add_argument(
        "--stall-timeout",
        type=number(1, 86_400, "--stall-timeout"),
        default=120.0,
        help="fail when nothing was committed for this long (seconds; default 120)",
    )
    parser.add_argument(
        "--timeout",
        type=number(1, 7 * 86_400, "--timeout"),
        default=None,
        help="also fail after this long in all (seconds)",
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
