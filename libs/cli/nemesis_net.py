"""``holdem nemesis --network``: the faults of a cluster (``nemesis_netfaults``: the network's,
paused replicas, power cuts and full disks) under a 3-node NATS cluster, two table replicas,
Redis, the lobby and the gateway, each on a host of its own in the nemesis network
(libs/nemesis/network.py: a network namespace per host, veth links to one bridge, nftables
rules for the faults; root only), while players play tables through the gateway; then the
checker of every run (``nemesis_check``) over the recorded history.

- NATS: ``HostCluster`` (libs/nemesis/hosts.py), nodes ``n0``-``n2`` on hosts ``n0``-``n2``, the
  table stream replicated on all three, ``sync_interval`` always unless ``--sync default``.
  When a disk fault is asked for, each node's JetStream store is on a lazy filesystem of its
  own (libs/nemesis/lazymount.py: FUSE, what was never fsynced is lost in a power cut).
- The table replicas: two table service processes (``nemesis_replicas``: ``python -m
  services.table``, sharing the tables by shard lease, 1 s), each in its own host's namespace
  on its own address, reaching the NATS nodes and Redis (host ``db``) across the veths; so
  isolating a replica's host cuts that process off, and pausing it is SIGSTOP/SIGCONT.
- The lobby and the gateway: a service process each, on hosts ``lobby`` and ``gw``, told one
  replica's address and routing each table's calls to the replica holding it.
- The client (``nemesis_client``, this process, on the bridge) plays the tables as players do,
  each a guest with its own token, through the gateway's API only. The history is what the
  players saw acknowledged (each answer's sequence and the commit's id); which replica wrote
  each commit the checker reads from the stream (``Holdem-Writer``).
- The report adds ``acked_while_isolated`` (acknowledged commits an isolated replica wrote
  between its isolation and the heal, beyond the first half second: must be 0),
  ``landed_while_isolated`` (every commit in the stream it recorded meanwhile, acknowledged or
  not: must be 0), ``stale_after_waking`` (commits a paused replica got acknowledged, in the
  lease's time after it woke, on tables the other replica committed to while it slept: must
  be 0), ``taken_over`` (acknowledged commits the other replica made on the cut-off or paused
  one's tables meanwhile) and ``hosts`` (each process: name, namespace, address, pid).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
from holdem.gateway.v1 import gateway_pb2_grpc

from libs.cli.nemesis_check import (
    FAULT_SECONDS,
    RECOVERY_DEADLINE,
    History,
    acked_while_cut_off,
    attributed,
    check,
    landed_while_cut_off,
    read_streams,
    recovered,
    recovery,
    stale_after_waking,
    taken_over,
)
from libs.cli.nemesis_client import Tables
from libs.cli.nemesis_netfaults import DISK_FAULTS, NET_FAULTS, NetRig, run_step
from libs.cli.nemesis_replicas import LEASE_TTL, HostedService, Replica, front
from libs.eventstore import Commit
from libs.eventstore.jetstream import TABLE_STREAM, JetStreamEventStore
from libs.nemesis.hosts import HostCluster, HostedRedis
from libs.nemesis.lazymount import LazyMount, require_fuse
from libs.nemesis.network import Network
from libs.platform.natsconn import close_nats, connect_nats
from services.table.commits import WRITER_HEADER

__all__ = ["run_network"]


def _log(message: str) -> None:
    print(f"[nemesis] {message}", file=sys.stderr, flush=True)


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
        replica_hosts = [net.add_host(f"r{i}") for i in range(2)]
        store = net.add_host("db")  # Redis, the services' (no fault targets it)
        front_hosts = (net.add_host("lobby"), net.add_host("gw"))
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
        redis = HostedRedis(store, keep_temp=True, parent_dir=workdir, name="redis")
        with cluster, redis:
            urls = ",".join(f"nats://{node.host}:{node.port}" for node in cluster.nodes)
            started = time.monotonic()
            clock = lambda: time.monotonic() - started  # noqa: E731
            rig = NetRig(net, cluster, replica_hosts, rng, clock, disks=disks)
            replicas = [
                Replica(i, host, workdir, urls, redis.url) for i, host in enumerate(replica_hosts)
            ]
            lobby, gateway = front(*front_hosts, workdir, urls, redis.url, replicas[0].address)
            services = [*replicas, lobby, gateway]
            history = History()
            try:
                report = asyncio.run(_run(rig, services, history, faults, duration, tables))
            finally:
                history.dump(workdir / "history.jsonl")
            report["hosts"] = _hosts(cluster, redis, services)
            return report


def _hosts(cluster: HostCluster, redis: HostedRedis, services: list[HostedService]) -> list[Any]:
    """Each process of the run: its name, host's namespace, address and pid."""
    nodes = [
        {"name": node.name, "namespace": host.namespace, "address": f"{node.host}:{node.port}",
         "pid": node.pid if node.started else None}
        for node, host in zip(cluster.nodes, cluster.hosts, strict=True)
    ]  # fmt: skip
    store = {"name": "redis", "namespace": redis.on.namespace, "address": redis.url}
    return [*nodes, {**store, "pid": redis.pid}, *(s.describe() for s in services)]


