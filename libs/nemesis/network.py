"""Hosts on one machine: a network namespace each, wired to a private switch, and the faults a
network can have (partitions, flapping links, loss, delay).

``Network(prefix)`` makes a switch: a bridge inside a namespace of its own, so nothing of the
machine's own network changes but one veth that lets this process (the test, the load client)
reach the hosts. ``add_host(name)`` makes a namespace with one interface on the switch and an
address in 10.<n>.0.0/24; a process runs in it with ``host.wrap(argv)`` (``ip netns exec``).

Faults are rules in the switch (nftables, bridge family): ``partition([a, b], [c])`` lets
packets pass only within each group (the load client sits with the group that has the gateway
unless told otherwise), ``isolate(host)`` cuts one host from all, ``loss(host, percent)`` drops
a random share of its packets, ``heal()`` removes every rule. Delay is added per host by
libs.nemesis.delay (this kernel has no netem qdisc: CONFIG_NET_SCH_NETEM is not set here).
Everything is removed by ``close()`` (and by ``Network.sweep(prefix)`` after a crash).
"""

from __future__ import annotations

import contextlib
import ipaddress
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from shutil import which
from types import TracebackType
from typing import Self

from libs.nemesis.packages import install_packages

TABLE = "nemesis"


class NetworkError(RuntimeError):
    """An ip/nft command failed; the message holds the command and what it said."""


#: the commands the network runs and the Debian package of each (iptables: the delay's NFQUEUE
#: rule, libs/nemesis/delay.py; this kernel has no nft ``queue``, only xtables' NFQUEUE target)
TOOLS = {"ip": "iproute2", "nft": "nftables", "iptables": "iptables"}


def require_tools() -> None:
    """Make sure ``ip``, ``nft`` and ``iptables`` are here (installed with apt-get when missing,
    as root); NetworkError says why when they cannot be had."""
    missing = [package for tool, package in TOOLS.items() if which(tool) is None]
    if missing:
        why = install_packages(missing)
        if why is not None:
            raise NetworkError(f"the nemesis network needs {', '.join(missing)}: {why}")


def run(argv: Sequence[str], check: bool = True) -> str:
    done = subprocess.run(list(argv), capture_output=True, text=True, check=False)
    if check and done.returncode != 0:
        raise NetworkError(f"{' '.join(argv)}: {(done.stderr or done.stdout).strip()}")
    return done.stdout


@dataclass(frozen=True)
class Host:
    """One namespace on the switch."""

    name: str  # short, as the nemesis names it ("nats1", "table2", ...)
    namespace: str
    address: str
    switch_port: str  # its veth end on the bridge

    def wrap(self, argv: Sequence[str]) -> list[str]:
        """``argv`` run inside this host (the same pid: ``ip netns exec`` execs it)."""
        return ["ip", "netns", "exec", self.namespace, *argv]


