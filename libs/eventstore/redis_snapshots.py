"""Snapshots in Redis: one hash per key holding the snapshot and the sequence it reflects.

``save`` is a compare-and-set in Lua, so an older snapshot can never overwrite a newer one even
when two processes race; a stored sequence that is not a number (a corrupted hash) is replaced,
and ``load`` says ``CorruptSnapshot`` for it (the repository then folds the stream).
"""

from __future__ import annotations

from typing import Any

from redis.asyncio import Redis

from .store import CorruptSnapshot, Snapshot

_SAVE_IF_NEWER = """
local current = tonumber(redis.call('HGET', KEYS[1], 'seq') or '')
if current and current >= tonumber(ARGV[1]) then
  return 0
end
redis.call('HSET', KEYS[1], 'seq', ARGV[1], 'data', ARGV[2])
return 1
"""


class RedisSnapshotStore:
    def __init__(self, redis: Redis, prefix: str = "holdem:snapshot:") -> None:
        self._redis = redis
        self.prefix = prefix
        self._save: Any = redis.register_script(_SAVE_IF_NEWER)

    async def save(self, key: str, sequence: int, data: bytes) -> bool:
        written = await self._save(keys=[self.prefix + key], args=[sequence, data])
        return bool(written)

    async def load(self, key: str) -> Snapshot | None:
        values = await self._redis.hmget(self.prefix + key, ["seq", "data"])
        seq, data = values[0], values[1]
        if seq is None or data is None:
            return None
        try:
            sequence = int(seq)
        except ValueError:
            raise CorruptSnapshot(f"snapshot {key!r}: sequence {seq[:40]!r} is no number") from None
        return Snapshot(key, sequence, data if isinstance(data, bytes) else data.encode())

    async def delete(self, key: str) -> None:
        await self._redis.delete(self.prefix + key)