async def _run(
    rig: NetRig,
    services: list[HostedService],
    history: History,
    names: tuple[str, ...],
    duration: float,
    count: int,
) -> dict[str, Any]:
    clock = rig.clock
    epoch = time.time() - clock()  # the wall-clock time of the run's zero
    replicas = [s for s in services if isinstance(s, Replica)]
    admin = await connect_nats(rig.cluster.url, reconnect_time_wait=0.1)
    await JetStreamEventStore(admin, stream=TABLE_STREAM).ensure_stream(replicas=3)
    table_store = JetStreamEventStore(admin, stream=TABLE_STREAM)
    held: list[int] = [0] * len(replicas)
    rig.held = lambda: list(held)
    rig.freeze = lambda i: _signal(rig, replicas[i], "SIGSTOP", replicas[i].freeze)
    rig.thaw = lambda i: _signal(rig, replicas[i], "SIGCONT", replicas[i].thaw)
    injected: list[str] = []
    healed_at: list[float] = []
    closed = False
    refused_after_waking = 0
    channel = grpc.aio.insecure_channel(services[-1].address)  # the gateway's, as a player's
    stub: gateway_pb2_grpc.GatewayServiceAsyncStub = gateway_pb2_grpc.GatewayServiceStub(channel)
    play = Tables(stub, history, clock)
    try:
        # one after the other: the first replica makes the streams and lease buckets
        for service in services:
            await asyncio.to_thread(service.start)
        for replica in replicas:
            replica.connect()
        _log(f"{clock():.1f}s serving: {[s.describe() for s in services]}")
        await asyncio.gather(*(play.open(i) for i in range(count)))
        # the stream, the lease buckets and the tables were made long ago, as far as the
        # disks know (JetStream does not fsync a new stream's metadata): a power cut takes
        # hands played, never the tables themselves
        await asyncio.to_thread(rig.sync_disks)
        _log(f"{clock():.1f}s {count} tables open through the gateway: {play.table_ids}")
        drivers = [asyncio.create_task(play.drive(t)) for t in play.table_ids]
        end = clock() + duration
        order = list(names)
        since = clock()
        while clock() < end:
            await asyncio.sleep(rig.rng.uniform(0.5, 1.5))
            await recovered(history, since, clock)  # a fault only on tables that commit
            held[:] = await _held(table_store, replicas, play.table_ids)
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
                refused_after_waking += await play.stale_route(replicas[rig.paused[-1][0]])
        await recovered(history, healed_at[-1] if healed_at else 0.0, clock)
        _log(f"{clock():.1f}s recovered; closing the tables")
        play.stopping.set()
        closed = await _close(play, drivers)
        _log(f"{clock():.1f}s {'closed' if closed else 'NOT closed: the tables stopped'}")
        if not closed:
            for service in services:  # what they said went wrong, last
                for line in service.warnings():
                    _log(f"  {service.name}: {line}")
    finally:
        with contextlib.suppress(Exception):
            await channel.close()
        for service in reversed(services):  # the callers first
            await service.stop()
        await close_nats(admin, drain_seconds=2.0)
    table_ids = play.table_ids
    kept: dict[str, int | None] | None = None
    try:
        streams: dict[str, list[Commit]] | None = await read_streams(rig.cluster.url, table_ids)
    except Exception as exc:  # the cluster never came back: nothing can be checked (null)
        streams, kept = None, rig.kept()  # what each node's own replica still holds
        rig.say(f"the streams cannot be read: {exc!r:.200}; the nodes hold {kept}")
    verdict = check(streams or {}, history)
    read = streams is not None
    seen = attributed(history, streams or {})  # each acknowledged commit's writer
    recoveries = [recovery(history, healed) for healed in healed_at]
    writers = [r.name for r in replicas]
    cut_off = [(writers[i], writers[1 - i], began, healed) for i, began, healed in rig.isolated]
    paused = [(writers[i], writers[1 - i], began, woke) for i, began, woke in rig.paused]
    taken = taken_over(seen, cut_off)
    landed = landed_while_cut_off(streams, cut_off, GRACE, epoch) if streams is not None else None
    taken_while_paused = taken_over(seen, paused)
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
        "acknowledged_by": dict(Counter(a.by or "unknown" for a in seen.acknowledged)),
        "acked_while_isolated": acked_while_cut_off(seen, landed) if landed is not None else None,
        "landed_while_isolated": len(landed) if landed is not None else None,
        "stale_after_waking": stale_after_waking(seen, paused, LEASE_TTL),
        "refused_after_waking": refused_after_waking,
        "taken_over": taken + taken_while_paused,
        "unsynced_bytes_dropped": rig.lost_bytes,
        "fault_failures": rig.failures,
        "nodes_rebuilt": rig.rebuilt,
        "kept_by_node": kept,
        "fault_log": rig.notes,
        "isolated": cut_off,
        "lost_commits": verdict.lost[:20],
        "chip_failures": verdict.chip_failures[:20],
    }


