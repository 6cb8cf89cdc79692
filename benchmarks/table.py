"""The event-sourced table: loading a table with 10,000 events with and without a snapshot, and
commits per second in one table-service process, on a real nats-server (JetStream, file storage)
and redis-server started on free loopback ports.

- Load: bot hands are played through ``TableApp`` (in-process dealer) until the table's stream
  holds at least ``--events`` events; then the table is loaded ``--loads`` times from the latest
  Redis snapshot plus the commits after it, and ``--loads`` times by full replay (snapshot
  deleted). Reported as loads per second, snapshot vs full replay.
- Commits: the same play measured as commits per second (decide, guarded append, snapshot every
  50 commits and at hand end, the public projection published on JetStream), against the bare
  ceiling of sequential guarded JetStream appends of the same payload size on the same server.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
import uuid

from benchmarks import Result
from libs.devstack import start_nats, start_redis
from libs.table import TableConfig
from libs.table import commands as tc

NAME = "table"
DESCRIPTION = "table load time (10,000 events, snapshot vs full replay) and commits/s"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--events", type=int, default=10_000, help="events in the loaded table")
    parser.add_argument("--loads", type=int, default=5, help="loads timed each way")


def _log(message: str) -> None:
    print(f"[table] {message}", file=sys.stderr)


async def _measure(nats_url: str, redis_url: str, events_wanted: int, loads: int) -> list[Result]:
    import nats
    from holdem.events.v1 import events_pb2
    from redis.asyncio import Redis

    from libs.eventstore.jetstream import JetStreamEventStore
    from libs.eventstore.projection import JetStreamProjection
    from libs.eventstore.redis_snapshots import RedisSnapshotStore
    from services.table.app import TableApp
    from services.table.dealing import LocalDealer

    nc = await nats.connect(nats_url)
    redis = Redis.from_url(redis_url)
    store = JetStreamEventStore(nc, stream="BENCH_TABLES")
    await store.ensure_stream()
    snapshots = RedisSnapshotStore(redis)
    events = 0

    class CountingProjection(JetStreamProjection):
        async def publish(
            self,
            stream_id: str,
            sequence: int,
            previous: int,
            data: bytes,
            *,
            expected_position: int,
        ) -> int:
            nonlocal events
            events += len(events_pb2.Commit.FromString(data).recorded)
            return await super().publish(
                stream_id, sequence, previous, data, expected_position=expected_position
            )

    public = CountingProjection(nc, stream="BENCH_PUBLIC", subject_prefix="bench.public")
    await public.ensure_stream()
    app = TableApp(
        store, snapshots, LocalDealer(), snapshot_every=50, auto_start=False, projection=public
    )
    table_id = f"bench{uuid.uuid4().hex[:8]}"
    config = TableConfig(seats=6, min_players_to_start=6, max_buy_in=10_000)
    await app.execute(table_id, tc.OpenTable(table_id, config, 0.0), "open")
    for i in range(6):
        await app.execute(table_id, tc.SitDown(f"bot{i}", i, 10_000, is_bot=True), f"seat{i}")
    app.auto_start = True
    commits_before = app.commits
    started = time.perf_counter()
    while events < events_wanted:
        await app.drive(table_id, limit=50)
    elapsed = time.perf_counter() - started
    commits = app.commits - commits_before
    state = await app.state(table_id)
    _log(
        f"{state.hands_started} hands, {commits} commits, {events} events "
        f"in {elapsed:.1f}s: {commits / elapsed:,.0f} commits/s"
    )

    async def timed_loads(use_snapshot: bool) -> float:
        best = float("inf")
        for _ in range(loads):
            app.forget(table_id)
            if not use_snapshot:
                await snapshots.delete(table_id)
            t = time.perf_counter()
            await app.state(table_id)
            best = min(best, time.perf_counter() - t)
        return best

    with_snapshot = await timed_loads(True)
    full = await timed_loads(False)
    _log(f"load with snapshot {with_snapshot * 1000:.1f} ms, full replay {full * 1000:.1f} ms")

    payload = (await store.read(table_id))[-1].data
    raw_id = f"raw{uuid.uuid4().hex[:8]}"
    last, count, t = 0, 0, time.perf_counter()
    while time.perf_counter() - t < 3.0:
        last = (await store.append(raw_id, payload, expected_last=last, msg_id=str(count))).sequence
        count += 1
    raw_rate = count / (time.perf_counter() - t)
    _log(f"bare guarded appends: {raw_rate:,.0f}/s ({len(payload)} bytes each)")
    await app.stop()
    await nc.jetstream().delete_stream("BENCH_TABLES")
    await nc.jetstream().delete_stream("BENCH_PUBLIC")
    await nc.close()
    await redis.aclose()
    return [
        Result(f"table: load {events:,} events", 1 / with_snapshot, "full replay", 1 / full),
        Result(
            "table: commits/s, one process", commits / elapsed, "bare JetStream appends", raw_rate
        ),
    ]


def run(args: argparse.Namespace) -> list[Result]:
    with start_nats() as nats_server, start_redis() as redis_server:
        results: list[Result] = asyncio.run(
            _measure(nats_server.url, redis_server.url, args.events, args.loads)
        )
    return results
