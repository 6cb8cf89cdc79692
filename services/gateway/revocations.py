"""Logged-out tokens at this gateway: the NATS KV bucket ``holdem_revoked``, which the lobby
writes (libs.eventstore.revoked).

Normally a watch of the bucket keeps every revoked token id in memory (``RevokedTokens``: it
knows every entry once its ``start`` returns, and forgets each once its token has expired
anyway), and a check is a dictionary lookup. The watch may not be up: the bucket does not exist
yet (the lobby makes it when it starts, so a gateway started first found none), NATS was away,
or the watch broke. Then the gateway keeps trying in the background (pauses of
``RETRY_PAUSES``) and, until the watch is up, checks each token against the bucket itself: one
KV read per call, the read the lobby's Authenticate makes. No bucket means nothing was ever
revoked; a bucket that cannot be read means the token cannot be checked, and the call answers
UNAVAILABLE (libs.platform.unavailable) instead of serving a token that may have been revoked.
Health is NATS's: a gateway checking tokens one by one still serves every call."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence

import structlog
from nats.aio.client import Client as NATS
from nats.js.errors import BucketNotFoundError
from nats.js.kv import KeyValue

from libs.auth import TokenClaims
from libs.eventstore.revoked import REVOKED_BUCKET, Revocations
from libs.platform.tasks import honour_cancel, stop_tasks

log = structlog.get_logger("gateway")

#: Pauses between tries to watch the bucket, growing to the last.
RETRY_PAUSES: tuple[float, ...] = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0)


class RevokedTokens:
    """An in-memory copy of the bucket, kept current by a watcher (the gateway's side)."""

    def __init__(self, kv: KeyValue, clock: Callable[[], float] = time.time) -> None:
        self.kv = kv
        self.clock = clock
        self._expiry: dict[str, float] = {}
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()

    async def start(self, timeout: float = 10.0) -> None:
        """Start watching; returns once every existing entry has been read."""
        watcher = await self.kv.watchall()
        self._task = asyncio.create_task(self._follow(watcher))
        await asyncio.wait_for(self._ready.wait(), timeout)

    async def _follow(self, watcher: KeyValue.KeyWatcher) -> None:
        try:
            async for entry in watcher:
                if entry is None:  # the end of what existed when the watch began
                    self._ready.set()
                    continue
                if entry.operation is not None or not entry.value:  # deleted or purged
                    self._expiry.pop(entry.key, None)
                    continue
                try:
                    expires = float(entry.value.decode())
                except ValueError:
                    expires = self.clock() + 86400 * 365  # unreadable: keep it revoked
                self._expiry[entry.key] = expires
        finally:
            with contextlib.suppress(Exception):
                await watcher.stop()  # type: ignore[no-untyped-call]

    async def ended(self) -> None:
        """Returns once the watch has stopped following the bucket (its watcher failed, or
        :meth:`stop`); at once when it never started."""
        task = self._task
        if task is None:
            return
        await asyncio.wait([task])
        if not task.cancelled():
            task.exception()  # retrieved: whoever waits here decides what to do about it

    def __contains__(self, jti: object) -> bool:
        if not isinstance(jti, str):
            return False
        expires = self._expiry.get(jti)
        if expires is None:
            return False
        if expires <= self.clock():
            del self._expiry[jti]  # its token has expired: verification refuses it anyway
            return False
        return True

    def is_revoked(self, claims: TokenClaims) -> bool:
        return claims.jti in self

    async def stop(self) -> None:
        task, self._task = self._task, None
        await stop_tasks([task])


class RevocationCheck:
    """Is a verified token revoked? From the watched bucket, else from a read of it."""

    def __init__(
        self,
        nc: NATS,
        bucket: str = REVOKED_BUCKET,
        pauses: Sequence[float] = RETRY_PAUSES,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._js = nc.jetstream()
        self.bucket = bucket
        self.pauses = tuple(pauses)
        self.clock = clock
        self._watched: RevokedTokens | None = None
        self._reader: Revocations | None = None
        self._task: asyncio.Task[None] | None = None
        self._tried = asyncio.Event()

    @property
    def watching(self) -> bool:
        return self._watched is not None

    async def start(self, timeout: float = 10.0) -> None:
        """Start watching in the background; returns after the first try (watching, or not)."""
        self._task = asyncio.create_task(self._keep_watching(timeout))
        await self._tried.wait()

    async def stop(self) -> None:
        task, self._task = self._task, None
        await stop_tasks([task])

    async def revoked(self, claims: TokenClaims) -> bool:
        """Whether ``claims``' token was revoked; a NATS error when that cannot be known."""
        watched = self._watched
        if watched is not None:
            return watched.is_revoked(claims)
        if self._reader is None:
            try:
                kv = await self._js.key_value(self.bucket)
            except BucketNotFoundError:
                return False  # no bucket: no token was ever revoked
            self._reader = Revocations(kv)
        return await self._reader.is_revoked(claims.jti)

    async def _keep_watching(self, timeout: float) -> None:
        failures = 0
        while True:
            honour_cancel()
            watched: RevokedTokens | None = None
            try:
                watched = RevokedTokens(await self._js.key_value(self.bucket), self.clock)
                await watched.start(timeout)
            except Exception as exc:  # no bucket yet, NATS away: tokens are read one by one
                honour_cancel()
                if watched is not None:
                    await watched.stop()
                pause = self.pauses[min(failures, len(self.pauses) - 1)]
                failures += 1
                log.warning("revocations_not_watched", error=str(exc)[:200], retry_in=pause)
                self._tried.set()
                await asyncio.sleep(pause)
                continue
            failures = 0
            self._watched = watched
            self._tried.set()
            log.info("revocations_watched", bucket=self.bucket)
            try:
                await watched.ended()
            finally:
                self._watched = None
                await watched.stop()
            log.warning("revocations_watch_ended")
