"""Login limits: failed logins counted per username and per peer in Redis (fixed windows, so
every lobby replica sees the same counts and a restart forgets nothing), and password hashing
bounded per peer (at most ``hashes_per_peer`` argon2 computations of one peer at a time) and in
total (threads), so login cannot be used to burn the lobby's CPU."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from typing import Any, TypeVar

from redis.asyncio import Redis

from libs.platform.limits import CallerLimiter

T = TypeVar("T")

TOO_MANY_LOGIN_FAILURES = "TOO_MANY_LOGIN_FAILURES"
TOO_MANY_HASHES = "TOO_MANY_HASHES"


class TooManyAttempts(Exception):
    """Answered RESOURCE_EXHAUSTED, saying when to try again."""

    def __init__(self, code: str, message: str, retry_after_seconds: float) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after_seconds = retry_after_seconds


def _key(kind: str, who: str) -> str:
    return f"holdem:lobby:login-failures:{kind}:" + hashlib.sha256(who.encode()).hexdigest()[:32]


_INCREMENT = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n
"""


class LoginLimiter:
    def __init__(
        self,
        redis: Redis,
        *,
        per_username: int,
        per_peer: int,
        window_seconds: int,
        hashes_per_peer: int = 2,
        hash_threads: int = 2,
    ) -> None:
        self.redis = redis
        self.per_username = per_username
        self.per_peer = per_peer
        self.window = window_seconds
        self._increment: Any = redis.register_script(_INCREMENT)
        self._hashing = CallerLimiter(hashes_per_peer)
        self._threads = asyncio.Semaphore(hash_threads)

    async def _blocked(self, kind: str, who: str, limit: int) -> float | None:
        key = _key(kind, who)
        count = await self.redis.get(key)
        if count is None or int(count) < limit:
            return None
        ttl = await self.redis.ttl(key)
        return float(max(ttl, 1))

    async def check(self, username: str, peer: str) -> None:
        """Refuse before any work when either the username or the peer failed too often."""
        for kind, who, limit in (
            ("user", username.strip().lower(), self.per_username),
            ("peer", peer, self.per_peer),
        ):
            wait = await self._blocked(kind, who, limit)
            if wait is not None:
                raise TooManyAttempts(
                    TOO_MANY_LOGIN_FAILURES,
                    f"too many failed logins: retry in {int(wait)} s",
                    wait,
                )

    async def failed(self, username: str, peer: str) -> None:
        await self._increment(keys=[_key("user", username.strip().lower())], args=[self.window])
        await self._increment(keys=[_key("peer", peer)], args=[self.window])

    async def succeeded(self, username: str) -> None:
        await self.redis.delete(_key("user", username.strip().lower()))

    async def hash_work(self, peer: str, work: Callable[[], T]) -> T:
        """Run CPU-bound password work in a thread, at most ``hashes_per_peer`` per peer."""
        if not self._hashing.try_acquire(peer):
            raise TooManyAttempts(
                TOO_MANY_HASHES,
                "too many logins of this caller in progress: retry in 1 s",
                1.0,
            )
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            async with self._threads:
                return await asyncio.to_thread(work)
        finally:
            self._hashing.release(peer, loop.time() - started)
