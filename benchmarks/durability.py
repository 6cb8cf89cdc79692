"""What fsyncing every JetStream write costs, and what group commit wins back, in one run: two
nats-servers on the same disk (file storage), one with ``sync_interval: always`` (what we ship,
libs/devstack/natsconf.py) and one with JetStream's default (a flush every two minutes).

Appends are the event store's own (``JetStreamEventStore.append``: guarded by the expected last
subject sequence, deduplicated by message id) of a table commit's size (``--payload`` bytes):

- one table: one writer appending commit after commit (a table's own pace: one at a time);
- a few (4) and many (``--tables``) tables: as many writers at once, each its own table, each
  one commit at a time (what a table replica serving many tables does);
- group commit: the same through ``jsbatch.BatchingAppender`` on the ``always`` server: the
  appends of several tables that arrive while one batch is written go together as one atomic
  batch (one flush), each still guarded on its own.

- the table service's commit path: ``--app-tables`` tables of bots (calling stations, in the
  event loop) played through one ``TableApp`` (the table service's own: decide, guarded append,
  the driver playing on), on each of the three (always, default, always with group commit), one
  after another for ``--rounds`` x ``--seconds`` each: commits per second and append latency.

The append phases take turns (``--rounds`` rounds of ``--seconds`` each), so that all meet the
same load on a shared machine. Commits per second (all rounds), and each append's latency, p50
and p99 (milliseconds), side by side with ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

from benchmarks import Result
from libs.devstack import NatsServer, start_nats
from libs.eventstore import AppendResult, Commit, EventStore
from libs.eventstore.jetstream import JetStreamEventStore
from libs.eventstore.jsbatch import BatchingAppender

NAME = "durability"
#: a few tables at once (fewer than jsbatch.MIN_BATCH: the group commit sends them alone)
FEW = 4
DESCRIPTION = "JetStream sync always vs the default: commits/s, append p50/p99; group commit"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tables", type=int, default=32, help="tables appending at once")
    parser.add_argument("--payload", type=int, default=600, help="bytes per commit")
    parser.add_argument("--seconds", type=float, default=1.5, help="length of each turn")
    parser.add_argument("--rounds", type=int, default=3, help="turns of each phase")
    parser.add_argument(
        "--app-tables", type=int, default=32, help="tables played through TableApp (0: none)"
    )


def _log(message: str) -> None:
    print(f"[durability] {message}", file=sys.stderr)


@dataclass
class Tally:
    """Appends and their latencies (seconds) over every turn of one phase."""

    appends: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)

    @property
    def per_second(self) -> float:
        return self.appends / self.seconds if self.seconds else 0.0

    def percentile_ms(self, fraction: float) -> float:
        ordered = sorted(self.latencies)
        if not ordered:
            return 0.0
        return 1000 * ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class Writers:
    """``count`` tables, each appending one commit at a time to ``store`` (state kept between
    turns: each table's last sequence)."""

    def __init__(self, store: EventStore, count: int, payload: bytes) -> None:
        self.store = store
        self.payload = payload
        self.tables = [f"bench-{uuid.uuid4().hex[:8]}-{i}" for i in range(count)]
        self.last = dict.fromkeys(self.tables, 0)

    async def turn(self, seconds: float, tally: Tally) -> None:
        deadline = time.perf_counter() + seconds
        started = time.perf_counter()

        async def writer(table: str) -> None:
            while time.perf_counter() < deadline:
                begun = time.perf_counter()
                result = await self.store.append(
                    table, self.payload, expected_last=self.last[table], msg_id=uuid.uuid4().hex
                )
                tally.latencies.append(time.perf_counter() - begun)
                tally.appends += 1
                self.last[table] = result.sequence

        await asyncio.gather(*(writer(t) for t in self.tables))
        tally.seconds += time.perf_counter() - started


@contextlib.asynccontextmanager
async def _store(server: NatsServer, atomic: bool) -> AsyncIterator[JetStreamEventStore]:
    import nats

    nc = await nats.connect(server.url)
    store = JetStreamEventStore(nc, stream="BENCH_DURABILITY", subject_prefix="bench.durability")
    await store.ensure_stream(allow_atomic=atomic)
    try:
        yield store
    finally:
        await nc.close()


async def _measure(
    always: NatsServer, default: NatsServer, args: argparse.Namespace
) -> list[Result]:
    payload = bytes(args.payload)
    async with _store(always, atomic=True) as durable, _store(default, atomic=False) as fast:
        batched = BatchingAppender(durable)
        if not await batched.check():
            raise RuntimeError("the nats-server takes no atomic batches (JetStream 2.12 needed)")
        phases: dict[str, tuple[Callable[[float, Tally], Awaitable[None]], Tally]] = {}
        for count in (1, FEW, args.tables):
            for policy, store in (("always", durable), ("default", fast), ("group", batched)):
                if not (policy == "group" and count == 1):  # one table: nothing to group
                    writers = Writers(store, count, payload)
                    phases[f"{count} {policy}"] = (writers.turn, Tally())
        for round_ in range(args.rounds):
            for turn, tally in phases.values():
                await turn(args.seconds, tally)
            _log(f"round {round_ + 1}/{args.rounds} done")
        app_tallies: dict[str, Tally] = {}
        if args.app_tables:
            seconds = args.rounds * args.seconds
            for policy, store in (("always", durable), ("default", fast), ("group", batched)):
                app_tallies[policy] = await play_tables(store, args.app_tables, seconds)
                _log(f"table service, {policy}: {app_tallies[policy].appends} commits")
        stats = batched.stats
        _log(
            f"group commit: {stats.batches} batches of {stats.batched / max(1, stats.batches):.1f} "
            f"appends on average, {stats.alone} appends alone, {stats.refused} batches refused"
        )
    tallies = {name: tally for name, (_, tally) in phases.items()}
    tallies.update({f"app {policy}": tally for policy, tally in app_tallies.items()})
    return _results(tallies, args.tables, args.app_tables)


class _Timed:
    """An ``EventStore`` that counts and times the appends of ``store`` into ``tally``."""

    def __init__(self, store: EventStore, tally: Tally) -> None:
        self.store = store
        self.tally = tally

    async def read(self, stream_id: str, after: int = 0) -> list[Commit]:
        return await self.store.read(stream_id, after)

    async def last_sequence(self, stream_id: str) -> int:
        return await self.store.last_sequence(stream_id)

    async def append(
        self,
        stream_id: str,
        data: bytes,
        *,
        expected_last: int,
        msg_id: str,
        headers: dict[str, str] | None = None,
    ) -> AppendResult:
        begun = time.perf_counter()
        result = await self.store.append(
            stream_id, data, expected_last=expected_last, msg_id=msg_id, headers=headers
        )
        self.tally.latencies.append(time.perf_counter() - begun)
        self.tally.appends += 1
        return result


async def play_tables(store: EventStore, count: int, seconds: float) -> Tally:
    """``count`` tables of three calling stations played through one ``TableApp`` on ``store``
    for ``seconds`` (after every table is open): its commits."""
    from libs.ai import Level
    from libs.table import TableConfig
    from libs.table import commands as tc
    from services.table.app import TableApp
    from services.table.bots import Bots, LocalDecider
    from services.table.dealing import LocalDealer

    tally = Tally()
    timed = _Timed(store, tally)
    app = TableApp(timed, None, LocalDealer(), bots=Bots(LocalDecider(Level.CALL), 5.0))
    config = TableConfig(seats=3, min_players_to_start=2, max_buy_in=100_000)
    tables = [f"app-{uuid.uuid4().hex[:8]}-{i}" for i in range(count)]

    async def open_table(table_id: str) -> None:
        await app.execute(table_id, tc.OpenTable(table_id, config, 0.0), "open")
        for seat in range(3):
            sit = tc.SitDown(f"{table_id}-{seat}", seat, 100_000, is_bot=True)
            await app.execute(table_id, sit, f"seat-{seat}")

    await asyncio.gather(*(open_table(t) for t in tables))
    tally.appends, tally.latencies = 0, []
    started = time.perf_counter()

    async def drive(table_id: str) -> None:
        while time.perf_counter() - started < seconds:
            if await app.drive(table_id, limit=5) == 0:
                await asyncio.sleep(0.005)

    await asyncio.gather(*(drive(t) for t in tables))
    tally.seconds = time.perf_counter() - started
    counted = Tally(tally.appends, tally.seconds, list(tally.latencies))
    await app.stop()  # the driver's last commits meanwhile are not counted
    return counted


def _results(t: dict[str, Tally], tables: int, app_tables: int) -> list[Result]:
    comparisons = [("1 table, sync always", t["1 always"], "default policy", t["1 default"])]
    for count in (FEW, tables):
        always, default, group = t[f"{count} always"], t[f"{count} default"], t[f"{count} group"]
        comparisons += [
            (f"{count} tables, sync always", always, "default policy", default),
            (f"{count} tables, group commit", group, "sync always alone", always),
            (f"{count} tables, group commit", group, "default policy", default),
        ]
    if app_tables:
        always, default, group = t["app always"], t["app default"], t["app group"]
        label = f"table service, {app_tables} tables"
        comparisons += [
            (f"{label}, sync always", always, "default policy", default),
            (f"{label}, group commit", group, "sync always alone", always),
            (f"{label}, group commit", group, "default policy", default),
        ]
    results = []
    for label, ours, peer_name, peer in comparisons:
        results.append(Result(f"{label}: commits", ours.per_second, peer_name, peer.per_second))
        for fraction, tag in ((0.5, "p50"), (0.99, "p99")):
            ours_ms, peer_ms = ours.percentile_ms(fraction), peer.percentile_ms(fraction)
            results.append(Result(f"{label}: append {tag}", ours_ms, peer_name, peer_ms, "ms"))
    return results


def run(args: argparse.Namespace) -> list[Result]:
    with start_nats() as always, start_nats(sync_interval=None) as default:
        _log(
            f"sync always: {always.jetstream_config().get('sync_always')}, default: "
            f"{default.jetstream_config().get('sync_always', False)}"
        )
        return asyncio.run(_measure(always, default, args))
