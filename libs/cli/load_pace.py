"""``holdem load --pace HANDS_PER_HOUR --tables N``: N tables played at a person's pace through the
gateway, and what they cost.

It starts its own nats-server (with its monitoring port) and redis-server, R table services
(cards, showdowns and bots in-process), a lobby (the gateway asks it for display names) and one
gateway per table service (``HOLDEM_TABLE_ADDR`` is one address; each replica announces its own
beside its shard leases, so a gateway sends a table's calls to the replica holding it; a table
the client asks of a gateway that still answers UNAVAILABLE is asked of the next). It opens N
six-seat tables of six players (as tools: chips reach a table only from the lobby or tools; 128
tables at a time, each table's six seats asked at once after its opening, each with its own
idempotency key), then plays them for S seconds: at each table whoever is to act thinks for a
drawn time (exponential, so that the table plays about HANDS_PER_HOUR hands an hour; at most
half the 600 s action clock) and folds through the gateway (``Act``, with the player's own
token), so every hand is five Acts (everyone folds to the big blind). The next actor comes with
each Act's answer; a hand's first is asked of the table (``GetTableState``) once the hand has
started, as a client's watch would show it.

Reported (JSON keys): ``tables``, ``replicas``, ``pace``, ``seconds``, ``setup_seconds``,
``setup_retries`` (opening calls asked again after running out their time or finding no
replica), ``hands`` and ``hands_per_table_hour`` (counted on the public projection), ``acts``,
``errors``, ``act_p50_ms`` and ``act_p99_ms`` (the gateway's Act as the client sees it),
``tables_held`` (per table service, from its metrics), ``rss_mb`` and ``kb_per_table`` (each
table service's resident memory, and its growth from before the tables were opened over the
tables it holds), ``cpu`` (cores busy during play, per process; ``client`` is this load
generator, apart), ``ownership_writes_per_s`` (lease writes of all table services),
``nats_msgs_per_table_hour`` (messages in and out of the nats-server) and
``redis_ops_per_table_hour`` (commands Redis processed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from holdem.table.v1 import table_pb2

from libs.auth import KeyRing, issue_for
from libs.cli import load_processes as procs
from libs.devstack.identity import aio_channel_as
from libs.devstack.tablestub import aio_table_stub
from libs.platform.natsconn import connect_nats

SEATS = 6
BUY_IN = 10_000
ACTIONS_PER_HAND = 5  # everyone folds to the big blind
CLOCK_SECONDS = 600  # the longest action clock a table may have
SETUP_CALLS = 128  # tables being opened at once
CONFIG = common_pb2.TableConfig(
    variant=common_pb2.VARIANT_HOLDEM,
    betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
    max_seats=SEATS,
    small_blind=1,
    big_blind=2,
    min_buy_in=100,
    max_buy_in=BUY_IN,
    action_clock_seconds=CLOCK_SECONDS,
    min_players_to_start=SEATS,
)


@dataclass
class PaceReport:
    tables: int
    replicas: int
    pace: float
    seconds: float = 0.0
    setup_seconds: float = 0.0
    setup_retries: int = 0
    hands: int = 0
    hands_per_table_hour: float = 0.0
    acts: int = 0
    errors: int = 0
    act_p50_ms: float = 0.0
    act_p99_ms: float = 0.0
    tables_held: dict[str, int] = field(default_factory=dict)
    rss_mb: dict[str, float] = field(default_factory=dict)
    kb_per_table: dict[str, float] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)
    ownership_writes_per_s: float = 0.0
    nats_msgs_per_table_hour: float = 0.0
    redis_ops_per_table_hour: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def think_seconds(pace: float, rng: random.Random) -> float:
    """A drawn time to think before an Act, so that a table plays about ``pace`` hands an hour
    (exponential; at most half the action clock, so the clock never acts)."""
    mean = 3600.0 / (pace * ACTIONS_PER_HAND)
    return min(rng.expovariate(1.0 / mean), CLOCK_SECONDS / 2)


class _Routed:
    """Calls for a table go to the endpoint that answered for it last; UNAVAILABLE (another
    replica holds it) moves it to the next. With ``patient``, a call that ran out its time is
    asked again of the same endpoint (setup's calls carry idempotency keys: a seat asked twice
    lands once), as a starved machine makes some of 40,000 tables' opening calls do."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.route: dict[str, int] = {}
        self.retried = 0

    async def call(self, table_id: str, send: Any, deadline: float, patient: bool = False) -> Any:
        index = self.route.setdefault(table_id, hash(table_id) % self.count)
        pause = 0.05
        while True:
            try:
                return await send(index)
            except grpc.aio.AioRpcError as exc:
                timed_out = patient and exc.code() == grpc.StatusCode.DEADLINE_EXCEEDED
                if not timed_out and exc.code() != grpc.StatusCode.UNAVAILABLE:
                    raise
                if time.monotonic() > deadline:
                    raise
                self.retried += 1
                if not timed_out:
                    index = self.route[table_id] = (index + 1) % self.count
                await asyncio.sleep(pause)
                pause = min(2 * pause, 1.0)