@dataclass
class Network:
    """A switch and its hosts; see the module docstring."""

    prefix: str  # namespaces and links are named after it (at most 6 characters)
    subnet_index: int = 77  # hosts get 10.<index>.0.<n>
    hosts: dict[str, Host] = field(default_factory=dict)
    _created: bool = False

    def __post_init__(self) -> None:
        if not self.prefix.isalnum() or len(self.prefix) > 6:
            raise ValueError("a network prefix is 1-6 letters or digits")
        self.switch = f"{self.prefix}-sw"
        self.client_address = self._address(254)

    def _address(self, n: int) -> str:
        return str(ipaddress.IPv4Address(f"10.{self.subnet_index}.0.0") + n)

    # -- building -------------------------------------------------------------------------

    def create(self) -> Self:
        require_tools()
        self.sweep(self.prefix)
        self._created = True
        run(["ip", "netns", "add", self.switch])
        self._in_switch(["ip", "link", "add", "br0", "type", "bridge"])
        self._in_switch(["ip", "link", "set", "br0", "up"])
        # this process's way in: a veth from the machine's namespace to the switch
        outside, inside = f"{self.prefix}-c", f"{self.prefix}-cp"
        run(["ip", "link", "add", outside, "type", "veth", "peer", "name", inside])
        run(["ip", "link", "set", inside, "netns", self.switch])
        self._in_switch(["ip", "link", "set", inside, "master", "br0", "up"])
        run(["ip", "addr", "add", f"{self.client_address}/24", "dev", outside])
        run(["ip", "link", "set", outside, "up"])
        self._in_switch(["nft", "add", "table", "bridge", TABLE])
        self._in_switch(
            ["nft", "add", "chain", "bridge", TABLE, "forward",
             "{ type filter hook forward priority 0; policy accept; }"]
        )  # fmt: skip
        return self

    def add_host(self, name: str) -> Host:
        if name in self.hosts:
            raise ValueError(f"host {name!r} exists")
        index = len(self.hosts) + 1
        namespace = f"{self.prefix}-{name}"
        port, inner = f"{self.prefix}-p{index}", f"{self.prefix}-h{index}"
        run(["ip", "netns", "add", namespace])
        run(["ip", "link", "add", port, "type", "veth", "peer", "name", inner])
        run(["ip", "link", "set", port, "netns", self.switch])
        run(["ip", "link", "set", inner, "netns", namespace])
        self._in_switch(["ip", "link", "set", port, "master", "br0", "up"])
        host = Host(name, namespace, self._address(index), port)
        inside = ["ip", "netns", "exec", namespace]
        run([*inside, "ip", "link", "set", "lo", "up"])
        run([*inside, "ip", "link", "set", inner, "name", "eth0"])
        run([*inside, "ip", "addr", "add", f"{host.address}/24", "dev", "eth0"])
        run([*inside, "ip", "link", "set", "eth0", "up"])
        self.hosts[name] = host
        return host

    def _in_switch(self, argv: Sequence[str]) -> str:
        return run(["ip", "netns", "exec", self.switch, *argv])

    # -- faults -----------------------------------------------------------------------------

    def _rule(self, rule: str) -> None:
        self._in_switch(["nft", "add", "rule", "bridge", TABLE, "forward", *rule.split()])

    def _addresses(self, names: Iterable[str]) -> list[str]:
        return [self.hosts[name].address for name in names]

    def partition(self, *groups: Sequence[str], client_with: str | None = None) -> None:
        """Only hosts in the same group reach each other. The load client (this process) is
        in ``client_with``'s group (default: the first group)."""
        members = [list(group) for group in groups]
        placed = {name for group in members for name in group}
        if placed != set(self.hosts) or sum(map(len, members)) != len(placed):
            raise ValueError("a partition puts every host in exactly one group")
        client_group = next(
            (i for i, g in enumerate(members) if client_with in g), 0 if client_with is None else -1
        )
        if client_group < 0:
            raise ValueError(f"no group holds {client_with!r}")
        addresses = [self._addresses(group) for group in members]
        addresses[client_group].append(self.client_address)
        for i, mine in enumerate(addresses):
            others = [a for j, group in enumerate(addresses) if j != i for a in group]
            if others:
                self._rule(
                    f"ip saddr {{ {', '.join(mine)} }} ip daddr {{ {', '.join(others)} }} drop"
                )

    def isolate(self, name: str) -> None:
        """``name`` reaches nobody and nobody reaches it."""
        address = self.hosts[name].address
        self._rule(f"ip saddr {address} drop")
        self._rule(f"ip daddr {address} drop")

    def loss(self, name: str, percent: int) -> None:
        """Drop ``percent`` % of the packets ``name`` sends and receives, at random."""
        if not 0 < percent <= 100:
            raise ValueError("loss is a percentage from 1 to 100")
        address = self.hosts[name].address
        chance = "" if percent == 100 else f"numgen random mod 100 < {percent}"
        for side in ("saddr", "daddr"):
            self._rule(f"ip {side} {address} {chance} drop")

    def heal(self) -> None:
        """Every cut, split and loss rule goes: all hosts reach each other again."""
        self._in_switch(["nft", "flush", "chain", "bridge", TABLE, "forward"])

    # -- teardown ---------------------------------------------------------------------------

    def close(self) -> None:
        if self._created:
            self.sweep(self.prefix)
            self._created = False

    @staticmethod
    def sweep(prefix: str) -> None:
        """Remove every namespace and link of a network named ``prefix`` (one left by a run
        that crashed, too)."""
        for line in run(["ip", "netns", "list"], check=False).splitlines():
            namespace = line.split()[0] if line.strip() else ""
            if namespace.startswith(f"{prefix}-"):
                run(["ip", "netns", "del", namespace], check=False)
        with contextlib.suppress(NetworkError):
            run(["ip", "link", "del", f"{prefix}-c"], check=False)

    def __enter__(self) -> Self:
        return self.create()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
