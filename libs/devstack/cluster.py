"""A JetStream cluster of nats-server nodes on loopback ports: what production runs (three nodes,
streams replicated R3), small enough for a laptop and the tests.

Every node is a ``NatsServer`` in its own directory inside the cluster's, with a name (``n0``,
``n1``, ...), the cluster name, a cluster (route) port and routes to every node. Client ports are
chosen by each server (``-p -1``, read back from its ports file); route ports must be known
before any node starts (each node's routes name them all), so they are chosen together as free
ports and the whole start is retried with new ones if another process takes one meanwhile.
The cluster is ready once every node serves clients and the JetStream meta group has a leader
that sees every node (read from each node's monitoring endpoint, ``/jsz``).

``url`` lists every node (``nats://a,nats://b,nats://c``): clients given it connect to whichever
node is up (``libs.platform.natsconn.connect_nats`` splits it for nats-py). Killing a node
(``node(i).kill()``) and restarting it (``restart_node(i)``) brings it back on the same ports
with its JetStream store, as a real node comes back after a crash.

    >>> with NatsCluster(3) as cluster:  # doctest: +SKIP
    ...     print(cluster.url)
    nats://127.0.0.1:40123,nats://127.0.0.1:40127,nats://127.0.0.1:40131
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Self

from .natsconf import SYNC_ALWAYS
from .ports import restartable_ports
from .processes import LOOPBACK, START_TIMEOUT, StartError
from .servers import NatsServer

__all__ = ["NatsCluster", "start_nats_cluster"]

CLUSTER_NAME = "holdem"
#: how long a restarted node may take to be current again before it is rebuilt from its peers
RESTART_GRACE = 30.0
#: how long a rebuild waits for every stream on the other nodes to have a leader
LEADERS_WAIT = 10.0


class NatsCluster:
    """``size`` nats-server nodes forming one JetStream cluster on ``host``."""

    def __init__(
        self,
        size: int = 3,
        host: str = LOOPBACK,
        keep_temp: bool = False,
        parent_dir: Path | None = None,
        attempts: int = 5,
        extra_args: Sequence[str] = (),
        config: Path | None = None,
        sync_interval: str | None = SYNC_ALWAYS,
    ) -> None:
        if size < 1:
            raise ValueError("a cluster needs at least one node")
        self.size = size
        self.host = host
        self.keep_temp = keep_temp
        self.attempts = attempts
        self.extra_args = tuple(extra_args)  # every node's
        self.config = config  # every node's configuration file, e.g. with users
        self.sync_interval = sync_interval  # JetStream's on every node (natsconf)
        if parent_dir is not None:
            parent_dir.mkdir(parents=True, exist_ok=True)
        self.workdir = Path(tempfile.mkdtemp(prefix="holdem-nats-cluster-", dir=parent_dir))
        self.nodes: list[NatsServer] = []
        self._closed = False

    # -- life cycle --------------------------------------------------------------------------

    def _make_nodes(self) -> None:
        # every node is killed and restarted on its ports: below the ephemeral range, where no
        # client's connection can take them while it is down
        ports = restartable_ports(self.host, 2 * self.size)
        route_ports, client_ports = ports[: self.size], ports[self.size :]
        routes = ",".join(f"nats://{self.host}:{p}" for p in route_ports)
        self.nodes = []
        for index, (port, client_port) in enumerate(zip(route_ports, client_ports, strict=True)):
            name = f"n{index}"
            extra = [
                "--server_name", name,
                "--cluster_name", CLUSTER_NAME,
                "--cluster", f"nats://{self.host}:{port}",
                "--routes", routes,
                *self.extra_args,
            ]  # fmt: skip
            self.nodes.append(
                NatsServer(
                    self.host,
                    client_port,
                    keep_temp=True,  # the cluster's directory holds them all
                    parent_dir=self.workdir / name,
                    name=f"nats-{name}",
                    extra_args=extra,
                    config=self.config,
                    sync_interval=self.sync_interval,
                )
            )

    def start(self, timeout: float = START_TIMEOUT) -> Self:
        """Start every node and wait until the cluster serves JetStream; on failure stop what
        was started and raise ``StartError``."""
        for attempt in range(self.attempts):
            self._make_nodes()
            try:
                for node in self.nodes:
                    node.spawn()
                deadline = time.monotonic() + timeout
                for node in self.nodes:
                    node.wait_ready(deadline)
                self.wait_ready(deadline)
                return self
            except BaseException as exc:
                lost_race = any(
                    "address already in use" in n.log_tail().lower() for n in self.nodes
                )
                self._halt_all()
                for node in self.nodes:
                    shutil.rmtree(node.workdir, ignore_errors=True)
                if not isinstance(exc, StartError) or not lost_race or attempt == self.attempts - 1:
                    self.close()
                    raise
        raise AssertionError("unreachable")

    def wait_ready(self, deadline: float) -> None:
        """Wait until every running node says the JetStream meta group has a leader and knows
        every node (``StartError`` at ``deadline``)."""
        last = ""
        while True:
            pending = [n for n in self.nodes if n.running and not self._meta_ready(n)]
            if not pending:
                return
            last = ", ".join(n.name for n in pending)
            if time.monotonic() >= deadline:
                raise StartError(
                    f"NATS cluster not ready (no JetStream meta leader seen by {last}); last "
                    f"lines of {pending[0].log_path}:\n{pending[0].log_tail()}"
                )
            time.sleep(0.1)

    def _meta_ready(self, node: NatsServer) -> bool:
        jsz = node.monitor_json("jsz")
        if jsz is None:
            return False
        meta = jsz.get("meta_cluster") or {}
        return bool(meta.get("leader")) and int(meta.get("cluster_size") or 0) >= self.size

    def restart_node(self, index: int, timeout: float = START_TIMEOUT) -> NatsServer:
        """Start node ``index`` again (after ``kill``) on its ports with its store, and wait
        until it is back in the cluster."""
        node = self.nodes[index]
        node.restart(timeout)
        deadline = time.monotonic() + timeout
        self.wait_ready(deadline)
        # back means caught up: /healthz answers ok only once every stream and consumer replica
        # on the node is current. Killing another node before that leaves a stream with one
        # current replica, no quorum, and no leader until a third node returns.
        while (node.monitor_json("healthz") or {}).get("status") != "ok":
            if time.monotonic() >= deadline:
                raise StartError(
                    f"NATS node {node.name} did not catch up; last lines of {node.log_path}:\n"
                    f"{node.log_tail()}"
                )
            time.sleep(0.1)
        return node

    def rebuild_node(
        self, index: int, timeout: float = START_TIMEOUT, then: Callable[[], None] = lambda: None
    ) -> NatsServer:
        """The operator's way back for node ``index`` when its store cannot be trusted (it exits
        at its start, e.g. ``Can't start JetStream: raft: snapshot corrupt``, or stays not
        current): stop it, remove its JetStream store, start it empty under the same name and
        wait until it copied every stream and the meta state from its peers (``restart_node``:
        /healthz ok). Only while every stream on the other nodes has a leader (waited for a
        few seconds; ``StartError`` otherwise, the store left as it is: with no leader there
        is nothing to copy from, as after a power cut of every node under JetStream's default
        fsync policy). What this node alone held is gone (with ``sync_interval: always``
        nothing acknowledged, which a quorum holds on disk)."""
        node = self.nodes[index]
        deadline = time.monotonic() + min(timeout, LEADERS_WAIT)
        while not self._others_lead(index):
            if time.monotonic() >= deadline:
                raise StartError(
                    f"NATS node {node.name} not rebuilt: a stream on the other nodes has no "
                    "leader to copy it from, and wiping this node would only lose what it holds"
                )
            time.sleep(0.2)
        then()  # it will be rebuilt
        if node.running:
            node.halt()
        shutil.rmtree(node.store_dir, ignore_errors=True)
        node.store_dir.mkdir(parents=True, exist_ok=True)
        return self.restart_node(index, timeout)

    def recover_node(
        self,
        index: int,
        current_within: float = RESTART_GRACE,
        timeout: float = START_TIMEOUT,
        rebuilding: Callable[[str], None] = lambda why: None,
    ) -> None:
        """Start node ``index`` again on its store (after ``kill`` or a power cut); if it does
        not start, or is not current within ``current_within`` seconds, rebuild it from its
        peers (``rebuild_node``), telling ``rebuilding`` which and why (``"n2: exited at its
        start: ..."``) once the rebuild goes ahead."""
        try:
            self.restart_node(index, current_within)
            return
        except StartError:
            why = f"n{index}: {self._why_not_back(self.nodes[index])}"
        self.rebuild_node(index, timeout, lambda: rebuilding(why))

    def _others_lead(self, index: int) -> bool:
        """Whether every stream the other running nodes hold a replica of has a leader, as
        they say (``/jsz``): a rebuilt node copies each stream from its leader."""
        others = [node for i, node in enumerate(self.nodes) if i != index and node.running]
        details = [node.monitor_json("jsz?streams=true") for node in others]
        return bool(others) and all(
            jsz is not None
            and all(
                (stream.get("cluster") or {}).get("leader")
                for account in jsz.get("account_details") or []
                for stream in account.get("stream_detail") or []
            )
            for jsz in details
        )

    @staticmethod
    def _why_not_back(node: NatsServer) -> str:
        fatal = [line for line in node.log_tail().splitlines() if "[FTL]" in line]
        if fatal:
            return f"exited at its start: {fatal[-1].split('[FTL]')[-1].strip()}"
        return "not current in time"

    def node(self, index: int) -> NatsServer:
        return self.nodes[index]

    def _halt_all(self) -> None:
        for node in self.nodes:
            node.send_stop()
        for node in self.nodes:
            node.halt()

    def stop(self) -> None:
        """Stop every node, then remove the cluster's directory unless ``keep_temp``."""
        self._halt_all()
        self.close()

    def close(self) -> None:
        if not self._closed and not self.keep_temp:
            shutil.rmtree(self.workdir, ignore_errors=True)
        self._closed = True

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- queries -----------------------------------------------------------------------------

    @property
    def urls(self) -> list[str]:
        return [n.url for n in self.nodes]

    @property
    def url(self) -> str:
        """Every node's client URL, comma-separated (what HOLDEM_NATS_URL takes)."""
        return ",".join(self.urls)

    @property
    def running(self) -> bool:
        return bool(self.nodes) and all(n.running for n in self.nodes)

    def pids(self) -> list[int]:
        return [n.pid for n in self.nodes if n.started]


def start_nats_cluster(
    size: int = 3,
    host: str = LOOPBACK,
    keep_temp: bool = False,
    parent_dir: Path | None = None,
    timeout: float = START_TIMEOUT,
) -> NatsCluster:
    """A started ``NatsCluster`` (raises ``StartError`` or ``BinaryNotFoundError``)."""
    return NatsCluster(size, host, keep_temp, parent_dir).start(timeout)
