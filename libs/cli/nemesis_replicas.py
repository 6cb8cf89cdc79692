"""The table replicas of ``holdem nemesis --network``: each a table service process
(``python -m services.table``, as libs/devstack starts services) run in its own host's network
namespace, listening on that host's address and reaching the NATS nodes and Redis across the
veths at theirs, so isolating the host cuts the process off. The two share the tables by shard
lease (1 s), as ``holdem chaos --replicas 2`` runs them.

``freeze``/``thaw`` are SIGSTOP/SIGCONT of the process: nothing of the replica runs meanwhile
(its lease renewals, its clock, its bots, its connection's reads and writes, its decisions half
made); the kernel keeps its sockets open and the bytes sent to it queued, and on waking it goes
on from where it stood, its leases as it last knew them.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from pathlib import Path
from typing import Any

from holdem.table.v1 import table_pb2_grpc

from libs.devstack import ServiceProcess, service_env
from libs.devstack.identity import aio_channel_as
from libs.nemesis.network import Host

__all__ = ["LEASE_TTL", "TABLE_PORT", "Replica"]

LEASE_TTL = 1.0
#: every replica's gRPC port (each has an address of its own)
TABLE_PORT = 7100
#: how long a replica's start may take (a loaded machine elects the new buckets slowly)
START_DEADLINE = 90.0


class Replica:
    """One table replica (see the module docstring): ``start`` (blocking) runs the process and
    waits until it serves, ``connect`` opens the client's channel to it."""

    def __init__(self, index: int, host: Host, workdir: Path, nats_url: str, redis_url: str):
        self.index, self.host = index, host
        self.name = f"replica{index}"
        env = service_env(
            nats_url=nats_url,
            redis_url=redis_url,
            log_level="info",
            extra={
                "HOLDEM_METRICS_LISTEN": f"{host.address}:0",
                "HOLDEM_NATS_REPLICAS": "3",
                "HOLDEM_TABLE_LEASE_TTL_SECONDS": str(int(LEASE_TTL)),
                "HOLDEM_TABLE_DEALER": "local",
                "HOLDEM_TABLE_EVALUATOR": "local",
                "HOLDEM_TABLE_AI": "local",
                "HOLDEM_TABLE_REPLICA_ID": self.name,
            },
        )
        self.process = ServiceProcess(
            "table",
            workdir / f"table-{self.name}.log",
            listen=f"{host.address}:{TABLE_PORT}",
            env=env,
            argv=host.wrap([sys.executable, "-m", "services.table"]),
        )
        self.stub: Any = None
        self.lobby_stub: Any = None
        self._channels: list[Any] = []
        self.frozen = False

    def start(self) -> None:
        self.process.start(START_DEADLINE)

    def connect(self) -> None:
        # as the lobby (opening, seating, closing: its sagas' commands) and the gateway
        # (players' moves and views) call it
        self._channels = [aio_channel_as(self.process.address, s) for s in ("lobby", "gateway")]
        self.lobby_stub = table_pb2_grpc.TableServiceStub(self._channels[0])
        self.stub = table_pb2_grpc.TableServiceStub(self._channels[1])

    @property
    def pid(self) -> int:
        return self.process.pid

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "namespace": self.host.namespace,
            "address": self.process.address,
            "pid": self.pid,
        }

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
        """As an operator stops it: woken if paused, SIGTERM (it gives its leases up within a
        bound), killed if it does not end in time."""
        for channel in self._channels:
            with contextlib.suppress(Exception):
                await channel.close()
        if self.process.started:
            with contextlib.suppress(Exception):
                self.thaw()
            await asyncio.to_thread(self.process.stop)
