"""``holdem nemesis --network``: the faults of a cluster (``nemesis_netfaults``: the network's,
paused replicas, power cuts and full disks) under a 3-node NATS cluster and two table
replicas, each on a host of its own in the nemesis network (libs/nemesis/network.py: a network
namespace per host, veth links to one bridge, nftables rules for the faults; root only), while
bots play tables; then the checker of every run (``nemesis_check``) over the recorded history.

- NATS: ``HostCluster`` (libs/nemesis/hosts.py), nodes ``n0``-``n2`` on hosts ``n0``-``n2``, the
  table stream replicated on all three, ``sync_interval`` always unless ``--sync default``.
  When a disk fault is asked for, each node's JetStream store is on a lazy filesystem of its
  own (libs/nemesis/lazymount.py: FUSE, what was never fsynced is lost in a power cut).
- The table replicas: two ``TableApp``s (``nemesis_replicas``: the table service's write path,
  with its shard leases, 1 s), each on a thread and event loop of its own in this process (so
  one can be paused alone) and reaching NATS only through a forwarder run in its own host's
  namespace (libs/nemesis/forward.py), so isolating the host cuts the replica off. Each table
  is opened on one replica (in turn); the client (this process, on the bridge) drives every
  table through the replica that serves it and turns to the other when it fails
  (``NotOwner``, or the store unreachable twice in a row), as the gateway's routing does.
- Every append either replica got acknowledged is recorded with the replica that made it; the
  report adds ``acked_while_isolated`` (appends an isolated replica got acknowledged between its
  isolation and the heal, beyond the first half second: must be 0), ``stale_after_waking``
  (appends a paused replica got acknowledged, in the lease's time after it woke, on tables the
  other replica committed to while it slept: must be 0) and ``taken_over`` (appends the other
  replica made on the cut-off or paused one's tables meanwhile).
Not here (yet): the lobby and the gateway on hosts of their own, a client through the gateway.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from libs.cli.nemesis_check import (
    FAULT_SECONDS,
    RECOVERY_DEADLINE,
    History,
    check,
    isolation,
    read_streams,
    recovered,
    recovery,
    stale_after_waking,
)
from libs.cli.nemesis_netfaults import DISK_FAULTS, NET_FAULTS, NetRig, run_step
from libs.cli.nemesis_replicas import FORWARD_PORT, LEASE_TTL, Replica
from libs.devstack.processes import spawn
from libs.eventstore import Commit
from libs.eventstore.jetstream import TABLE_STREAM, JetStreamEventStore
from libs.nemesis.hosts import HostCluster
from libs.nemesis.lazymount import LazyMount, require_fuse
from libs.nemesis.network import Host, Network
from libs.platform.natsconn import close_nats, connect_nats
from libs.table import TableConfig
from libs.table import commands as tc
from services.table.app import TableApp
from services.table.ownership import NotOwner

__all__ = ["run_network"]


def _log(message: str) -> None:
    print(f"[nemesis] {message}", file=sys.stderr, flush=True)


T = TypeVar("T")
#: an isolated replica's appends already on their way may still be acknowledged this long
GRACE = 0.5
#: how long some faults last (seconds; the others FAULT_SECONDS): an isolated or paused
#: replica's leases must run out for the other to take over, and an isolated leader's
#: followers must elect another (NATS's election timeout is a few seconds)
HOLD = {
    "isolate-replica": (5 * LEASE_TTL, 6 * LEASE_TTL),
    "pause-replica": (5 * LEASE_TTL, 6 * LEASE_TTL),
    "isolate-leader": (6.0, 8.0),
}
#: a table that committed nothing this long is driven through the other replica
QUIET = 2 * LEASE_TTL


def run_network(
    faults: tuple[str, ...],
    duration: float,
    seed: int,
    workdir: Path,
    *,
    sync: str = "always",
    tables: int = 4,
) -> dict[str, Any]:
    """Play ``tables`` tables for ``duration`` seconds under the network ``faults``."""
    rng = random.Random(seed)
    lazy = bool(DISK_FAULTS.intersection(faults))
    if lazy:
        require_fuse()
    with Network("nem", subnet_index=79) as net, contextlib.ExitStack() as mounted:
        nodes = [net.add_host(f"n{i}") for i in range(3)]
        replicas = [net.add_host(f"r{i}") for i in range(2)]
        # a lazy filesystem per node, mounted before the nodes start (their namespaces see it)
        disks = [
            mounted.enter_context(LazyMount(workdir / f"disk-n{i}", workdir / f"mnt-n{i}"))
            for i in range(3 if lazy else 0)
        ]
        cluster = HostCluster(
            nodes,
            parent_dir=workdir,
            keep_temp=True,  # in the run's directory: its logs go (or stay) with it
            data_dirs=[disk.mount / "js" for disk in disks] if lazy else None,
            sync_interval=None if sync == "default" else "always",
        )
        with cluster:
            forwarders = [_forward(host, cluster, workdir) for host in replicas]
            try:
                started = time.monotonic()
                clock = lambda: time.monotonic() - started  # noqa: E731
                rig = NetRig(net, cluster, replicas, rng, clock, disks=disks)
                history = History()
                try:
                    return asyncio.run(_run(rig, history, faults, duration, tables))
                finally:
                    history.dump(workdir / "history.jsonl")
            finally:
                for process in forwarders:
                    process.kill()
                    process.wait()


def _forward(host: Host, cluster: HostCluster, workdir: Path) -> subprocess.Popen[bytes]:
    """A forwarder in ``host``'s namespace: port FORWARD_PORT+i on its address to node i."""
    mappings = [
        f"{FORWARD_PORT + i}={node.host}:{node.port}" for i, node in enumerate(cluster.nodes)
    ]
    argv = host.wrap([sys.executable, "-m", "libs.nemesis.forward", host.address, *mappings])
    return spawn(argv, workdir / f"forward-{host.name}.log")


