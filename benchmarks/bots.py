"""Tables of bots through the services: hands per second of a 6-max table whose every bot
decision is one Decide call from the table service to the ai service (real processes, on a
real nats-server and redis-server on free loopback ports).

Each row opens a table, seats six bots at the given levels (1,000 big blinds each) and lets it
play by itself until ``--hands`` hands or until a bot went broke (then another table, until
``--hands`` hands are played in all). The rate is taken from the tables' own streams: hands
ended over the time between each table's first hand's start and its last hand's end (commit
timestamps). Rows: ``bots: LEVELS VARIANT`` against the 5 hands/s a table of
bots must reach (issue 10); stderr adds the p50 / p99 Decide time the ai service logged and the
decisions that fell back to the clock rule. ``--all-services`` deals through the dealer service
and ranks showdowns through the evaluator service too (default: in-process, as
``HOLDEM_TABLE_DEALER=local`` / ``HOLDEM_TABLE_EVALUATOR=local``).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
import uuid
from pathlib import Path

from benchmarks import Result
from libs.devstack import ServiceProcess, service_env, start_nats, start_redis
from libs.devstack.identity import aio_channel_as
from libs.eventstore.jetstream import TABLE_STREAM

NAME = "bots"
DESCRIPTION = "hands/s of a 6-max table of bots through the table and ai services"
TARGET_HANDS_PER_SECOND = 5.0
BIG_BLIND = 2
BUY_IN = 1000 * BIG_BLIND

#: (label, variant, structure, the six seats' levels)
TABLES = (
    ("mixed", "holdem", "no_limit", ("easy", "normal", "hard") * 2),
    ("hard", "holdem", "no_limit", ("hard",) * 6),
    ("mixed", "omaha_hi_lo", "pot_limit", ("easy", "normal", "hard") * 2),
    ("hard", "omaha_hi_lo", "pot_limit", ("hard",) * 6),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hands", type=int, default=100, help="hands per table")
    parser.add_argument(
        "--all-services",
        action="store_true",
        help="the dealer and evaluator services too (default: in-process)",
    )
    parser.add_argument("--ai-timeout-ms", type=int, default=500, help="HOLDEM_TABLE_AI_TIMEOUT_MS")
    parser.add_argument(
        "--only", choices=[f"{t[0]}-{t[1]}" for t in TABLES], help="one row (e.g. hard-holdem)"
    )


def _log(message: str) -> None:
    print(f"[bots] {message}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> list[Result]:
    with tempfile.TemporaryDirectory(prefix="holdem-bots-") as tmp:
        workdir = Path(tmp)
        nats = start_nats(parent_dir=workdir)
        redis = start_redis(parent_dir=workdir)
        services: list[ServiceProcess] = []
        try:

            def start(name: str, peers: dict[str, str], **extra: str) -> ServiceProcess:
                env = service_env(peers=peers, nats_url=nats.url, redis_url=redis.url, extra=extra)
                service = ServiceProcess(name, workdir / f"{name}.log", env=env).spawn()
                services.append(service)
                return service.wait_serving(60.0)

            peers = {"ai": start("ai", {}).address}
            local = "local"
            if args.all_services:
                peers["dealer"] = start("dealer", {}).address
                peers["evaluator"] = start("evaluator", {}).address
                local = "service"
            table = start(
                "table",
                peers,
                HOLDEM_TABLE_DEALER=local,
                HOLDEM_TABLE_EVALUATOR=local,
                HOLDEM_TABLE_AI="service",
                HOLDEM_TABLE_AI_TIMEOUT_MS=str(args.ai_timeout_ms),
            )
            ai = services[0]
            results = []
            reported = 0
            for label, variant, structure, levels in TABLES:
                if args.only and args.only != f"{label}-{variant}":
                    continue
                calls_before = len(_decide_times(ai))
                hands, seconds = 0, 0.0
                while hands < args.hands:
                    played, took = asyncio.run(
                        _play(
                            table.address, nats.url, variant, structure, levels, args.hands - hands
                        )
                    )
                    hands, seconds = hands + played, seconds + took
                rate = hands / seconds if seconds else 0.0
                times = sorted(_decide_times(ai)[calls_before:])
                fallen = [line for line in table.log_lines() if line.get("event") == "ai_fallback"]
                for line in fallen[reported:]:
                    _log(f"fallback: {line.get('error')} -> {line.get('action')}")
                fallbacks = reported = len(fallen)
                p50 = times[len(times) // 2] if times else 0.0
                p99 = times[min(len(times) - 1, int(len(times) * 0.99))] if times else 0.0
                _log(
                    f"{label:5s} {variant:11s} {structure:9s} {hands} hands at {rate:5.1f} "
                    f"hands/s; {len(times)} Decide calls, p50 {p50:.1f} ms, p99 {p99:.1f} ms; "
                    f"{fallbacks} clock-rule fallbacks so far"
                )
                results.append(
                    Result(
                        f"bots: 6-max {label} {variant} {structure}, hands/s",
                        rate,
                        "target",
                        TARGET_HANDS_PER_SECOND,
                    )
                )
            return results
        finally:
            for service in reversed(services):
                service.stop()
            redis.close()
            nats.close()


def _decide_times(ai: ServiceProcess) -> list[float]:
    return [
        float(line["duration_ms"])
        for line in ai.log_lines()
        if line.get("event") == "rpc finished" and str(line.get("rpc", "")).endswith("/Decide")
    ]


async def _play(
    address: str,
    nats_url: str,
    variant: str,
    structure: str,
    levels: tuple[str, ...],
    hands: int,
) -> tuple[int, float]:
    """Play one table until ``hands`` hands or a bot is broke: (hands ended, seconds)."""
    import nats
    from holdem.common.v1 import common_pb2
    from holdem.table.v1 import table_pb2, table_pb2_grpc

    from libs.eventstore.jetstream import JetStreamEventStore
    from libs.poker.events import HandEnded, HandVoided
    from libs.table.events import HandBegan
    from libs.tableproto.envelope import decode_commit, recorded_seconds

    table_id = f"bots{uuid.uuid4().hex[:8]}"
    config = common_pb2.TableConfig(
        variant=getattr(common_pb2, f"VARIANT_{variant.upper()}"),
        betting_structure=getattr(common_pb2, f"BETTING_STRUCTURE_{structure.upper()}"),
        max_seats=len(levels),
        small_blind=BIG_BLIND // 2,
        big_blind=BIG_BLIND,
        min_buy_in=BUY_IN,
        max_buy_in=BUY_IN,
        hand_limit=hands,
        min_players_to_start=len(levels),
    )
    async with aio_channel_as(address) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)

        async def command(key: str, **kwargs: object) -> None:
            request = table_pb2.SubmitCommandRequest(
                table_id=table_id,
                idempotency_key=key,
                **kwargs,  # type: ignore[arg-type]
            )
            await stub.SubmitCommand(request, timeout=60)

        await command("open", open_table=table_pb2.OpenTable(config=config))
        for i, level in enumerate(levels):
            difficulty = getattr(common_pb2, f"BOT_DIFFICULTY_{level.upper()}")
            seat = table_pb2.SeatPlayer(
                player_id=f"bot{i}", seat=i, buy_in=BUY_IN, is_bot=True, bot_difficulty=difficulty
            )
            await command(f"seat{i}", seat_player=seat)
        deadline = time.monotonic() + max(120.0, hands * 2.0)
        while True:
            request = table_pb2.GetTableStateRequest(table_id=table_id)
            view = (await stub.GetTableState(request)).view
            if view.table_status == common_pb2.TABLE_STATUS_CLOSED:
                break
            if not view.hand_id and sum(1 for s in view.seats if s.stack > 0) < len(levels):
                await command("close", close_table=table_pb2.CloseTable())  # a bot went broke
                continue
            if time.monotonic() > deadline:
                raise RuntimeError(f"table {table_id} did not finish {hands} hands in time")
            await asyncio.sleep(0.1)
    nc = await nats.connect(nats_url)
    try:
        commits = await JetStreamEventStore(nc, stream=TABLE_STREAM).read(table_id)
    finally:
        await nc.close()
    first = last = 0.0
    ended = 0
    for stored in commits:
        commit, events = decode_commit(stored.data)
        at = recorded_seconds(commit)
        if any(isinstance(e, HandBegan) for e in events) and not first:
            first = at
        if any(isinstance(e, (HandEnded, HandVoided)) for e in events):
            ended += 1
            last = at
    return ended, last - first
