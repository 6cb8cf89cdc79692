"""``holdem load --gateway``'s arguments (``--gateway``, ``--tls``, ``--tls-ca``), their checks, the
run's phases (setup, play, closing) and the printed report (``libs.cli.load_remote``'s clients
play the load)."""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from libs.cli.load_pace import LoadError
from libs.cli.load_remote import (
    SETTLE_SECONDS,
    SETUP_TABLES,
    RemoteLoad,
    RemoteReport,
    gateway_list,
)


def add_remote_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--gateway",
        metavar="HOST:PORT[,HOST:PORT...]",
        help="play the --pace load against a running deployment through these gateways (its "
        "public API only: guests, tables opened, played, closed); nothing is started",
    )
    parser.add_argument(
        "--tls", action="store_true", help="TLS to the gateways, trusting the system's CAs"
    )
    parser.add_argument(
        "--tls-ca", metavar="FILE", help="TLS to the gateways, trusting this CA (PEM) only"
    )


def check_remote(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse what ``--gateway`` cannot do, before anything is asked of the deployment."""
    try:
        args.gateway = gateway_list(args.gateway)
    except ValueError as exc:
        parser.error(f"argument --gateway: {exc}")
    if args.pace is None:
        parser.error("argument --gateway: needs --pace HANDS_PER_HOUR (the load is paced)")
    if args.replicas is not None:
        parser.error("argument --replicas: the deployment has its own (not with --gateway)")
    if args.tls_ca is not None:
        try:
            args.tls_ca_pem = Path(args.tls_ca).read_bytes()
        except OSError as exc:
            parser.error(f"argument --tls-ca: cannot read {args.tls_ca}: {exc.strerror}")


def run_remote(args: argparse.Namespace) -> int:
    """Play, print the report; 1 when a call failed, a table stayed open or a player's chips
    did not come back to the wallet; 2 when the load could not run (said on stderr)."""
    tls: bool | bytes = getattr(args, "tls_ca_pem", None) or bool(args.tls)
    try:
        report = asyncio.run(drive(args.gateway, tls, args.tables, args.duration, args.pace))
    except LoadError as exc:
        print(f"holdem load: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.as_dict(), indent=2))
    else:
        print(
            f"{report.tables} tables at {report.pace:g} hands/hour through "
            f"{len(report.gateways)} gateway(s), {report.seconds}s (setup "
            f"{report.setup_seconds}s, closing {report.close_seconds}s): {report.hands} hands "
            f"({report.hands_per_table_hour} per table-hour), {report.acts} Acts, Act p50 "
            f"{report.act_p50_ms} ms p99 {report.act_p99_ms} ms, {report.errors} errors "
            f"{report.error_codes or ''}\nclosed {report.tables_closed}/{report.tables} tables, "
            f"chips back in {report.players_settled}/{report.players} wallets; setup retries "
            f"{report.setup_retries}; this client's CPU {report.client_cpu} cores"
        )
    clean = report.tables_closed == report.tables and report.players_settled == report.players
    return 0 if report.errors == 0 and clean else 1


async def _gated(items: list[Any], one: Callable[[Any], Awaitable[None]]) -> list[BaseException]:
    """``one`` of every item, SETUP_TABLES at a time: the failures."""
    gate = asyncio.Semaphore(SETUP_TABLES)

    async def run(item: Any) -> None:
        async with gate:
            await one(item)

    answers = await asyncio.gather(*(run(i) for i in items), return_exceptions=True)
    return [a for a in answers if isinstance(a, BaseException)]


async def drive(gateways: list[str], tls: bool | bytes, tables: int, duration: float,
                pace: float) -> RemoteReport:  # fmt: skip
    report = RemoteReport(gateways=gateways, tables=tables, pace=pace)
    load = RemoteLoad(gateways, tls, report)
    try:
        await load.check_reachable()
        started = time.monotonic()
        failed = await _gated(list(range(tables)), load.open)
        report.setup_seconds = round(time.monotonic() - started, 1)
        if not failed:
            latencies: list[float] = []
            rng = random.Random(26)
            cpu = time.process_time()
            load.counting = True
            started = time.monotonic()
            until = started + duration
            await asyncio.gather(*(load.play(t, until, latencies, rng) for t in load.tables))
            report.seconds = round(time.monotonic() - started, 2)
            load.counting = False
            report.client_cpu = round((time.process_time() - cpu) / report.seconds, 3)
            report.hands_per_table_hour = round(report.hands / (tables * report.seconds / 3600), 1)
            if latencies:
                ordered = sorted(latencies)
                report.act_p50_ms = round(statistics.median(ordered) * 1000, 1)
                report.act_p99_ms = round(ordered[int(0.99 * (len(ordered) - 1))] * 1000, 1)
        # whatever was opened is closed, even after a failed setup
        started = time.monotonic()
        deadline = started + SETTLE_SECONDS
        failed += await _gated(load.tables, lambda t: load.close(t, deadline))
        seated = [(p, t.gateway) for t in load.tables for p in t.players]
        report.players = len(seated)
        failed += await _gated(seated, lambda ps: load.settled(ps[0], ps[1], deadline))
        report.close_seconds = round(time.monotonic() - started, 1)
        if failed:
            raise failed[0] if isinstance(failed[0], LoadError) else LoadError(repr(failed[0]))
    finally:
        await load.aclose()
    return report
