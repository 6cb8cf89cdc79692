"""The event-sourced table: loading a table with 10,000 events with and without a snapshot, and
commits per second in one table-service process, on a real nats-server (JetStream, file storage)
and redis-server started on free loopback ports.

- Commits: bot hands are played through ``TableApp`` (in-process dealer; the evaluator's tables
  built first, as a running service has them; the bots are calling stations decided in the event
  loop, so the commit path is measured and not a bot level's thinking, which ``bots`` measures,
  and no bot goes broke and closes the table) until the table's stream holds at least
  ``--events`` events, measured as commits per second (decide, guarded append, snapshot every 50
  commits and at hand end, the public projection published on JetStream), against the bare
  ceiling of sequential guarded JetStream appends of a commit's payload on the same server
  (nats-py's ``publish`` with the message id and expected-sequence headers, as any client
  appends), the phases taking turns (half a second of commits, a quarter of a second of such
  appends, a quarter of a second of the event store's own appends, whose acknowledgements take
  the parser hook and cost less than nats-py's) so that all meet the same load on a shared
  machine. Both ratios are printed.
- Replay: the table's stored commits decoded and folded into its state, with the compiled codec
  (``libs.table.converters``) against the codec before it (JSON through type hints), in memory:
  the codec's own cost.
- Load: the table loaded ``--loads`` times by full replay (no snapshot: the JetStream read plus
  the replay), against the same with nats-py's ``fetch`` and the old codec; and from the Redis
  snapshot plus the commits after it, against the full replay. Loads per second; the best of
  ``--loads`` each way.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
import uuid
from collections.abc import Callable
from typing import Any

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
    import json

    import nats
    from holdem.events.v1 import events_pb2
    from redis.asyncio import Redis

    from libs.ai import Decision, Level, SeatView, decide
    from libs.aiproto.requests import TableContext
    from libs.eventstore.jetstream import JetStreamEventStore
    from libs.eventstore.projection import JetStreamProjection, Published
    from libs.eventstore.redis_snapshots import RedisSnapshotStore
    from libs.poker.evaluation import DEFAULT_EVALUATOR
    from libs.table import TableState, apply, codec
    from libs.tableproto.envelope import decode_commit
    from services.table.app import TableApp
    from services.table.bots import Bots
    from services.table.dealing import LocalDealer

    class CallingStations:
        async def decide(
            self, view: SeatView, level: Level, context: TableContext, timeout: float
        ) -> Decision:
            return decide(view, Level.CALL, 0)

    DEFAULT_EVALUATOR.high([0, 1, 2, 3, 4, 5, 6])  # build its tables now, not in the first hand

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
            position = await super().publish(
                stream_id, sequence, previous, data, expected_position=expected_position
            )
            count(data)
            return position

        def publish_nowait(
            self,
            stream_id: str,
            sequence: int,
            previous: int,
            data: bytes,
            *,
            expected_position: int,
            callback: Published,
        ) -> bool:
            def counted(result: int | BaseException) -> None:
                if not isinstance(result, BaseException):
                    count(data)
                callback(result)

            return super().publish_nowait(
                stream_id,
                sequence,
                previous,
                data,
                expected_position=expected_position,
                callback=counted,
            )

    def count(data: bytes) -> None:
        """Events made public (the stream's own count, as the projection publishes them)."""
        nonlocal events
        events += len(events_pb2.Commit.FromString(data).recorded)

    public = CountingProjection(nc, stream="BENCH_PUBLIC", subject_prefix="bench.public")
    await public.ensure_stream()
    app = TableApp(
        store,
        snapshots,
        LocalDealer(),
        snapshot_every=50,
        auto_start=False,
        projection=public,
        bots=Bots(CallingStations()),
    )
    table_id = f"bench{uuid.uuid4().hex[:8]}"
    config = TableConfig(seats=6, min_players_to_start=6, max_buy_in=10_000)
    await app.execute(table_id, tc.OpenTable(table_id, config, 0.0), "open")
    for i in range(6):
        await app.execute(table_id, tc.SitDown(f"bot{i}", i, 10_000, is_bot=True), f"seat{i}")
    app.auto_start = True
    projector = app.stream.projector
    assert projector is not None
    commits_before = app.commits
    # Commits and bare appends take turns (half a second of commits, a quarter of a second of
    # each kind of appends), so that all meet the machine as it is: on a shared machine the
    # load moves between one phase and the next, and the ratio with it.
    elapsed = bare_elapsed = own_elapsed = 0.0
    raw_id, own_id = f"raw{uuid.uuid4().hex[:8]}", f"own{uuid.uuid4().hex[:8]}"
    raw_subject = store.subject(raw_id)
    js = nc.jetstream()
    raw_last, raw_count, own_last, own_count, payload = 0, 0, 0, 0, b""
    while events < events_wanted:
        started = time.perf_counter()
        while events < events_wanted and time.perf_counter() - started < 0.5:
            if await app.drive(table_id, limit=50) == 0:
                await app.stream.stop()
                raise RuntimeError(f"the table stopped after {events} events")
        await projector.flush(table_id)  # a commit's public projection is part of its cost
        elapsed += time.perf_counter() - started
        if not payload:  # an ordinary commit's payload (the median size), for the bare appends
            sizes = sorted((len(c.data), c.data) for c in await store.read(table_id))
            payload = sizes[len(sizes) // 2][1]
        # the bare ceiling: nats-py's own guarded publish, as any client would append
        started = time.perf_counter()
        while time.perf_counter() - started < 0.25:
            headers = {
                "Nats-Msg-Id": f"{raw_id}/{raw_count}",
                "Nats-Expected-Last-Subject-Sequence": str(raw_last),
            }
            ack = await js.publish(raw_subject, payload, stream=store.stream, headers=headers)
            raw_last = ack.seq
            raw_count += 1
        bare_elapsed += time.perf_counter() - started
        # and the event store's own append (its acknowledgements through the parser hook)
        started = time.perf_counter()
        while time.perf_counter() - started < 0.25:
            own_last = (
                await store.append(own_id, payload, expected_last=own_last, msg_id=str(own_count))
            ).sequence
            own_count += 1
        own_elapsed += time.perf_counter() - started
    commits = app.commits - commits_before
    raw_rate, own_rate = raw_count / bare_elapsed, own_count / own_elapsed
    state = await app.state(table_id)
    _log(
        f"{state.hands_started} hands, {commits} commits, {events} events "
        f"in {elapsed:.1f}s: {commits / elapsed:,.0f} commits/s; between them bare guarded "
        f"appends (nats-py's publish): {raw_rate:,.0f}/s, the event store's own appends: "
        f"{own_rate:,.0f}/s ({len(payload)} bytes each)"
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

    stored = await store.read(table_id)

    def old_decode(payload: bytes) -> list[Any]:
        commit = events_pb2.Commit.FromString(payload)
        return [
            codec.decode(
                {"type": r.type, "v": r.schema_version, "data": json.loads(r.data)}, generic=True
            )
            for r in commit.recorded
        ]

    def new_decode(payload: bytes) -> list[Any]:
        return decode_commit(payload)[1]

    def replay(decode: Callable[[bytes], list[Any]], payloads: list[bytes]) -> float:
        best = float("inf")
        for _ in range(loads):
            t = time.perf_counter()
            state = TableState()
            for payload in payloads:
                for event in decode(payload):
                    apply(state, event)
            best = min(best, time.perf_counter() - t)
        return best

    payloads = [c.data for c in stored]
    replay_new, replay_old = replay(new_decode, payloads), replay(old_decode, payloads)
    _log(
        f"replay of {events:,} events in memory: compiled codec {replay_new * 1000:.1f} ms, "
        f"the codec before {replay_old * 1000:.1f} ms"
    )
    old_full = float("inf")
    for _ in range(loads):
        t = time.perf_counter()
        state = TableState()
        for commit in await store.read_with_fetch(table_id):
            for event in old_decode(commit.data):
                apply(state, event)
        old_full = min(old_full, time.perf_counter() - t)
    _log(f"full load as before (fetch + the old codec) {old_full * 1000:.1f} ms")

    await app.stop()
    await nc.jetstream().delete_stream("BENCH_TABLES")
    await nc.jetstream().delete_stream("BENCH_PUBLIC")
    await nc.close()
    await redis.aclose()
    return [
        Result(
            "table: commits/s, one process", commits / elapsed, "bare JetStream appends", raw_rate
        ),
        Result(
            "table: commits/s, one process",
            commits / elapsed,
            "the store's bare appends",
            own_rate,
        ),
        Result(
            f"table: replay {events:,} events (codec)",
            1 / replay_new,
            "the codec before",
            1 / replay_old,
        ),
        Result(
            f"table: full load {events:,} events", 1 / full, "fetch + codec before", 1 / old_full
        ),
        Result(f"table: load {events:,} events", 1 / with_snapshot, "full replay", 1 / full),
    ]


def run(args: argparse.Namespace) -> list[Result]:
    with start_nats() as nats_server, start_redis() as redis_server:
        results: list[Result] = asyncio.run(
            _measure(nats_server.url, redis_server.url, args.events, args.loads)
        )
    return results
