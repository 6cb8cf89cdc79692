"""``holdem nemesis --faults LIST --duration S --seed N [--sync always|default] [--json]``: bots
play several tables through the table service's write path (``TableApp`` on JetStream) while
the nemesis injects faults into the nats-server under it, one after another at random (seeded)
times; then a checker compares every table's stream with what JetStream acknowledged
(``nemesis_check``) and prints {faults, ops, acknowledged, lost, duplicated, chips_conserved,
max_recovery_s, ...}.

The nats-server runs with JetStream's store on the lazy filesystem (libs/nemesis/lazymount.py:
FUSE, root), with the sync policy we ship (``always``) unless ``--sync default``: then a
``lose-unsynced`` fault loses acknowledged commits, which is what the checker is built to catch.
The faults are ``nemesis_faults``'s. The tables and the bots (calling stations: the
commit path is exercised, not a level's thinking) run in this process (no gRPC): the write path
and its recovery are the table service's own. ``--network``: the network's faults instead,
under a NATS cluster, two table replicas, the lobby and the gateway on hosts of their own,
players playing through the gateway (``nemesis_net``).
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
from typing import Any

from libs.ai import Level
from libs.cli.arguments import number, whole_number
from libs.cli.nemesis_check import (
    FAULT_SECONDS,
    RECOVERY_DEADLINE,
    AckRecorder,
    History,
    check,
    recovered,
    recovery,
)
from libs.cli.nemesis_faults import FAULTS, Rig, parse_faults
from libs.devstack import NatsServer
from libs.eventstore import Commit, InMemorySnapshotStore
from libs.eventstore.jetstream import TABLE_STREAM, JetStreamEventStore
from libs.nemesis.lazymount import LazyMount, require_fuse
from libs.platform.logging import configure_logging
from libs.platform.natsconn import connect_nats
from libs.table import TableConfig
from libs.table import commands as tc
from services.table.app import TableApp
from services.table.bots import Bots, LocalDecider
from services.table.dealing import LocalDealer


def _log(message: str) -> None:
    print(f"[nemesis] {message}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def _workdir(keep: bool) -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="holdem-nemesis-"))
    try:
        yield path
    finally:
        if keep:
            print(f"holdem nemesis: kept {path}", file=sys.stderr)
        else:
            shutil.rmtree(path, ignore_errors=True)


def run_nemesis(
    faults: tuple[str, ...],
    duration: float,
    seed: int,
    *,
    sync: str = "always",
    tables: int = 4,
    keep: bool = False,
) -> dict[str, Any]:
    """Play ``tables`` tables for ``duration`` seconds under ``faults``; the report."""
    require_fuse()
    with _workdir(keep) as workdir, LazyMount(workdir / "disk", workdir / "mnt") as disk:
        nats = NatsServer(
            data_dir=disk.mount / "js",
            parent_dir=workdir,
            sync_interval=None if sync == "default" else "always",
        )
        with nats:
            rig = Rig(nats, disk)
            report = asyncio.run(_run(rig, faults, duration, random.Random(seed), tables))
    report.update(sync=sync, seed=seed, duration_s=duration)
    return report


class _Play:
    """The tables and their bots, driven until ``stop``; errors (the faults) are waited out."""

    def __init__(self, app: TableApp, table_ids: list[str]) -> None:
        self.app = app
        self.table_ids = table_ids
        self.stopping = asyncio.Event()
        self.errors = 0

    async def _patiently(self, table_id: str, command: tc.TableCommand, key: str) -> None:
        deadline = time.monotonic() + RECOVERY_DEADLINE
        while True:
            try:
                await self.app.execute(table_id, command, key)
                return
            except Exception:
                self.errors += 1
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)

    async def open(self, table_id: str) -> None:
        config = TableConfig(seats=3, min_players_to_start=2, max_buy_in=10_000)
        await self._patiently(table_id, tc.OpenTable(table_id, config, 0.0), "open")
        for seat in range(3):
            sit = tc.SitDown(f"{table_id}-bot{seat}", seat, 1_000, is_bot=True)
            await self._patiently(table_id, sit, f"seat-{seat}")

    async def drive(self, table_id: str) -> None:
        while not self.stopping.is_set():
            try:
                if await self.app.drive(table_id) == 0:
                    await asyncio.sleep(0.02)
            except Exception:  # the store down, a conflict after a lost write: again
                self.errors += 1
                await asyncio.sleep(0.2)

    async def close(self, table_id: str) -> None:
        await self._patiently(table_id, tc.CloseTable("the nemesis is over"), "close")
        deadline = time.monotonic() + RECOVERY_DEADLINE
        while not (await self.app.state(table_id)).closed:
            if time.monotonic() > deadline:
                raise TimeoutError(f"table {table_id} did not close")
            with contextlib.suppress(Exception):
                await self.app.drive(table_id)
            await asyncio.sleep(0.05)


async def _run(
    rig: Rig, names: tuple[str, ...], duration: float, rng: random.Random, tables: int
) -> dict[str, Any]:
    started = time.monotonic()

    def clock() -> float:
        return time.monotonic() - started

    history = History()
    nc = await connect_nats(rig.nats.url, reconnect_time_wait=0.1)
    store = JetStreamEventStore(nc, stream=TABLE_STREAM)
    await store.ensure_stream()
    rig.disk.sync()  # JetStream does not fsync a new stream's metadata (docs/operations.md)
    events = AckRecorder(store, history, clock)
    app = TableApp(
        events, InMemorySnapshotStore(), LocalDealer(), bots=Bots(LocalDecider(Level.CALL), 5.0)
    )
    table_ids = [f"nemesis{i}" for i in range(tables)]
    play = _Play(app, table_ids)
    injected: list[str] = []
    healed_at: list[float] = []
    try:
        await asyncio.gather(*(play.open(t) for t in table_ids))
        # The tables were opened long ago, as far as the disk knows: a power cut under the
        # default policy takes hands played, not the tables themselves (which would leave
        # nothing to play on, and the run waiting out its deadlines to say so).
        rig.disk.sync()
        _log(f"{clock():.1f}s {tables} tables open")
        drivers = [asyncio.create_task(play.drive(t)) for t in table_ids]
        end = clock() + duration  # the faults' time starts once every table is open
        since = clock()
        while clock() < end:
            await asyncio.sleep(rng.uniform(0.5, 2.0))
            # A fault only once the tables committed since the last one healed: a fault that
            # hits nothing in flight tests nothing (and under the default policy a power cut
            # then always has an acknowledged, never fsynced commit to take).
            await recovered(history, since, clock)
            fault = FAULTS[rng.choice(names)](rig)
            injected.append(fault.name)
            _log(f"{clock():.1f}s {fault.name}: {len(history.acknowledged)} acknowledged")
            await asyncio.to_thread(fault.start)
            await asyncio.sleep(rng.uniform(*FAULT_SECONDS))
            await asyncio.to_thread(fault.heal)
            since = clock()
            healed_at.append(since)
            _log(f"{clock():.1f}s healed")
        await recovered(history, healed_at[-1] if healed_at else 0.0, clock)
        _log(f"{clock():.1f}s recovered; closing the tables")
        play.stopping.set()
        closed = await _close(play, drivers)
        _log(f"{clock():.1f}s {'closed' if closed else 'NOT closed: the tables stopped'}")
        with contextlib.suppress(Exception):
            await asyncio.wait_for(app.stop(), 10.0)
    finally:
        await nc.close()
    streams = await _streams(rig, table_ids)  # on a connection of its own
    verdict = check(streams, history)
    recoveries = [recovery(history, healed) for healed in healed_at]
    return {
        "faults": injected,
        "ops": len(history.acknowledged) + play.errors,
        "acknowledged": len(history.acknowledged),
        "lost": len(verdict.lost),
        "duplicated": verdict.duplicated,
        "chips_conserved": verdict.chips_conserved,
        "max_recovery_s": round(max(recoveries, default=0.0), 3),
        "closed": closed,
        "gaps": verdict.gaps,
        "commits": verdict.commits,
        "hands": verdict.hands,
        "errors_waited_out": play.errors,
        "unsynced_bytes_dropped": rig.lost_bytes,
        "lost_commits": verdict.lost[:20],
        "chip_failures": verdict.chip_failures[:20],
    }


async def _close(play: _Play, drivers: list[asyncio.Task[None]]) -> bool:
    """Stop the drivers and close every table; False when that did not happen in time (the
    tables stopped committing: the run fails)."""
    try:
        await asyncio.wait_for(asyncio.gather(*drivers), RECOVERY_DEADLINE)
        closing = asyncio.gather(*(play.close(t) for t in play.table_ids))
        await asyncio.wait_for(closing, 2 * RECOVERY_DEADLINE)
    except Exception:  # a timeout, or a close that kept failing
        for task in drivers:
            task.cancel()
        return False
    return True


async def _streams(rig: Rig, table_ids: list[str]) -> dict[str, list[Commit]]:
    """Every table's stream, read on a new connection."""
    nc = await connect_nats(rig.nats.url)
    try:
        store = JetStreamEventStore(nc, stream=TABLE_STREAM)
        return {t: await store.read(t) for t in table_ids}
    finally:
        await nc.close()


