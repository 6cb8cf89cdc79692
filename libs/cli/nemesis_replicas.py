"""The services of ``holdem nemesis --network``, each a process (``python -m services.<name>``, as
libs/devstack starts services) run in its own host's network namespace on that host's address
(``HostedService``), reaching the NATS nodes and Redis across the veths at theirs: the lobby and
the gateway (``front``), and the table replicas (``Replica``).

Isolating a host cuts its process off. The two table replicas share the tables by shard lease
(1 s), as ``holdem chaos --replicas 2`` runs them, and announce their host's address beside
their leases (``HOLDEM_TABLE_ADVERTISE_ADDR``: the listen address), where the lobby and the
gateway send each table's calls.

``freeze``/``thaw`` are SIGSTOP/SIGCONT of the process: nothing of the replica runs meanwhile
(its lease renewals, its clock, its bots, its connection's reads and writes, its decisions half
made); the kernel keeps its sockets open and the bytes sent to it queued, and on waking it goes
on from where it stood, its leases as it last knew them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from holdem.table.v1 import table_pb2_grpc

from libs.devstack import ServiceProcess, service_env
from libs.devstack.identity import aio_channel_as
from libs.nemesis.network import Host

__all__ = ["LEASE_TTL", "TABLE_PORT", "HostedService", "Replica", "front"]

LEASE_TTL = 1.0
#: every replica's gRPC port (each has an address of its own)
TABLE_PORT = 7100
#: the lobby's and the gateway's deadline for their calls to the table service (seconds)
RPC_TIMEOUT = 2.0
#: the lobby's and the gateway's gRPC ports (each on a host of its own)
FRONT_PORTS = {"lobby": 7200, "gateway": 7300}
#: how long a replica's start may take (a loaded machine elects the new buckets slowly)
START_DEADLINE = 90.0


class HostedService:
    """One service process on ``host`` (see the module docstring): ``start`` (blocking) runs it
    and waits until it serves; ``stop`` ends it as an operator would."""

    def __init__(
        self, service: str, name: str, host: Host, port: int, workdir: Path, env: dict[str, str]
    ) -> None:
        self.host, self.name = host, name
        env = {**env, "HOLDEM_METRICS_LISTEN": f"{host.address}:0"}
        self.process = ServiceProcess(
            service,
            workdir / f"{name}.log",
            listen=f"{host.address}:{port}",
            env=env,
            argv=host.wrap([sys.executable, "-m", f"services.{service}"]),
        )

    def start(self) -> None:
        self.process.start(START_DEADLINE)

    @property
    def address(self) -> str:
        """Where it listens (its port is fixed: known before it starts)."""
        return self.process.listen

    @property
    def pid(self) -> int:
        return self.process.pid

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "namespace": self.host.namespace,
            "address": self.address,
            "pid": self.pid,
        }

    def warnings(self, count: int = 12) -> list[str]:
        """Its last ``count`` warnings and errors, one line each (the event and its fields,
        no traceback): what a failed run prints of it."""
        said = []
        with contextlib.suppress(OSError):
            for line in self.process.log_path.read_text(errors="replace").splitlines():
                with contextlib.suppress(ValueError):
                    entry = json.loads(line)
                    if isinstance(entry, dict) and entry.get("level") in ("warning", "error"):
                        said.append(entry)
        quiet = {"level", "service", "exception", "timestamp", "event"}
        return [
            f"{e.get('timestamp', '')[11:23]} {e.get('event')} "
            + " ".join(f"{k}={v!s:.80}" for k, v in e.items() if k not in quiet)
            for e in said[-count:]
        ]

    async def stop(self) -> None:
        """SIGTERM (it gives its leases up within a bound), killed if it does not end in time."""
        if self.process.started:
            await asyncio.to_thread(self.process.stop)


def front(
    lobby_host: Host,
    gateway_host: Host,
    workdir: Path,
    nats_url: str,
    redis_url: str,
    table_addr: str,
) -> tuple[HostedService, HostedService]:
    """The lobby and the gateway, each on its host: both told one table replica's address
    (``table_addr``, as a Kubernetes Service names one pod) and routing each table's calls to
    the replica that holds it (libs/platform/routing.py), within ``RPC_TIMEOUT``; the gateway
    told the lobby's. Limits
    meant for people on the internet are lifted: every guest of the run comes from one address
    (the client's) and plays as fast as the tables answer."""  # fmt: skip
    env = service_env(
        peers={"table": table_addr, "lobby": f"{lobby_host.address}:{FRONT_PORTS['lobby']}"},
        nats_url=nats_url,
        redis_url=redis_url,
        log_level="info",
        extra={
            "HOLDEM_NATS_REPLICAS": "3",
            "HOLDEM_LOBBY_GUESTS_PER_ADDRESS": "1000000",
            "HOLDEM_GATEWAY_RATE_PER_SECOND": "100000",
            "HOLDEM_GATEWAY_RATE_BURST": "100000",
            # in proportion to the replicas' 1 s leases (5 s by default): a call to a replica
            # cut off runs out in time for the next to find the one that adopted its tables
            "HOLDEM_RPC_TIMEOUT_SECONDS": str(RPC_TIMEOUT),
        },
    )
    lobby = HostedService("lobby", "lobby", lobby_host, FRONT_PORTS["lobby"], workdir, env)
    gateway = HostedService(
        "gateway", "gateway", gateway_host, FRONT_PORTS["gateway"], workdir, env
    )
    return lobby, gateway


class Replica(HostedService):
    """One table replica (see the module docstring); ``connect`` opens a channel to it as the
    gateway calls it (for the stale route after a pause)."""

    def __init__(self, index: int, host: Host, workdir: Path, nats_url: str, redis_url: str):
        self.index = index
        env = service_env(
            nats_url=nats_url,
            redis_url=redis_url,
            log_level="info",
            extra={
                "HOLDEM_NATS_REPLICAS": "3",
                "HOLDEM_TABLE_LEASE_TTL_SECONDS": str(int(LEASE_TTL)),
                "HOLDEM_TABLE_DEALER": "local",
                "HOLDEM_TABLE_EVALUATOR": "local",
                "HOLDEM_TABLE_AI": "local",
                "HOLDEM_TABLE_REPLICA_ID": f"replica{index}",
            },
        )
        super().__init__("table", f"replica{index}", host, TABLE_PORT, workdir, env)
        self.stub: Any = None
        self._channel: Any = None
        self.frozen = False

    def connect(self) -> None:
        self._channel = aio_channel_as(self.address, "gateway")
        self.stub = table_pb2_grpc.TableServiceStub(self._channel)

    def freeze(self) -> None:
        """SIGSTOP: the process stops where it stands."""
        os.kill(self.pid, signal.SIGSTOP)
        self.frozen = True

    def thaw(self) -> None:
        """SIGCONT: it goes on from where it was stopped."""
        if self.frozen:
            os.kill(self.pid, signal.SIGCONT)
            self.frozen = False

    async def stop(self) -> None:
        """As an operator stops it: woken if paused, then as any service."""
        if self._channel is not None:
            with contextlib.suppress(Exception):
                await self._channel.close()
        if self.process.started:
            with contextlib.suppress(Exception):
                self.thaw()
        await super().stop()