class _Players:
    """The load's clients: table calls as tools (seats, reads) and Acts through the gateways."""

    def __init__(self, tables: list[str], gateways: list[str], keys: str) -> None:
        gateway_ids = [aio_channel_as(a, "gateway") for a in tables]
        tools = [aio_channel_as(a) for a in tables]
        self.channels = [*gateway_ids, *tools]
        self.tables = [aio_table_stub(t, g) for t, g in zip(tools, gateway_ids, strict=True)]
        gateway_channels = [grpc.aio.insecure_channel(a) for a in gateways]
        self.channels += gateway_channels
        self.gateways = [gateway_pb2_grpc.GatewayServiceStub(c) for c in gateway_channels]
        self.table_route = _Routed(len(self.tables))
        self.gateway_route = _Routed(len(self.gateways))
        self.ring = KeyRing.parse(keys)
        self.tokens: dict[str, tuple[tuple[str, str], ...]] = {}

    def token(self, player: str) -> tuple[tuple[str, str], ...]:
        found = self.tokens.get(player)
        if found is None:
            text = issue_for(self.ring, player, now=time.time(), ttl_seconds=24 * 3600)
            found = self.tokens[player] = (("authorization", f"Bearer {text}"),)
        return found

    async def command(self, table_id: str, deadline: float, **fields: Any) -> None:
        request = table_pb2.SubmitCommandRequest(table_id=table_id, **fields)
        await self.table_route.call(
            table_id,
            lambda i: self.tables[i].SubmitCommand(request, timeout=30),
            deadline,
            patient=True,
        )

    async def open(self, table_id: str, deadline: float) -> None:
        """Open the table with its six players seated, in one command and one commit (a retried
        opening lands once: its idempotency key). Each player is named as the lobby seats its
        players (the name its token carries), so the gateway has no name to ask the lobby for."""
        players = [f"{table_id}p{index}" for index in range(SEATS)]
        seats = [
            # the name issue_for puts in the player's token
            table_pb2.SeatPlayer(
                player_id=player, display_name=player[:32], seat=index, buy_in=BUY_IN
            )
            for index, player in enumerate(players)
        ]
        await self.command(
            table_id,
            deadline,
            idempotency_key="open",
            open_table=table_pb2.OpenTable(config=CONFIG, seats=seats),
        )

    async def state(self, table_id: str, deadline: float) -> Any:
        request = table_pb2.GetTableStateRequest(table_id=table_id)
        answer = await self.table_route.call(
            table_id, lambda i: self.tables[i].GetTableState(request, timeout=30), deadline
        )
        return answer.view

    async def act(self, table_id: str, player: str, hand_id: str, deadline: float) -> Any:
        request = gateway_pb2.ActRequest(
            table_id=table_id,
            hand_id=hand_id,
            action=common_pb2.ACTION_TYPE_FOLD,
            idempotency_key=uuid.uuid4().hex,
        )
        auth = self.token(player)
        answer = await self.gateway_route.call(
            table_id, lambda i: self.gateways[i].Act(request, metadata=auth, timeout=30), deadline
        )
        return answer.view

    async def close(self) -> None:
        for channel in self.channels:
            await channel.close()


async def _play(
    players: _Players, table_id: str, pace: float, until: float, report: PaceReport,
    latencies: list[float], rng: random.Random,
) -> None:  # fmt: skip
    """Act at ``table_id`` at a person's pace until ``until``. The first look at the table
    comes after a drawn wait, as players arrive (all tables asking at once would measure a
    stampede); a failed call is tried again after a pause that doubles up to 30 s, as a
    client's would."""
    view: Any = None
    pause, backoff = 0.05, 0.5
    await asyncio.sleep(rng.uniform(0, 3600.0 / (pace * ACTIONS_PER_HAND)))
    while time.monotonic() < until:
        try:
            if view is None or not view.HasField("acting_seat"):
                view = await players.state(table_id, until)
                if not view.HasField("acting_seat"):  # between hands: the next starts itself
                    await asyncio.sleep(pause)
                    pause = min(2 * pause, 1.0)
                    continue
            pause = 0.05
            player = next(s.player_id for s in view.seats if s.seat == view.acting_seat)
            await asyncio.sleep(min(think_seconds(pace, rng), max(0.0, until - time.monotonic())))
            if time.monotonic() >= until:
                return
            started = time.perf_counter()
            view = await players.act(table_id, player, view.hand_id, until)
            latencies.append(time.perf_counter() - started)
            report.acts += 1
            backoff = 0.5
        except grpc.aio.AioRpcError:
            if time.monotonic() >= until:
                return
            report.errors += 1
            view = None
            await asyncio.sleep(min(backoff, max(0.0, until - time.monotonic())))
            backoff = min(2 * backoff, 30.0)