class _Tables:
    """The client: every table driven through the replica that serves it (``serving``); a
    table that committed nothing for ``QUIET`` seconds is turned to the other replica (a cut
    off replica often fails nothing: its driver waits on a store it cannot reach)."""

    def __init__(self, replicas: list[Replica], table_ids: list[str], history: History) -> None:
        self.replicas = replicas
        self.table_ids = table_ids
        self.history = history
        self._seen = dict.fromkeys(table_ids, (0, time.monotonic()))  # acks seen, since when
        self._left: dict[str, tuple[int, float]] = {}  # the replica a quiet table left, when
        self._abandoned: set[asyncio.Future[Any]] = set()  # calls given up on, still ending
        self.serving = {t: i % len(replicas) for i, t in enumerate(table_ids)}
        self.stopping = asyncio.Event()
        self.errors = 0

    async def _within(self, call: Awaitable[T], seconds: float) -> T:
        """``call``'s result, or TimeoutError after ``seconds``; the call is then cancelled but
        not waited for (a drive cut off from its store may not end at once, and the table must
        go on through the other replica meanwhile)."""
        task = asyncio.ensure_future(call)
        done, _ = await asyncio.wait({task}, timeout=seconds)
        if not done:
            task.cancel()
            self._abandoned.add(task)
            task.add_done_callback(self._abandoned.discard)
            raise TimeoutError(f"no answer in {seconds} s")
        return task.result()

    def replica(self, table_id: str) -> Replica:
        """The replica that serves ``table_id`` now, as the client sees it."""
        return self.replicas[self.serving[table_id]]

    def _failed(self, table_id: str, exc: BaseException, streak: int) -> int:
        """The other replica after ``NotOwner`` or a second failure in a row, unless the
        table was just turned away from it for being quiet (its lease runs out meanwhile)."""
        self.errors += 1
        if isinstance(exc, NotOwner) or streak >= 1:
            left, when = self._left.get(table_id, (-1, 0.0))
            if left != 1 - self.serving[table_id] or time.monotonic() - when > 3 * QUIET:
                self.serving[table_id] = 1 - self.serving[table_id]
                _log(f"  {table_id} to r{self.serving[table_id]} after {exc!r:.60}")
            return 0
        return streak + 1

    async def execute(self, table_id: str, command: tc.TableCommand, key: str) -> None:
        deadline, streak = time.monotonic() + RECOVERY_DEADLINE, 0
        while True:
            try:
                call = self.replica(table_id).call(lambda app: app.execute(table_id, command, key))
                await self._within(call, 10.0)
                return
            except Exception as exc:
                streak = self._failed(table_id, exc, streak)
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)

    async def open(self, table_id: str) -> None:
        config = TableConfig(seats=3, min_players_to_start=2, max_buy_in=10_000)
        await self.execute(table_id, tc.OpenTable(table_id, config, 0.0), "open")
        for seat in range(3):
            sit = tc.SitDown(f"{table_id}-bot{seat}", seat, 1_000, is_bot=True)
            await self.execute(table_id, sit, f"seat-{seat}")

    def _quiet(self) -> list[str]:
        """The tables with no acknowledged commit for ``QUIET`` seconds (checked as a whole,
        once a drive round, from the acknowledgements since the last look)."""
        counts: dict[str, int] = {}
        for ack in self.history.acknowledged:
            counts[ack.table_id] = counts.get(ack.table_id, 0) + 1
        now, quiet = time.monotonic(), []
        for table_id, (seen, since) in self._seen.items():
            if counts.get(table_id, 0) != seen:
                self._seen[table_id] = (counts.get(table_id, 0), now)
            elif now - since > QUIET:
                self._seen[table_id] = (seen, now)
                quiet.append(table_id)
        return quiet

    async def watch(self) -> None:
        """Turn each quiet table to the other replica."""
        while not self.stopping.is_set():
            await asyncio.sleep(QUIET / 4)
            for table_id in self._quiet():
                self.errors += 1
                self._left[table_id] = (self.serving[table_id], time.monotonic())
                self.serving[table_id] = 1 - self.serving[table_id]
                _log(f"  {table_id} to r{self.serving[table_id]}: quiet for {QUIET} s")

    async def drive(self, table_id: str) -> None:
        streak = 0
        while not self.stopping.is_set():
            try:
                call = self.replica(table_id).call(lambda app: app.drive(table_id, 20))
                driven = await self._within(call, 3.0)
                streak = 0
                if driven == 0:
                    await asyncio.sleep(0.05)
            except Exception as exc:
                streak = self._failed(table_id, exc, streak)
                await asyncio.sleep(0.2)

    async def stale_route(self, index: int) -> int:
        """Every table driven once through replica ``index``, as a client whose routing still
        points at it would (just woken, it may believe it holds them all); how many refused
        (``NotOwner``). What it commits must be on tables it may serve: the checker's
        ``stale_after_waking`` says."""
        replica, refused = self.replicas[index], 0
        for table_id in self.table_ids:
            try:
                await self._within(replica.call(_driving(table_id, 5)), 3.0)
            except NotOwner:
                refused += 1
            except Exception as exc:  # the store slow to answer: the same as any drive
                _log(f"  {table_id} through r{index}, woken: {exc!r:.60}")
        return refused

    async def close(self, table_id: str) -> None:
        await self.execute(table_id, tc.CloseTable("the nemesis is over"), "close")
        deadline = time.monotonic() + RECOVERY_DEADLINE
        while True:
            with contextlib.suppress(Exception):
                replica = self.replica(table_id)
                if (await replica.call(lambda app: app.state(table_id))).closed:
                    return
                await replica.call(lambda app: app.drive(table_id))
            if time.monotonic() > deadline:
                raise TimeoutError(f"table {table_id} did not close")
            await asyncio.sleep(0.1)


