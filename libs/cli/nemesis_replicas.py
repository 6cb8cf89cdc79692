"""The table replicas of ``holdem nemesis --network``, each with an event loop of its own.

A replica is the table service's write path with its shard leases: a ``TableApp`` on its own
NATS connection, which reaches the cluster only through a forwarder run in the replica's host
(libs/nemesis/forward.py), so cutting that host cuts the replica off. Every append it gets
acknowledged is recorded in the run's history, marked with its name.

Each replica runs on a thread of its own with its own asyncio loop, and the client calls it
across (``call``), so that one replica can be paused alone: ``freeze`` parks the replica's
loop inside a callback until ``thaw``, which is what SIGSTOP does to a table service process.
Nothing of the replica runs meanwhile (its lease renewals, its clock, its bots, its
connection's reads and writes, its decisions half made); the kernel keeps its sockets open and
the bytes sent to it queued, and on waking it goes on from where it stood, its leases as it
last knew them, while wall and monotonic clocks have moved on. Why a thread and not a process
of its own: the history is recorded the moment an acknowledgement comes back, in the replica,
and the client drives the replica's ``TableApp`` directly; both stay as they are this way,
and the pause is of the whole replica, not of one connection or one task.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from libs.ai import Level
from libs.cli.nemesis_check import AckRecorder, History
from libs.eventstore import InMemorySnapshotStore
from libs.eventstore.jetstream import TABLE_STREAM, JetStreamEventStore
from libs.eventstore.lease import Leases
from libs.nemesis.network import Host
from libs.platform.natsconn import close_nats, connect_nats
from services.table.app import TableApp
from services.table.bots import Bots, LocalDecider
from services.table.dealing import LocalDealer

__all__ = ["FORWARD_PORT", "LEASE_TTL", "Replica"]

T = TypeVar("T")

LEASE_TTL = 1.0
FORWARD_PORT = 4300
#: how long a replica's start may wait for the cluster (a loaded machine elects slowly)
START_DEADLINE = 60.0


class Replica:
    """One table replica (see the module docstring), started with ``start`` from the client's
    loop and stopped with ``stop``."""

    def __init__(self, index: int, host: Host, history: History, clock: Any) -> None:
        self.index, self.host, self.history, self.clock = index, host, history, clock
        self.name = f"replica{index}"
        self.app: TableApp | None = None
        self.leases: Leases | None = None
        self.nc: Any = None
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name=self.name, daemon=True)
        self._frozen = threading.Event()
        self._thaw = threading.Event()

    def call(self, work: Callable[[TableApp], Coroutine[Any, Any, T]]) -> asyncio.Future[T]:
        """``work(app)`` run on this replica's loop: a future of the caller's loop (cancelling
        it cancels the work, once the replica's loop runs)."""
        app = self.app
        if app is None:
            raise RuntimeError(f"{self.name} is not started")
        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work(app), self.loop))

    async def start(self) -> None:
        self._thread.start()
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(self._start(), self.loop))

    async def _start(self) -> None:
        url = ",".join(f"nats://{self.host.address}:{FORWARD_PORT + i}" for i in range(3))
        self.nc = await connect_nats(url, reconnect_time_wait=0.1, name=self.name)
        store = JetStreamEventStore(self.nc, stream=TABLE_STREAM)
        leases = Leases(self.nc, self.name, ttl=LEASE_TTL, replicas=3)
        deadline = time.monotonic() + START_DEADLINE
        while True:  # the new R3 buckets answer once their replicas elected a leader
            try:
                await leases.start()
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.5)
        self.leases = leases
        recorder = AckRecorder(store, self.history, self.clock, by=self.name)
        bots = Bots(LocalDecider(Level.CALL), 5.0)
        app = TableApp(recorder, InMemorySnapshotStore(), LocalDealer(), leases=leases, bots=bots)
        await app.start_background()
        self.app = app

    def freeze(self, timeout: float = 10.0) -> None:
        """Stop the replica where it stands (blocking: call it off the client's loop); returns
        once its loop is parked."""
        self._thaw.clear()
        self._frozen.clear()
        self.loop.call_soon_threadsafe(self._park)
        if not self._frozen.wait(timeout):
            raise RuntimeError(f"{self.name}'s loop did not stop within {timeout} s")

    def _park(self) -> None:
        self._frozen.set()
        self._thaw.wait()

    def thaw(self) -> None:
        """Wake the replica up: it goes on from where it was parked."""
        self._thaw.set()

    async def stop(self) -> None:
        self.thaw()
        if self._thread.is_alive():
            with contextlib.suppress(Exception):
                stopping = asyncio.run_coroutine_threadsafe(self._stop(), self.loop)
                await asyncio.wait_for(asyncio.wrap_future(stopping), 20.0)
            self.loop.call_soon_threadsafe(self.loop.stop)
            await asyncio.to_thread(self._thread.join, 10.0)
        if not self._thread.is_alive():
            self.loop.close()

    async def _stop(self) -> None:
        """As the table service stops: its loops, its leases (given up within a bound: the
        cluster may be gone), its connection; each step bounded."""
        if self.app is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.app.stop(), 10.0)
        if self.leases is not None:
            await self.leases.close()
        if self.nc is not None:
            await close_nats(self.nc, drain_seconds=2.0)