class LoadError(Exception):
    """The load cannot run (the tables could not all be opened within the hour setup may take; a
    gateway unreachable, a refusal during setup): said plainly. ``holdem load`` exits 2."""


async def _setup(players: _Players, ids: list[str]) -> None:
    deadline = time.monotonic() + 3600
    gate = asyncio.Semaphore(SETUP_CALLS)
    opened = 0

    async def one(table_id: str) -> None:
        nonlocal opened
        async with gate:
            await players.open(table_id, deadline)
            opened += 1

    try:
        await asyncio.gather(*(one(t) for t in ids))
    except grpc.aio.AioRpcError as exc:
        raise LoadError(
            f"setup failed after {opened} of {len(ids)} tables opened: {exc.code().name} "
            f"{exc.details() or ''} ({players.table_route.retried} calls asked again)"
        ) from None


def run_pace(tables: int, duration: float, replicas: int, pace: float) -> PaceReport:
    """Start the processes, play, report."""
    with (
        tempfile.TemporaryDirectory(prefix="holdem-load-") as tmp,
        procs.load_stack(Path(tmp), replicas) as stack,
    ):
        return asyncio.run(_drive(stack, tables, duration, pace))


async def _drive(stack: procs.LoadStack, tables: int, duration: float, pace: float) -> PaceReport:
    report = PaceReport(tables=tables, replicas=len(stack.tables), pace=pace)
    players = _Players([t.address for t in stack.tables], stack.gateway_addresses, stack.keys)
    nc = await connect_nats(stack.nats.url)
    hands = 0
    counting = False

    async def count(msg: Any) -> None:
        nonlocal hands
        if counting and (b"HandEnded" in msg.data or b"HandVoided" in msg.data):
            hands += 1

    try:
        await nc.subscribe("holdem.public.table.>", cb=count)
        ids = [f"pace{i}" for i in range(tables)]
        baseline = stack.rss()
        started = time.monotonic()
        await _setup(players, ids)
        report.setup_seconds = round(time.monotonic() - started, 1)
        report.setup_retries = players.table_route.retried
        before = stack.counters()
        latencies: list[float] = []
        rng = random.Random(26)
        counting = True
        started = time.monotonic()
        until = started + duration
        await asyncio.gather(*(_play(players, t, pace, until, report, latencies, rng) for t in ids))
        report.seconds = round(time.monotonic() - started, 2)
        counting = False
        after = stack.counters()
        stack.report(report, before, after, baseline)
        report.hands = hands
        table_hours = tables * report.seconds / 3600
        report.hands_per_table_hour = round(hands / table_hours, 1)
        if latencies:
            ordered = sorted(latencies)
            report.act_p50_ms = round(statistics.median(ordered) * 1000, 1)
            report.act_p99_ms = round(ordered[int(0.99 * (len(ordered) - 1))] * 1000, 1)
    finally:
        await nc.close()
        await players.close()
    return report


def run_cli(args: argparse.Namespace) -> int:
    """``holdem load --pace``: run, print the report (JSON with ``--json``); 1 on errors, 2
    when the tables could not be opened."""
    try:
        paced = run_pace(args.tables, args.duration, args.replicas, args.pace)
    except LoadError as failed:
        print(f"holdem load: error: {failed}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(paced.as_dict(), indent=2))
    else:
        print(
            f"{paced.tables} tables at {paced.pace:g} hands/hour, {paced.replicas} replica(s), "
            f"{paced.seconds}s (setup {paced.setup_seconds}s, {paced.setup_retries} calls "
            f"asked again): {paced.hands} hands "
            f"({paced.hands_per_table_hour} per table-hour), {paced.acts} Acts, Act p50 "
            f"{paced.act_p50_ms} ms p99 {paced.act_p99_ms} ms, {paced.errors} errors\n"
            f"tables held {paced.tables_held}, KB per table {paced.kb_per_table}, RSS MB "
            f"{paced.rss_mb}\nCPU {paced.cpu}\nownership writes/s "
            f"{paced.ownership_writes_per_s}, NATS msgs per table-hour "
            f"{paced.nats_msgs_per_table_hour}, Redis ops per table-hour "
            f"{paced.redis_ops_per_table_hour}"
        )
    return 0 if paced.errors == 0 else 1
