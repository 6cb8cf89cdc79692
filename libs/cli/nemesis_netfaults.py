"""The faults of ``holdem nemesis --network``, a registry (``NET_FAULTS``): each is made for a
run's ``NetRig`` (the nemesis network, the 3-node NATS cluster on its hosts, the nodes' lazy
disks when a disk fault runs, and the two table replicas) and has a ``start`` and a ``heal``
(blocking: run off the event loop). The network's:

- ``isolate-leader``: the host of the table stream's leader reaches nobody (the other two elect
  a new leader; the old one must not acknowledge anything meanwhile);
- ``isolate-replica``: the host of the table replica that holds the most tables reaches nobody:
  it can commit nothing, the other replica takes its tables over once their leases run out;
- ``split``: one NATS node alone (the minority) against the other two, both replicas and the
  client (the majority);
- ``flap``: one NATS node's link goes down and up every few tenths of a second until the heal;
- ``delay-loss``: every packet the stream leader's host sends waits 50-80 ms
  (libs/nemesis/delay.py: this kernel has no netem qdisc) and a fifth of its packets are
  dropped (nftables).

A process's and the disks': ``pause-replica`` (the replica holding the
most tables stops, SIGSTOP to its process, longer than its lease, and wakes at SIGCONT
believing it still owns them),
``lose-unsynced`` (the stream leader's node loses power: killed, and every page it had not
fsynced dropped), ``lose-unsynced-all`` (every node at once), ``disk-full`` (the stream
leader's disk refuses writes, ENOSPC, until the heal).
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from libs.cli.nemesis_faults import Fault
from libs.devstack.cluster import RESTART_GRACE
from libs.nemesis.hosts import HostCluster
from libs.nemesis.lazymount import LazyMount
from libs.nemesis.network import Host, Network

__all__ = ["DISK_FAULTS", "NET_FAULTS", "NetRig", "run_step"]


@dataclass
class NetRig:
    """What the faults act on. ``held`` says how many tables each replica holds now,
    ``freeze``/``thaw`` pause and wake one (by index); ``isolated`` and ``paused`` record
    (replica index, start, heal) of each replica isolation and pause (the run's clock), for
    the checks that an isolated replica commits nothing and a woken one nothing stale.
    ``disks``: node i's lazy filesystem (none unless a disk fault runs)."""

    net: Network
    cluster: HostCluster
    replicas: list[Host]
    rng: random.Random
    clock: Callable[[], float]
    disks: list[LazyMount] = field(default_factory=list)
    held: Callable[[], list[int]] = lambda: []
    freeze: Callable[[int], None] = lambda index: None
    thaw: Callable[[int], None] = lambda index: None
    isolated: list[tuple[int, float, float]] = field(default_factory=list)
    paused: list[tuple[int, float, float]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what each fault did, for the report
    lost_bytes: int = 0  # unsynced bytes the power cuts dropped
    failures: int = 0  # starts and heals that failed (a node that did not come back)
    rebuilt: int = 0  # nodes wiped and copied back from their peers (the operator's way)

    def sync_disks(self) -> None:
        """Every node's disk writes back what it holds, as time would."""
        for disk in self.disks:
            disk.sync()

    def busiest_replica(self) -> int:
        """The index of the replica holding the most tables."""
        held = self.held()
        return max(range(len(self.replicas)), key=lambda i: held[i] if i < len(held) else 0)

    def say(self, message: str) -> None:
        self.notes.append(f"{self.clock():.1f}s {message}")
        print(f"[nemesis]   {message}", file=sys.stderr, flush=True)

    def rebuilding(self, why: str) -> None:
        """A node is being rebuilt from its peers (``why``: which and why), counted."""
        self.rebuilt += 1
        self.say(f"{why}: rebuilding it from its peers")

    def kept(self) -> dict[str, int | None]:
        """How many messages of the table stream each node's own replica holds, as its
        /jsz says (no leader needed: what is left when the stream never serves again);
        None for a node that does not answer or holds no replica."""
        kept: dict[str, int | None] = {}
        for index, node in enumerate(self.cluster.nodes):
            jsz = node.monitor_json("jsz?streams=true") or {}
            kept[f"n{index}"] = next(
                (
                    int((stream.get("state") or {}).get("messages") or 0)
                    for account in jsz.get("account_details") or []
                    for stream in account.get("stream_detail") or []
                    if stream.get("name") == "HOLDEM_TABLES"
                ),
                None,
            )
        return kept

    def leader(self) -> Host:
        """The host of the table stream's leader, as the nodes that answer say (the first
        host when none does)."""
        for node in self.cluster.nodes:
            jsz = node.monitor_json("jsz?streams=true") or {}
            for account in jsz.get("account_details") or []:
                for stream in account.get("stream_detail") or []:
                    leader = (stream.get("cluster") or {}).get("leader")
                    if stream.get("name") == "HOLDEM_TABLES" and leader:
                        return self.cluster.host_of(str(leader))
        return self.cluster.hosts[0]


async def run_step(rig: NetRig, what: str, work: Callable[[], object]) -> None:
    """A fault's start or heal, off the loop; a failure (a node that will not come back) is
    noted and counted, and the run goes on to say what it did to the tables."""
    try:
        await asyncio.to_thread(work)
    except Exception as exc:
        rig.failures += 1
        rig.say(f"{what} failed: {exc!r:.300}")


def _isolate_leader(rig: NetRig) -> Fault:
    def start() -> None:
        leader = rig.leader()
        rig.say(f"isolating {leader.name}, the table stream's leader")
        rig.net.isolate(leader.name)

    def heal() -> None:
        rig.say(f"at the heal the stream's leader is {rig.leader().name}")
        rig.net.heal()

    return Fault("isolate-leader", start, heal)


def _isolate_replica(rig: NetRig) -> Fault:
    chosen: list[int] = []

    def start() -> None:
        held, index = rig.held(), rig.busiest_replica()
        chosen[:] = [index]
        rig.say(f"isolating {rig.replicas[index].name}, the replica holding {held} tables")
        rig.net.isolate(rig.replicas[index].name)
        rig.isolated.append((index, rig.clock(), float("inf")))

    def heal() -> None:
        rig.net.heal()
        index, began, _ = rig.isolated[-1]
        rig.isolated[-1] = (index, began, rig.clock())

    return Fault("isolate-replica", start, heal)


def _split(rig: NetRig) -> Fault:
    def start() -> None:
        minority = rig.rng.choice(rig.cluster.hosts)
        majority = [h.name for h in rig.net.hosts.values() if h is not minority]
        rig.say(f"{minority.name} alone against {', '.join(majority)}")
        rig.net.partition(majority, [minority.name])  # the client with the first group

    return Fault("split", start, rig.net.heal)


def _flap(rig: NetRig) -> Fault:
    stop = threading.Event()
    flapper: list[threading.Thread] = []

    def flap(host: Host) -> None:
        while not stop.is_set():
            rig.net.isolate(host.name)
            stop.wait(rig.rng.uniform(0.1, 0.4))
            rig.net.heal()
            stop.wait(rig.rng.uniform(0.1, 0.4))

    def start() -> None:
        host = rig.rng.choice(rig.cluster.hosts)
        rig.say(f"{host.name}'s link flapping")
        thread = threading.Thread(target=flap, args=(host,))
        flapper[:] = [thread]
        thread.start()

    def heal() -> None:
        stop.set()
        for thread in flapper:
            thread.join()
        rig.net.heal()

    return Fault("flap", start, heal)


def _delay_loss(rig: NetRig) -> Fault:
    delaying: list[subprocess.Popen[str]] = []

    def start() -> None:
        host = rig.leader()
        rig.say(f"{host.name} (the stream's leader): 50-80 ms delay, 20% loss")
        argv = [sys.executable, "-m", "libs.nemesis.delay", "--ms", "50", "--jitter", "30"]
        process = subprocess.Popen(host.wrap(argv), stdout=subprocess.PIPE, text=True)
        delaying[:] = [process]
        assert process.stdout is not None
        if process.stdout.readline().strip() != "delaying":
            raise RuntimeError(f"the delay on {host.name} did not start")
        rig.net.loss(host.name, 20)

    def heal() -> None:
        rig.net.heal()
        for process in delaying:
            process.terminate()  # SIGTERM: the delay removes its rule and exits
            process.wait(10)

    return Fault("delay-loss", start, heal)


def _pause_replica(rig: NetRig) -> Fault:
    chosen: list[tuple[int, float]] = []

    def start() -> None:
        held, index = rig.held(), rig.busiest_replica()
        rig.say(f"pausing {rig.replicas[index].name}, the replica holding {held} tables")
        rig.freeze(index)
        chosen[:] = [(index, rig.clock())]

    def heal() -> None:
        for index, began in chosen:  # none when it could not be paused
            rig.paused.append((index, began, rig.clock()))  # before it runs again
            rig.thaw(index)

    return Fault("pause-replica", start, heal)


def _node_index(rig: NetRig, host: Host) -> int:
    return rig.cluster.hosts.index(host)


def _power_cut(rig: NetRig, indexes: list[int]) -> None:
    """Nodes ``indexes`` lose power: killed, then every page they had not fsynced dropped."""
    for index in indexes:
        rig.cluster.nodes[index].kill()
    for index in indexes:
        rig.lost_bytes += rig.disks[index].crash()


def _lose_unsynced(rig: NetRig) -> Fault:
    chosen: list[int] = []

    def start() -> None:
        index = _node_index(rig, rig.leader())
        chosen[:] = [index]
        rig.say(f"n{index} (the stream's leader) loses power and what it had not fsynced")
        _power_cut(rig, chosen)

    return Fault("lose-unsynced", start, lambda: _recover(rig, chosen[0]))


def _lose_unsynced_all(rig: NetRig) -> Fault:
    def start() -> None:
        rig.say("every node loses power and what it had not fsynced")
        _power_cut(rig, list(range(len(rig.cluster.nodes))))

    def heal() -> None:
        rig.cluster.restart_all(RESTART_TIMEOUT, RESTART_GRACE, rig.rebuilding)

    return Fault("lose-unsynced-all", start, heal)


def _disk_full(rig: NetRig) -> Fault:
    chosen: list[int] = []

    def start() -> None:
        index = _node_index(rig, rig.leader())
        chosen[:] = [index]
        rig.say(f"n{index}'s disk (the stream's leader) is full")
        rig.disks[index].fill(True)

    def heal() -> None:
        index = chosen[0]
        rig.disks[index].fill(False)
        node = rig.cluster.nodes[index]
        jsz = node.monitor_json("jsz") or {}
        if not node.running or jsz.get("disabled") or "config" not in jsz:
            # nats-server turns JetStream off on a node whose disk filled (or the node went
            # down): space back, the operator restarts it, as here
            rig.say(f"n{index}'s JetStream is off after the full disk: restarting it")
            if node.running:
                node.halt()
            _recover(rig, index)

    return Fault("disk-full", start, heal)


def _recover(rig: NetRig, index: int) -> None:
    """Node ``index`` started again on its store; rebuilt from its peers, as an operator would,
    when it does not start or is not current within ``RESTART_GRACE`` (docs/operations.md)."""
    rig.cluster.recover_node(index, RESTART_GRACE, RESTART_TIMEOUT, rig.rebuilding)


#: a node started again after a power cut replays its store: longer than a first start
RESTART_TIMEOUT = 60.0

#: The faults that need each node's store on a lazy filesystem.
DISK_FAULTS = frozenset({"lose-unsynced", "lose-unsynced-all", "disk-full"})

#: What ``holdem nemesis --network --faults`` may name (``all``: every one).
NET_FAULTS: dict[str, Callable[[NetRig], Fault]] = {
    "isolate-leader": _isolate_leader,
    "isolate-replica": _isolate_replica,
    "split": _split,
    "flap": _flap,
    "delay-loss": _delay_loss,
    "pause-replica": _pause_replica,
    "lose-unsynced": _lose_unsynced,
    "lose-unsynced-all": _lose_unsynced_all,
    "disk-full": _disk_full,
}