async def _held(
    store: JetStreamEventStore, replicas: list[Replica], tables: list[str]
) -> list[int]:
    """How many of the tables each replica holds now, as the stream says: the replica that
    wrote each table's last commit (``Holdem-Writer``; a table it cannot say counts for
    nobody)."""
    writers = []
    for table_id in tables:
        try:
            last = await asyncio.wait_for(store.last_commit(table_id), 2.0)
        except Exception:  # the stream away for now: this table counts for nobody
            last = None
        writers.append(None if last is None else last.headers.get(WRITER_HEADER))
    return [writers.count(r.name) for r in replicas]


def _signal(rig: NetRig, replica: Replica, name: str, send: Callable[[], None]) -> None:
    rig.say(f"{name} to {replica.name} (pid {replica.pid})")
    send()


async def _close(play: Tables, drivers: list[asyncio.Task[None]]) -> bool:
    """Let the players finish their moves, then close every table (played until closed)."""
    try:
        await asyncio.wait_for(asyncio.gather(*drivers), RECOVERY_DEADLINE)
        closing = asyncio.gather(*(play.close(t) for t in play.table_ids))
        await asyncio.wait_for(closing, 2 * RECOVERY_DEADLINE)
    except Exception as exc:  # a timeout, or a table that did not close: said why
        _log(f"  {exc!r:.500}" if str(exc) else "  the players' last moves did not end in time")
        for table in play.tables.values():
            _log(f"  {table.table_id}: {table.describe()}")
        for task in drivers:
            task.cancel()
        return False
    return True
