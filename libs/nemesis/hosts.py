"""The servers of a nemesis run placed on hosts of the nemesis network (libs/nemesis/network.py):
a nats-server run inside a host's namespace, bound to its address (``HostedNats``), and a
JetStream cluster with one node per host (``HostCluster``: ``NatsCluster``'s life cycle, its
nodes' routes on the hosts' addresses, each node's store where told: a lazy filesystem of its
own for the disk faults), which the network's faults then cut apart; ``restart_all`` brings
every node back at once, after a power cut of the whole cluster (rebuilding from its peers a
node that does not come back in time).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from libs.devstack import NatsCluster, NatsServer, RedisServer
from libs.devstack.cluster import CLUSTER_NAME
from libs.devstack.processes import START_TIMEOUT, StartError
from libs.nemesis.network import Host

__all__ = ["ROUTE_PORT", "HostCluster", "HostedNats", "HostedRedis"]

#: every node's route port (each node has an address of its own)
ROUTE_PORT = 6222
REDIS_PORT = 6379


class HostedNats(NatsServer):
    """A ``NatsServer`` run in ``host``'s namespace on its address."""

    def __init__(self, host: Host, **kwargs: Any) -> None:
        self.on = host  # ``host`` is NatsServer's: the address it binds
        super().__init__(host.address, **kwargs)

    def argv(self) -> list[str]:
        return self.on.wrap(super().argv())


class HostedRedis(RedisServer):
    """A ``RedisServer`` run in ``host``'s namespace on its address (Redis's own port: the
    namespace is its own)."""

    def __init__(self, host: Host, **kwargs: Any) -> None:
        self.on = host
        super().__init__(host.address, REDIS_PORT, **kwargs)

    def argv(self) -> list[str]:
        return self.on.wrap(super().argv())


class HostCluster(NatsCluster):
    """A JetStream cluster of one node per host of ``hosts`` (node ``n<i>`` on ``hosts[i]``),
    node ``n<i>``'s JetStream store in ``data_dirs[i]`` when given (else its temp directory)."""

    def __init__(
        self,
        hosts: Sequence[Host],
        parent_dir: Path | None = None,
        data_dirs: Sequence[Path] | None = None,
        **kwargs: Any,
    ) -> None:
        self.hosts = list(hosts)
        if data_dirs is not None and len(data_dirs) != len(self.hosts):
            raise ValueError("one data directory per host")
        self.data_dirs = None if data_dirs is None else list(data_dirs)
        super().__init__(len(hosts), hosts[0].address, parent_dir=parent_dir, **kwargs)

    def _make_nodes(self) -> None:
        routes = ",".join(f"nats://{h.address}:{ROUTE_PORT}" for h in self.hosts)
        self.nodes = []
        for index, host in enumerate(self.hosts):
            name = f"n{index}"
            extra = [
                "--server_name", name,
                "--cluster_name", CLUSTER_NAME,
                "--cluster", f"nats://{host.address}:{ROUTE_PORT}",
                "--routes", routes,
                # clients learn no other node's address: nats-py would reconnect to one
                # directly, and a replica cut off from the network (its host isolated) went
                # round the cut through the machine's own namespace and got commits
                # acknowledged while isolated
                "--no_advertise",
                *self.extra_args,
            ]  # fmt: skip
            self.nodes.append(
                HostedNats(
                    host,
                    keep_temp=True,
                    parent_dir=self.workdir / name,
                    name=f"nats-{name}",
                    extra_args=extra,
                    config=self.config,
                    sync_interval=self.sync_interval,
                    data_dir=None if self.data_dirs is None else self.data_dirs[index],
                )
            )

    def restart_all(
        self,
        timeout: float = START_TIMEOUT,
        current_within: float | None = None,
        rebuilding: Callable[[str], None] = lambda why: None,
    ) -> None:
        """Start every node that is down again, all at once (one alone has no quorum to wait
        for), and wait until the cluster serves and every node is caught up (/healthz ok).
        With ``current_within``, a node not caught up by then is rebuilt from its peers
        (``rebuild_node``: the operator's way back, one node at a time, while the others hold
        a quorum), each told to ``rebuilding`` with why (``"n1: not current in time"``) once its
        rebuild goes ahead."""
        for node in self.nodes:
            if not node.running:
                node.spawn()
        deadline = time.monotonic() + (timeout if current_within is None else current_within)
        lagging = self._wait_current(deadline)
        if lagging and (current_within is None or len(lagging) == len(self.nodes)):
            # none current: there is no peer to copy from, and wiping would lose everything
            node = self.nodes[lagging[0]]
            raise StartError(f"NATS node {node.name} did not catch up: {node.log_path}")
        for index in lagging:
            why = f"n{index}: {self._why_not_back(self.nodes[index])}"
            self.rebuild_node(index, timeout, functools.partial(rebuilding, why))

    def _wait_current(self, deadline: float) -> list[int]:
        """Wait until every node answers /healthz ok; the indexes of those that did not by
        ``deadline`` (exited, or not current)."""
        while True:
            lagging = [
                index
                for index, node in enumerate(self.nodes)
                if not node.running or (node.monitor_json("healthz") or {}).get("status") != "ok"
            ]
            if not lagging or time.monotonic() >= deadline:
                return lagging
            time.sleep(0.1)

    def host_of(self, server_name: str) -> Host:
        """The host of node ``server_name`` (``n0``, ``n1``, ...)."""
        return self.hosts[int(server_name.removeprefix("n"))]
