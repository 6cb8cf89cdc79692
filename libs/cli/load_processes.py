"""The processes ``holdem load --pace`` runs and what it reads of them: a nats-server with its
monitoring port, a redis-server, R table services (with metrics), a lobby and one gateway per
table service; each process's CPU time and resident memory (Linux /proc), the table services'
metrics (tables held, ownership writes), the nats-server's message counts and Redis's
commands (``libs.cli.load_pace`` turns them into the report)."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from redis import Redis

from libs.cli.stack_metrics import scrape
from libs.devstack import ManagedProcess, ServiceProcess, service_env, start_redis
from libs.devstack.processes import free_port
from libs.devstack.servers import NatsServer

KEYS = "load:" + base64.b64encode(b"l" * 32).decode()
LOCAL = {
    "HOLDEM_TABLE_DEALER": "local",
    "HOLDEM_TABLE_EVALUATOR": "local",
    "HOLDEM_TABLE_AI": "local",
}
UNLIMITED = {
    "HOLDEM_GATEWAY_RATE_PER_SECOND": "100000",
    "HOLDEM_GATEWAY_RATE_BURST": "100000",
}


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (0 when it cannot be read)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_bytes(pid: int) -> int:
    """Resident memory of a process (0 when it cannot be read)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def _metric(address: str, name: str) -> float:
    samples = scrape(address) or []
    return sum(s.value for s in samples if s.name == name)


@dataclass
class Counters:
    """Totals read at one moment."""

    at: float
    cpu: dict[str, float]
    nats_msgs: int
    redis_ops: int
    ownership_writes: float


@dataclass
class LoadStack:
    nats: NatsServer
    redis_url: str
    tables: list[ServiceProcess]
    metrics: list[str]
    lobby: ServiceProcess
    gateways: list[ServiceProcess]
    keys: str = KEYS
    pids: dict[str, int] = field(default_factory=dict)

    @property
    def gateway_addresses(self) -> list[str]:
        return [g.address for g in self.gateways]

    def rss(self) -> dict[str, int]:
        return {name: rss_bytes(pid) for name, pid in self.pids.items()}

    def counters(self) -> Counters:
        import time

        monitor = self.nats.monitor_url
        nats_msgs = 0
        if monitor is not None:
            with urllib.request.urlopen(f"{monitor}/varz", timeout=5) as response:
                varz = json.loads(response.read())
            nats_msgs = int(varz["in_msgs"]) + int(varz["out_msgs"])
        with Redis.from_url(self.redis_url) as redis:
            redis_ops = int(redis.info("stats")["total_commands_processed"])
        writes = sum(_metric(m, "holdem_table_ownership_writes_total") for m in self.metrics)
        return Counters(
            at=time.monotonic(),
            cpu={name: cpu_seconds(pid) for name, pid in self.pids.items()},
            nats_msgs=nats_msgs,
            redis_ops=redis_ops,
            ownership_writes=writes,
        )

    def report(
        self, report: Any, before: Counters, after: Counters, baseline: dict[str, int]
    ) -> None:
        """Fill the process figures of ``report`` (a ``load_pace.PaceReport``)."""
        wall = after.at - before.at
        report.cpu = {n: round((after.cpu[n] - before.cpu[n]) / wall, 3) for n in after.cpu}
        rss = self.rss()
        report.rss_mb = {n: round(b / 2**20, 1) for n, b in rss.items()}
        for index, address in enumerate(self.metrics):
            name = f"table-{index}"
            held = int(_metric(address, "holdem_table_tables_held"))
            report.tables_held[name] = held
            if held:
                grown = rss[name] - baseline.get(name, 0)
                report.kb_per_table[name] = round(grown / held / 1024, 2)
        report.ownership_writes_per_s = round(
            (after.ownership_writes - before.ownership_writes) / wall, 2
        )
        table_hours = report.tables * wall / 3600
        report.nats_msgs_per_table_hour = round(
            (after.nats_msgs - before.nats_msgs) / table_hours, 1
        )
        report.redis_ops_per_table_hour = round(
            (after.redis_ops - before.redis_ops) / table_hours, 1
        )


@contextlib.contextmanager
def load_stack(workdir: Path, replicas: int) -> Iterator[LoadStack]:
    """Every process started, stopped on the way out."""
    nats = NatsServer(extra_args=("-m", "-1"))
    started: list[ManagedProcess] = []
    try:
        nats.start(60.0)
        started.append(nats)
        with start_redis() as redis_server:
            base = {"HOLDEM_TOKEN_KEYS": KEYS}
            env = service_env(
                nats_url=nats.url, redis_url=redis_server.url, log_level="info", extra=base
            )
            tables, metrics = [], []
            for i in range(replicas):
                metrics.append(f"127.0.0.1:{free_port()}")
                extra = {**LOCAL, "HOLDEM_METRICS_LISTEN": metrics[-1]}
                # a fixed port, so that the replica announces its address beside its shard
                # leases and the gateways send each table's calls to the replica holding it
                # (with port 0 nothing is announced: a gateway asked for the other replica's
                # table retried NOT_OWNER on its own replica until the call's deadline)
                tables.append(
                    ServiceProcess(
                        "table",
                        workdir / f"table-{i}.log",
                        env={**env, **extra},
                        listen=f"127.0.0.1:{free_port()}",
                    )
                )
            for table in tables:
                started.append(table.start(60.0))
            lobby_env = {**env, "HOLDEM_TABLE_ADDR": tables[0].address}
            lobby = ServiceProcess("lobby", workdir / "lobby.log", env=lobby_env)
            started.append(lobby.start(60.0))
            gateways = []
            for i, table in enumerate(tables):
                extra = {"HOLDEM_TABLE_ADDR": table.address, "HOLDEM_LOBBY_ADDR": lobby.address}
                gateway = ServiceProcess(
                    "gateway", workdir / f"gateway-{i}.log", env={**env, **extra, **UNLIMITED}
                )
                started.append(gateway.start(60.0))
                gateways.append(gateway)
            stack = LoadStack(nats, redis_server.url, tables, metrics, lobby, gateways)
            stack.pids = {
                "nats-server": nats.pid,
                "redis-server": redis_server.pid,
                **{f"table-{i}": t.pid for i, t in enumerate(tables)},
                "lobby": lobby.pid,
                **{f"gateway-{i}": g.pid for i, g in enumerate(gateways)},
                "client": os.getpid(),
            }
            try:
                yield stack
            finally:
                for process in reversed(started[1:]):
                    with contextlib.suppress(Exception):
                        process.stop(10.0)
    finally:
        with contextlib.suppress(Exception):
            nats.stop(10.0)
        nats.close()
