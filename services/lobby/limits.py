"""Login limits: failed logins counted in Redis (fixed windows, so every lobby replica sees the
same counts and a restart forgets nothing), and password hashing bounded per peer (at most
``hashes_per_peer`` argon2 computations of one peer at a time) and in total (threads), so login
cannot be used to burn the lobby's CPU.

Failures are counted three ways over the window (docs/hardening.md, "Passwords"):

- per username **and** client address (``per_username``, 5): the guesses one address may make
  at one account. Counted per address so that guessing from an address locks out only that
  address, never the account's owner elsewhere;
- per client address (``per_peer``, 20): one address guessing over many usernames;
- per username over every address (``per_username_total``, 100): guessing spread over many
  addresses. Past it an address that already failed for that username in the window waits; one
  that has not may still try (so the owner, with the right password, still gets in), and its
  failure stops it too: a distributed guesser gets one more guess per new address.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from typing import Any, TypeVar

from redis.asyncio import Redis

from libs.errors import ResourceExhausted
from libs.platform.limits import CallerLimiter

T = TypeVar("T")

TOO_MANY_LOGIN_FAILURES = "TOO_MANY_LOGIN_FAILURES"
TOO_MANY_HASHES = "TOO_MANY_HASHES"
TOO_MANY_GUESTS = "TOO_MANY_GUESTS"
TOO_MANY_ACCOUNTS = "TOO_MANY_ACCOUNTS"


class TooManyAttempts(ResourceExhausted):
    """Answered RESOURCE_EXHAUSTED, saying when to try again (the retry hint)."""

    def __init__(self, code: str, message: str, retry_after_seconds: float) -> None:
        super().__init__(code, message, retry_after_ms=int(retry_after_seconds * 1000))
        self.retry_after_seconds = retry_after_seconds


def _key(kind: str, who: str) -> str:
    return f"holdem:lobby:login-failures:{kind}:" + hashlib.sha256(who.encode()).hexdigest()[:32]


_INCREMENT = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n
"""


# KEYS: the counter; ARGV: limit, window -> the count taken, or -(seconds left) when at the limit
_TAKE = """
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[1]) then
  local ttl = redis.call('TTL', KEYS[1])
  if ttl < 0 then redis.call('EXPIRE', KEYS[1], ARGV[2]); ttl = tonumber(ARGV[2]) end
  return -math.max(ttl, 1)
end
n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return n
"""


class GuestLimiter:
    """Guest accounts created per client address: at most ``per_address`` per fixed window of
    ``window_seconds``, counted in Redis (shared by every replica). A guest is free for whoever
    asks (no password, a wallet with the grant, an account and a player stream that stay): this
    bounds what one address can make the lobby store and grant. So is a registered account
    (a password costs nothing to choose): ``kind`` "accounts" counts clients' registrations,
    apart from guests, with their own code."""

    def __init__(
        self, redis: Redis, *, per_address: int, window_seconds: int, kind: str = "guests"
    ) -> None:
        self.per_address = per_address
        self.window = window_seconds
        self.kind = kind
        self._take: Any = redis.register_script(_TAKE)

    async def take(self, address: str) -> None:
        """Count one account for ``address``, or refuse (TooManyAttempts) before any is made."""
        taken = int(
            await self._take(keys=[_key(self.kind, address)], args=[self.per_address, self.window])
        )
        if taken < 0 and self.kind == "guests":
            raise TooManyAttempts(
                TOO_MANY_GUESTS, f"too many guest accounts from here: retry in {-taken} s", -taken
            )
        if taken < 0:
            raise TooManyAttempts(
                TOO_MANY_ACCOUNTS, f"too many new accounts from here: retry in {-taken} s", -taken
            )


class LoginLimiter:
    def __init__(
        self,
        redis: Redis,
        *,
        per_username: int,
        per_peer: int,
        window_seconds: int,
        per_username_total: int = 100,
        hashes_per_peer: int = 2,
        hash_threads: int = 2,
    ) -> None:
        self.redis = redis
        self.per_username = per_username
        self.per_peer = per_peer
        self.per_username_total = per_username_total
        self.window = window_seconds
        self._increment: Any = redis.register_script(_INCREMENT)
        self._hashing = CallerLimiter(hashes_per_peer)
        self._threads = asyncio.Semaphore(hash_threads)

    @staticmethod
    def _keys(username: str, peer: str) -> tuple[str, str, str]:
        """(this address, this username from this address, this username from anywhere)."""
        user = username.strip().lower()
        return _key("peer", peer), _key("pair", f"{user}\n{peer}"), _key("user", user)

    async def check(self, username: str, peer: str) -> None:
        """Refuse before any work when this address failed too often (for this username, or
        for any), or when the username failed too often everywhere and this address has failed
        for it too (module docstring)."""
        keys = self._keys(username, peer)
        peer_count, pair_count, user_count = (int(n or 0) for n in await self.redis.mget(keys))
        if peer_count >= self.per_peer:
            blocked = keys[0]
        elif pair_count >= self.per_username:
            blocked = keys[1]
        elif user_count >= self.per_username_total and pair_count > 0:
            blocked = keys[2]
        else:
            return
        wait = float(max(await self.redis.ttl(blocked), 1))
        raise TooManyAttempts(
            TOO_MANY_LOGIN_FAILURES, f"too many failed logins: retry in {int(wait)} s", wait
        )

    async def failed(self, username: str, peer: str) -> None:
        for key in self._keys(username, peer):
            await self._increment(keys=[key], args=[self.window])

    async def succeeded(self, username: str, peer: str) -> None:
        """The address that got in may fail again for this username; the other counts stay (an
        attacker who logs in to an account of their own does not clear their guesses)."""
        await self.redis.delete(self._keys(username, peer)[1])

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
