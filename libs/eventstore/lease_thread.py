"""Leases kept alive by a thread of their own, on its own event loop and NATS connection.

A replica's event loop also serves every call and drives every table; starved (thousands of
tables on a busy machine), it ran the renewal round seconds late, the leases lapsed and the
replica let its tables go. ``LeaseThread`` keeps the same leases (``libs.eventstore.lease``)
on another thread: its renewal round (every quarter of the TTL, and an announce) waits for no
call, no table and no backlog of the serving loop, only for its turn at the interpreter, a few
milliseconds. A lease lost all the same (NATS slow, the whole process starved) is taken again
at once when nobody else took it, and reported either way by ``renew_all`` for the serving
loop to act on (keep the shard's tables, checked against their streams, or forget them).

Every other call (acquire, release, holder, members) runs on the lease thread too, handed over
and awaited from the caller's loop, so the leases' state changes on that thread alone; ``held``
and ``fresh`` read it from any thread (single dict reads).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import structlog
from nats.aio.client import Client as NATS

from libs.eventstore.lease import LeaseLost, Leases
from libs.eventstore.members import Announcement

log = structlog.get_logger("eventstore.lease")

T = TypeVar("T")

#: Renewal rounds per TTL: a lease is renewed three times before it could lapse.
ROUNDS_PER_TTL = 4


class LeaseThread:
    """``Leases`` kept on a thread of their own (see the module's doc); ``connect`` makes the
    thread's NATS connection, on the thread's loop."""

    def __init__(
        self,
        connect: Callable[[], Awaitable[NATS]],
        owner: str,
        *,
        bucket: str = "holdem_table_leases",
        ttl: float = 5.0,
        replicas: int = 1,
        announcement: Announcement | None = None,
    ) -> None:
        self._connect = connect
        self.owner = owner
        self._options: dict[str, Any] = {
            "bucket": bucket,
            "ttl": ttl,
            "replicas": replicas,
            "announcement": announcement,
        }
        self._configured_ttl = ttl
        self._inner: Leases | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stopping: asyncio.Event | None = None
        self._lost: list[str] = []  # lost since the last ``renew_all``, in order
        self._lost_lock = threading.Lock()
        self.rounds = 0  # renewal rounds done

    # ------------------------------------------------------------------ what callers read

    @property
    def ttl(self) -> float:
        return self._inner.ttl if self._inner is not None else self._configured_ttl

    @property
    def writes(self) -> int:
        """KV writes made (renewals, announces, claims, releases)."""
        return self._inner.writes if self._inner is not None else 0

    def held(self) -> list[str]:
        return self._inner.held() if self._inner is not None else []

    def fresh(self, key: str) -> bool:
        return self._inner is not None and self._inner.fresh(key)

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Start the thread; returns once its connection and buckets are ready (raises what
        stopped them; ``start`` may then be called again)."""
        ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._thread = threading.Thread(
            target=self._run, args=(ready,), name=f"leases-{self.owner}", daemon=True
        )
        self._thread.start()
        await asyncio.wrap_future(ready)

    def _run(self, ready: concurrent.futures.Future[None]) -> None:
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(self._main(loop, ready))
        finally:
            loop.close()

    async def _main(
        self, loop: asyncio.AbstractEventLoop, ready: concurrent.futures.Future[None]
    ) -> None:
        try:
            nc = await self._connect()
        except BaseException as exc:
            ready.set_exception(exc)
            return
        try:
            leases = Leases(nc, self.owner, **self._options)
            await leases.start()
            await leases.announce()
        except BaseException as exc:
            with contextlib.suppress(Exception):
                await nc.close()
            ready.set_exception(exc)
            return
        self._inner, self._loop, self._stopping = leases, loop, asyncio.Event()
        ready.set_result(None)
        try:
            await self._keep(leases, self._stopping)
        finally:
            with contextlib.suppress(Exception):
                await leases.close()
            with contextlib.suppress(Exception):
                await nc.close()

    async def _keep(self, leases: Leases, stopping: asyncio.Event) -> None:
        """Renew every lease held and announce, every quarter of the TTL, until told to stop."""
        while not stopping.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), leases.ttl / ROUNDS_PER_TTL)
            if stopping.is_set():
                return
            try:
                await self._round(leases)
            except Exception:  # NATS away for a moment: the next round tries again
                log.exception("lease_round_error")

    async def _round(self, leases: Leases) -> None:
        lost = await leases.renew_all()
        for key in lost:
            # nobody took it while it was lapsed: ours again at once (the serving loop still
            # checks the shard's tables against their streams)
            retaken = await leases.acquire(key)
            log.warning("lease_lapsed", key=key, retaken=retaken)
        if lost:
            with self._lost_lock:
                self._lost.extend(lost)
        with contextlib.suppress(LeaseLost):  # the buckets were made again: next round
            await leases.announce()
        self.rounds += 1

    async def close(self, timeout: float = 2.0) -> None:
        """Give up every lease held and leave (within about ``timeout`` seconds), then stop
        the thread."""
        loop, stopping, thread = self._loop, self._stopping, self._thread
        if loop is None or stopping is None or thread is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop is closed already
            loop.call_soon_threadsafe(stopping.set)
        await asyncio.to_thread(thread.join, timeout + 1.0)
        self._loop = None

    # ------------------------------------------------------------------ calls, on the thread

    async def _call(self, work: Callable[[Leases], Coroutine[Any, Any, T]]) -> T:
        if self._inner is None or self._loop is None:
            raise RuntimeError("LeaseThread.start() was not called")
        future = asyncio.run_coroutine_threadsafe(work(self._inner), self._loop)
        return await asyncio.wrap_future(future)

    async def acquire(self, key: str) -> bool:
        return await self._call(lambda leases: leases.acquire(key))

    async def release(self, key: str) -> None:
        await self._call(lambda leases: leases.release(key))

    async def holder(self, key: str) -> str | None:
        return await self._call(lambda leases: leases.holder(key))

    async def members(self) -> list[str]:
        return await self._call(lambda leases: leases.members())

    async def announce(self) -> None:
        """Nothing to do: the thread announces every round."""

    async def renew_all(self) -> list[str]:
        """The keys whose lease lapsed since the last call (the thread renews; a key it took
        back at once is held again, ``acquire`` then just renews it)."""
        with self._lost_lock:
            lost, self._lost = self._lost, []
        return lost
