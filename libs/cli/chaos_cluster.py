"""What a ``holdem chaos`` run starts and crashes: the dealer, evaluator and table services as
restartable processes (``Services``; the table service's restarts hand over to a prewarmed
spare, and ``--replicas`` table services share the table by lease), the servers beside them
(``Cluster``), and the kill targets, a registry (``TARGETS``): a new fault is one entry, and
``--kill`` accepts it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from libs.devstack import (
    ManagedProcess,
    NatsCluster,
    NatsServer,
    RedisServer,
    ServiceProcess,
    restartable_port,
    service_env,
)
from libs.devstack.standby import PrewarmedService


class Services:
    """The dealer, evaluator and table services as processes on fixed loopback ports, each
    restartable; the table service's restarts hand over to a prewarmed spare process
    (``libs.devstack.standby``) unless ``prewarm`` is off. ``replicas`` table services share
    the tables by lease (``tables``; ``owner`` is the one that answered last)."""

    def __init__(
        self,
        nats_url: str,
        redis_url: str,
        workdir: Path,
        prewarm: bool = True,
        replicas: int = 1,
        nats_replicas: int = 1,
    ) -> None:
        self.nats_url, self.redis_url, self.workdir = nats_url, redis_url, workdir
        addresses = {name: f"127.0.0.1:{restartable_port()}" for name in ("dealer", "evaluator")}
        env = service_env(
            peers=addresses,
            nats_url=nats_url,
            redis_url=redis_url,
            log_level="info",
            extra={"HOLDEM_NATS_REPLICAS": str(nats_replicas)},
        )
        self.dealer = self._service("dealer", addresses["dealer"], env)
        self.evaluator = self._service("evaluator", addresses["evaluator"], env)
        self.tables: list[ServiceProcess] = []
        for index in range(replicas):
            table_env = {
                **env,
                "HOLDEM_TABLE_LEASE_TTL_SECONDS": "1",
                "HOLDEM_TABLE_SNAPSHOT_EVERY": "7",
                "HOLDEM_TABLE_DEALER": "service",
                "HOLDEM_TABLE_EVALUATOR": "service",
                # bots decide in-process (the same levels as the ai service), which chaos
                # does not run: without this every bot decision would fall back to the clock rule
                "HOLDEM_TABLE_AI": "local",
                # each replica restarted under its name: it takes its leases back at once
                "HOLDEM_TABLE_REPLICA_ID": "chaos-table" + (f"-{index}" if replicas > 1 else ""),
            }
            table_listen = f"127.0.0.1:{restartable_port()}"  # restarted on it
            log = workdir / ("table.log" if index == 0 else f"table-{index}.log")
            self.tables.append(
                PrewarmedService("table", log, listen=table_listen, env=table_env)
                if prewarm
                else ServiceProcess("table", log, listen=table_listen, env=table_env)
            )
        self.owner = 0
        try:
            self.dealer.start(60.0)
            self.evaluator.start(60.0)
            for table in self.tables:
                table.start(60.0)
        except BaseException:
            self.stop()
            raise

    @property
    def table(self) -> ServiceProcess:
        """The table service that answered last (with one replica: the table service)."""
        return self.tables[self.owner]

    def _service(self, name: str, listen: str, env: dict[str, str]) -> ServiceProcess:
        return ServiceProcess(name, self.workdir / f"{name}.log", listen=listen, env=env)

    @property
    def table_addr(self) -> str:
        return self.table.address

    def stop(self) -> None:
        for service in (*self.tables, self.evaluator, self.dealer):
            service.stop(10.0)


def restart_redis(server: RedisServer) -> None:
    """Crash redis-server (SIGKILL: it keeps nothing) and start it again on the same port."""
    server.kill()
    server.restart(timeout=20.0)


# ---------------------------------------------------------------------------- kill targets


@dataclass(frozen=True)
class Target:
    """Something chaos can crash: ``kill`` it (SIGKILL), then ``restart`` it (blocking: run off
    the event loop). ``restart`` may return before the process serves (the table service:
    the killer watches it come back while commits keep being counted)."""

    name: str
    kill: Callable[[], None]
    restart: Callable[[], None]


@dataclass
class Cluster:
    """What the targets act on: the servers and the services of one chaos run."""

    services: Services
    redis: RedisServer
    nats: NatsServer | NatsCluster


def _process(name: str, process: ManagedProcess, restart: Callable[[], object]) -> Target:
    def kill() -> None:
        process.kill()

    def again() -> None:
        restart()

    return Target(name, kill, again)


def _table(cluster: Cluster) -> Target:
    """The table service that answered last (with replicas: the one serving the table, so the
    other has to take it over)."""
    services = cluster.services
    victim: list[ServiceProcess] = []

    def kill() -> None:
        victim[:] = [services.table]
        victim[0].kill()

    def again() -> None:
        victim[0].spawn()

    return Target("table", kill, again)


def _nats_node(cluster: Cluster) -> Target:
    """One node of the NATS cluster, in turn (the first kill takes the first node), restarted
    on its ports with its store once it is back in the cluster."""
    nats = cluster.nats
    if not isinstance(nats, NatsCluster):
        raise ValueError("the nats-node target needs a NATS cluster (--nats-cluster 3)")
    turn = [0]

    def kill() -> None:
        nats.node(turn[0] % nats.size).kill()

    def again() -> None:
        nats.restart_node(turn[0] % nats.size, timeout=60.0)
        turn[0] += 1

    return Target("nats-node", kill, again)


def _service(name: str) -> Callable[[Cluster], Target]:
    def target(cluster: Cluster) -> Target:
        process: ServiceProcess = getattr(cluster.services, name)
        return _process(name, process, lambda: process.start(60.0))

    return target


def _redis(cluster: Cluster) -> Target:
    return _process("redis", cluster.redis, lambda: cluster.redis.restart(timeout=20.0))


#: What ``--kill`` may name, each built for a run. Add a target here (e.g. one NATS node of a
#: cluster) and ``--kill`` accepts it.
TARGETS: dict[str, Callable[[Cluster], Target]] = {
    "table": _table,
    "dealer": _service("dealer"),
    "evaluator": _service("evaluator"),
    "redis": _redis,
    "nats-node": _nats_node,
}


def parse_targets(text: str) -> tuple[str, ...]:
    """``"table,redis"`` -> ("table", "redis"); ValueError naming an unknown target."""
    names = tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    unknown = [n for n in names if n not in TARGETS]
    if unknown or not names:
        raise ValueError(
            f"unknown kill target(s) {', '.join(unknown) or '(none)'}: choose from "
            f"{', '.join(TARGETS)}"
        )
    return names
