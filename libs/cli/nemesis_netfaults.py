"""The network faults of ``holdem nemesis --network``, a registry (``NET_FAULTS``): each is made
for a run's ``NetRig`` (the nemesis network, the 3-node NATS cluster on its hosts, and the two
table replicas' hosts) and has a ``start`` and a ``heal`` (blocking: run off the event loop).

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
"""

from __future__ import annotations

import random
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from libs.cli.nemesis_faults import Fault
from libs.nemesis.hosts import HostCluster
from libs.nemesis.network import Host, Network

__all__ = ["NET_FAULTS", "NetRig"]


@dataclass
class NetRig:
    """What the network faults act on. ``held`` says how many tables each replica holds now;
    ``isolated`` records (replica index, start, heal) of each replica isolation (the run's
    clock), for the check that an isolated replica commits nothing."""

    net: Network
    cluster: HostCluster
    replicas: list[Host]
    rng: random.Random
    clock: Callable[[], float]
    held: Callable[[], list[int]] = lambda: []
    isolated: list[tuple[int, float, float]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what each fault did, for the report

    def say(self, message: str) -> None:
        self.notes.append(f"{self.clock():.1f}s {message}")
        print(f"[nemesis]   {message}", file=sys.stderr, flush=True)

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
        held = rig.held()
        index = max(range(len(rig.replicas)), key=lambda i: held[i] if i < len(held) else 0)
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


#: What ``holdem nemesis --network --faults`` may name (``all``: every one).
NET_FAULTS: dict[str, Callable[[NetRig], Fault]] = {
    "isolate-leader": _isolate_leader,
    "isolate-replica": _isolate_replica,
    "split": _split,
    "flap": _flap,
    "delay-loss": _delay_loss,
}