def ok(report: dict[str, Any]) -> bool:
    return bool(
        report["lost"] == 0
        and report.get("acked_while_isolated", 0) == 0
        and report.get("landed_while_isolated", 0) == 0
        and report.get("stale_after_waking", 0) == 0
        and report.get("fault_failures", 0) == 0
        and report["duplicated"] == 0
        and report["gaps"] == 0
        and report["chips_conserved"]
        and report["max_recovery_s"] <= RECOVERY_DEADLINE
        and report["closed"]
    )


def run(args: argparse.Namespace) -> int:
    from libs.cli.nemesis_netfaults import NET_FAULTS

    try:
        faults = parse_faults(args.faults, NET_FAULTS if args.network else FAULTS)
    except ValueError as exc:
        print(f"holdem nemesis: {exc}", file=sys.stderr)
        return 2
    # the services' warnings go to stderr, so --json prints nothing but the report on stdout
    configure_logging("nemesis", level="warning", fmt="console", stream=sys.stderr)
    if args.network:
        from libs.cli.nemesis_net import run_network

        with _workdir(args.keep) as workdir:
            report = run_network(
                faults, args.duration, args.seed, workdir, sync=args.sync, tables=args.tables
            )
        report.update(sync=args.sync, seed=args.seed, duration_s=args.duration, network=True)
    else:
        report = run_nemesis(
            faults, args.duration, args.seed, sync=args.sync, tables=args.tables, keep=args.keep
        )
    report["ok"] = ok(report)
    if args.json:
        print(json.dumps(report))
    else:
        print(
            f"{len(report['faults'])} faults ({', '.join(sorted(set(report['faults'])))}), "
            f"{report['acknowledged']} commits acknowledged, {report['lost']} lost, "
            f"{report['duplicated']} duplicated, {report['gaps']} gaps, chips "
            f"{'conserved' if report['chips_conserved'] else 'NOT conserved'} over "
            f"{report['hands']} hands, longest recovery {report['max_recovery_s']} s\n"
            f"{'OK' if report['ok'] else 'FAILED'}"
        )
    return 0 if report["ok"] else 1


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "nemesis", help="faults under JetStream while bots play; check no commit was lost"
    )
    parser.add_argument(
        "--faults",
        default="all",
        help=f"comma list of {','.join(FAULTS)} (with --network: isolate-leader, "
        "isolate-replica, split, flap, delay-loss, pause-replica, lose-unsynced, "
        "lose-unsynced-all, disk-full), or all (default)",
    )
    parser.add_argument(
        "--network",
        action="store_true",
        help="a cluster's faults: a 3-node NATS cluster, two table service processes, the "
        "lobby and the gateway in network namespaces of their own, players playing through "
        "the gateway (root; nemesis_net)",
    )
    parser.add_argument(
        "--duration", type=number(0.5, 86_400, "--duration"), default=20.0, help="seconds of faults"
    )
    parser.add_argument(
        "--seed",
        type=whole_number(0, 2**63 - 1, "--seed"),
        default=1,
        help="seed of the faults' choices",
    )
    parser.add_argument(
        "--sync",
        choices=("always", "default"),
        default="always",
        help="JetStream's sync policy: always (what we ship) or the server's default",
    )
    parser.add_argument(
        "--tables", type=whole_number(1, 100, "--tables"), default=4, help="tables played at once"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (logs, store)")
    parser.add_argument("--json", action="store_true", help="print one JSON report")
    parser.set_defaults(func=run)
