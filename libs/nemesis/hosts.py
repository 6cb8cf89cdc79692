"""The servers of a nemesis run placed on hosts of the nemesis network (libs/nemesis/network.py):
a nats-server run inside a host's namespace, bound to its address (``HostedNats``), and a
JetStream cluster with one node per host (``HostCluster``: ``NatsCluster``'s life cycle, its
nodes' routes on the hosts' addresses), which the network's faults then cut apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from libs.devstack import NatsCluster, NatsServer
from libs.devstack.cluster import CLUSTER_NAME
from libs.nemesis.network import Host

__all__ = ["ROUTE_PORT", "HostCluster", "HostedNats"]

#: every node's route port (each node has an address of its own)
ROUTE_PORT = 6222


class HostedNats(NatsServer):
    """A ``NatsServer`` run in ``host``'s namespace on its address."""

    def __init__(self, host: Host, **kwargs: Any) -> None:
        self.on = host  # ``host`` is NatsServer's: the address it binds
        super().__init__(host.address, **kwargs)

    def argv(self) -> list[str]:
        return self.on.wrap(super().argv())


class HostCluster(NatsCluster):
    """A JetStream cluster of one node per host of ``hosts`` (node ``n<i>`` on ``hosts[i]``)."""

    def __init__(
        self, hosts: Sequence[Host], parent_dir: Path | None = None, **kwargs: Any
    ) -> None:
        self.hosts = list(hosts)
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
                )
            )

    def host_of(self, server_name: str) -> Host:
        """The host of node ``server_name`` (``n0``, ``n1``, ...)."""
        return self.hosts[int(server_name.removeprefix("n"))]