def _driving(table_id: str, limit: int) -> Callable[[TableApp], Coroutine[Any, Any, int]]:
    return lambda app: app.drive(table_id, limit)


async def _run(
    rig: NetRig, history: History, names: tuple[str, ...], duration: float, count: int
) -> dict[str, Any]:
    clock = rig.clock
    admin = await connect_nats(rig.cluster.url, reconnect_time_wait=0.1)
    await JetStreamEventStore(admin, stream=TABLE_STREAM).ensure_stream(replicas=3)
    replicas = [Replica(i, host, history, clock) for i, host in enumerate(rig.replicas)]
    table_ids = [f"net{i}" for i in range(count)]
    play = _Tables(replicas, table_ids, history)
    rig.held = lambda: [len(r.app.tables) if r.app else 0 for r in replicas]
    rig.freeze = lambda i: replicas[i].freeze()
    rig.thaw = lambda i: replicas[i].thaw()
    injected: list[str] = []
    healed_at: list[float] = []
    closed = False
    refused_after_waking = 0
    try:
        for replica in replicas:
            await replica.start()
        await asyncio.gather(*(play.open(t) for t in table_ids))
        # the stream, the lease buckets and the tables were made long ago, as far as the
        # disks know (JetStream does not fsync a new stream's metadata): a power cut takes
        # hands played, never the tables themselves
        await asyncio.to_thread(rig.sync_disks)
        _log(f"{clock():.1f}s {count} tables open on {len(replicas)} replicas")
        drivers = [asyncio.create_task(play.drive(t)) for t in table_ids]
        drivers.append(asyncio.create_task(play.watch()))
        end = clock() + duration
        order = list(names)
        since = clock()
        while clock() < end:
            await asyncio.sleep(rig.rng.uniform(0.5, 1.5))
            await recovered(history, since, clock)  # a fault only on tables that commit
            name = (
                order[len(injected) % len(order)]
                if len(injected) < len(order)
                else rig.rng.choice(order)
            )
            fault = NET_FAULTS[name](rig)
            injected.append(fault.name)
            _log(f"{clock():.1f}s {fault.name}: {len(history.acknowledged)} acknowledged")
            await run_step(rig, f"{name} start", fault.start)
            await asyncio.sleep(rig.rng.uniform(*HOLD.get(name, FAULT_SECONDS)))
            await run_step(rig, f"{name} heal", fault.heal)
            since = clock()
            healed_at.append(since)
            _log(f"{clock():.1f}s healed")
            if name == "pause-replica" and rig.paused:
                refused_after_waking += await play.stale_route(rig.paused[-1][0])
        await recovered(history, healed_at[-1] if healed_at else 0.0, clock)
        _log(f"{clock():.1f}s recovered; closing the tables")
        play.stopping.set()
        closed = await _close(play, drivers)
        _log(f"{clock():.1f}s {'closed' if closed else 'NOT closed: the tables stopped'}")
    finally:
        for replica in replicas:
            await replica.stop()
        await close_nats(admin, drain_seconds=2.0)
    kept: dict[str, int | None] | None = None
    try:
        streams: dict[str, list[Commit]] | None = await read_streams(rig.cluster.url, table_ids)
    except Exception as exc:  # the cluster never came back: nothing can be checked (null)
        streams, kept = None, rig.kept()  # what each node's own replica still holds
        rig.say(f"the streams cannot be read: {exc!r:.200}; the nodes hold {kept}")
    verdict = check(streams or {}, history)
    read = streams is not None
    recoveries = [recovery(history, healed) for healed in healed_at]
    writers = [r.name for r in replicas]
    cut_off = [(writers[i], writers[1 - i], began, healed) for i, began, healed in rig.isolated]
    paused = [(writers[i], writers[1 - i], began, woke) for i, began, woke in rig.paused]
    while_isolated, taken_over = isolation(history, cut_off, GRACE)
    _, taken_while_paused = isolation(history, paused, GRACE)
    return {
        "faults": injected,
        "ops": len(history.acknowledged) + play.errors,
        "acknowledged": len(history.acknowledged),
        "lost": len(verdict.lost) if read else None,
        "duplicated": verdict.duplicated if read else None,
        "chips_conserved": verdict.chips_conserved and read,
        "max_recovery_s": round(max(recoveries, default=0.0), 3),
        "closed": closed,
        "gaps": verdict.gaps if read else None,
        "commits": verdict.commits,
        "hands": verdict.hands,
        "errors_waited_out": play.errors,
        "acked_while_isolated": while_isolated,
        "stale_after_waking": stale_after_waking(history, paused, LEASE_TTL),
        "refused_after_waking": refused_after_waking,
        "taken_over": taken_over + taken_while_paused,
        "unsynced_bytes_dropped": rig.lost_bytes,
        "fault_failures": rig.failures,
        "nodes_rebuilt": rig.rebuilt,
        "kept_by_node": kept,
        "fault_log": rig.notes,
        "isolated": cut_off,
        "lost_commits": verdict.lost[:20],
        "chip_failures": verdict.chip_failures[:20],
    }


async def _close(play: _Tables, drivers: list[asyncio.Task[None]]) -> bool:
    try:
        await asyncio.wait_for(asyncio.gather(*drivers), RECOVERY_DEADLINE)
        closing = asyncio.gather(*(play.close(t) for t in play.table_ids))
        await asyncio.wait_for(closing, 2 * RECOVERY_DEADLINE)
    except Exception:
        for task in drivers:
            task.cancel()
        return False
    return True
