"""Money moves (saga steps, cash-out credits) run side by side ("shared"); the chip audit runs
alone ("exclusive"), so it sees no move half done: chips reserved in a wallet and already on the
table, or credited to a wallet and still counted in flight. With several lobby replicas the gate
spans them all (``ClusterGate``, in Redis): an audit on one replica waits for the moves in flight
on every replica and holds off new ones.

In Redis (``holdem:lobby:gate:*``): a sorted set of the moves in flight (member = move id, score
= when it expires, by Redis's own clock) and the audit's key (``SET NX``, the auditor's id).
Entering a move and taking the audit are single scripts, so no move starts after the audit saw
none in flight. A replica renews its entries every ``ttl / 3`` seconds: a replica that was
killed mid-move stops renewing, and its entries age out after ``ttl`` (an audit waits that long
at most for a dead replica's moves). Redis not answering: moves go on (money is never at stake
here: only an audit's view of it), and an audit fails (UNAVAILABLE) until Redis is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import socket
import uuid
from collections.abc import AsyncIterator
from typing import Any

import structlog
from redis.asyncio import Redis
from redis.exceptions import RedisError

log = structlog.get_logger("lobby.gate")

AUDIT_KEY = "holdem:lobby:gate:audit"
MOVES_KEY = "holdem:lobby:gate:moves"

_NOW_MS = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

# KEYS: audit, moves; ARGV: move id, ttl ms -> 1 entered, 0 an audit holds the gate
_ENTER = (
    _NOW_MS
    + """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
return 1
"""
)

# KEYS: moves; ARGV: ttl ms, move ids... -> renews the moves still there
_RENEW = (
    _NOW_MS
    + """
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[i]) end
return 1
"""
)

# KEYS: audit, moves; ARGV: auditor id, ttl ms -> -1 another audit holds the gate, else the
# number of moves still in flight (0: the audit may run)
_AUDIT = (
    _NOW_MS
    + """
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
return redis.call('ZCARD', KEYS[2])
"""
)

# KEYS: audit; ARGV: auditor id
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""


class Gate:
    """The gate within one process: shared moves, exclusive audits; waiting audits go first."""

    def __init__(self) -> None:
        self._condition = asyncio.Condition()
        self._shared = 0
        self._exclusive = False
        self._waiting = 0

    @contextlib.asynccontextmanager
    async def shared(self) -> AsyncIterator[None]:
        async with self._condition:
            await self._condition.wait_for(lambda: not self._exclusive and not self._waiting)
            self._shared += 1
        try:
            yield
        finally:
            async with self._condition:
                self._shared -= 1
                self._condition.notify_all()

    @contextlib.asynccontextmanager
    async def exclusive(self) -> AsyncIterator[None]:
        async with self._condition:
            self._waiting += 1
            try:
                await self._condition.wait_for(lambda: not self._exclusive and not self._shared)
            finally:
                self._waiting -= 1
            self._exclusive = True
        try:
            yield
        finally:
            async with self._condition:
                self._exclusive = False
                self._condition.notify_all()


class GateUnavailable(Exception):
    """The audit could not take the gate (Redis not answering, or moves never drained)."""


class ClusterGate(Gate):
    """The gate across every lobby replica (module docstring). The process's own gate is taken
    first (an audit: before Redis's), so a move waiting in Redis never holds up its own
    replica's audit."""

    def __init__(
        self,
        redis: Redis,
        *,
        ttl_seconds: float = 6.0,
        poll_seconds: float = 0.05,
        audit_wait_seconds: float = 30.0,
        owner: str = "",
    ) -> None:
        super().__init__()
        self.redis = redis
        self.ttl_ms = int(ttl_seconds * 1000)
        self.poll = poll_seconds
        self.audit_wait = audit_wait_seconds
        self.owner = owner or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._numbers = itertools.count(1)
        self._moves: set[str] = set()
        self._auditing = False
        self._enter: Any = redis.register_script(_ENTER)
        self._renew: Any = redis.register_script(_RENEW)
        self._audit: Any = redis.register_script(_AUDIT)
        self._release: Any = redis.register_script(_RELEASE)

    @contextlib.asynccontextmanager
    async def shared(self) -> AsyncIterator[None]:
        async with super().shared():
            move = f"{self.owner}:{next(self._numbers)}"
            entered = await self._enter_move(move)
            try:
                yield
            finally:
                if entered:
                    self._moves.discard(move)
                    with contextlib.suppress(RedisError, OSError):
                        await self.redis.zrem(MOVES_KEY, move)

    async def _enter_move(self, move: str) -> bool:
        """Wait while an audit holds the gate, then record the move (False: Redis did not
        answer, the move goes on unrecorded)."""
        while True:
            try:
                entered = await self._enter(keys=[AUDIT_KEY, MOVES_KEY], args=[move, self.ttl_ms])
            except (RedisError, OSError) as exc:
                log.warning("gate not recorded: redis failed", error=str(exc)[:200])
                return False
            if entered:
                self._moves.add(move)
                return True
            await asyncio.sleep(self.poll)

    @contextlib.asynccontextmanager
    async def exclusive(self) -> AsyncIterator[None]:
        async with super().exclusive():
            await self._take_audit()
            try:
                yield
            finally:
                self._auditing = False
                with contextlib.suppress(RedisError, OSError):
                    await self._release(keys=[AUDIT_KEY], args=[self.owner])

    async def _take_audit(self) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.audit_wait
        while True:
            try:
                in_flight = await self._audit(
                    keys=[AUDIT_KEY, MOVES_KEY], args=[self.owner, self.ttl_ms]
                )
            except (RedisError, OSError) as exc:
                raise GateUnavailable(f"the audit gate is not reachable: {exc}") from exc
            if in_flight == 0:
                self._auditing = True
                return
            if loop.time() > deadline:
                with contextlib.suppress(RedisError, OSError):
                    await self._release(keys=[AUDIT_KEY], args=[self.owner])
                raise GateUnavailable(f"{in_flight} money moves still in flight: retry")
            await asyncio.sleep(self.poll)

    async def renew(self) -> None:
        """Keep this replica's entries alive (its moves in flight, the audit it holds)."""
        if self._moves:
            await self._renew(keys=[MOVES_KEY], args=[self.ttl_ms, *sorted(self._moves)])
        if self._auditing:
            await self._audit(keys=[AUDIT_KEY, MOVES_KEY], args=[self.owner, self.ttl_ms])

    async def run(self) -> None:
        """Renew for ever, every third of the TTL."""
        while True:
            await asyncio.sleep(self.ttl_ms / 3000)
            try:
                await self.renew()
            except (RedisError, OSError) as exc:
                log.warning("gate entries not renewed", error=str(exc)[:200])
