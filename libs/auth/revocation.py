"""Logout: revoked token ids in the NATS KV bucket ``holdem_revoked`` (contract-13 §4).

The lobby :meth:`Revocations.revoke`s a token's ``jti`` (value: the token's expiry, seconds since
the epoch). The bucket's entries age out after ``max_age`` seconds, which is at least the longest
token lifetime, so an entry outlives the token it names (NATS 2.9, which the stack runs, has no
per-key TTL: the bucket's age limit stands in for "TTL = the token's remaining life").

The gateway checks tokens without a round trip: :class:`RevokedTokens` watches the bucket and
keeps the revoked ids in memory (it knows every entry once :meth:`RevokedTokens.start` returns),
forgetting each once its token has expired anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

from nats.aio.client import Client as NATS
from nats.js.api import KeyValueConfig, StorageType
from nats.js.errors import KeyNotFoundError
from nats.js.kv import KeyValue

from libs.eventstore.kv import open_bucket
from libs.platform.tasks import stop_tasks

from .tokens import TokenClaims

REVOKED_BUCKET = "holdem_revoked"


async def revoked_bucket(
    nc: NATS, max_token_seconds: float, bucket: str = REVOKED_BUCKET, replicas: int = 1
) -> KeyValue:
    """The bucket (created when missing; its age limit raised when shorter than
    ``max_token_seconds``, so no revocation ages out before its token)."""
    js = nc.jetstream()
    wanted = KeyValueConfig(
        bucket=bucket,
        ttl=float(max_token_seconds),
        history=1,
        storage=StorageType.FILE,
        replicas=replicas,
    )
    kv = await open_bucket(js, wanted)
    status = await kv.status()
    if status.ttl is not None and 0 < status.ttl < max_token_seconds:
        config = status.stream_info.config
        config.max_age = float(max_token_seconds)
        await js.update_stream(config)
    return kv


class Revocations:
    """Writing and asking the bucket (the lobby's side)."""

    def __init__(self, kv: KeyValue) -> None:
        self.kv = kv

    async def revoke(self, claims: TokenClaims) -> None:
        """Idempotent: revoking a revoked token again changes nothing that matters."""
        await self.kv.put(claims.jti, str(claims.expires_at).encode())

    async def is_revoked(self, jti: str) -> bool:
        try:
            entry = await self.kv.get(jti)
        except KeyNotFoundError:
            return False
        return entry.value is not None and entry.operation is None


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
