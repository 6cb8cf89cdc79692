"""Shards of aggregates: a fixed number of them, each aggregate (a table) in exactly one by a
stable hash of its id, so that ownership is held per shard and costs the same whatever the
number of aggregates in it (one lease per shard, not one per table).

Every process of a service must use the same count: the shard of an id depends on it.
"""

from __future__ import annotations

import hashlib
import zlib

DEFAULT_SHARDS = 64
KEY_PREFIX = "shard-"
SHARDS_IN_USE = "holdem_table_shards"  # the registry of shards that hold tables


def shard_of(key: str, count: int) -> int:
    """The shard of ``key``, 0 .. count - 1: CRC-32 of its UTF-8 bytes (the same in every
    process and Python version, unlike ``hash``)."""
    return zlib.crc32(key.encode()) % count


def shard_key(shard: int) -> str:
    """The lease (and registry) key of a shard."""
    return f"{KEY_PREFIX}{shard}"


def rank(shard_key_: str, owner: str) -> bytes:
    """How much ``owner`` prefers ``shard_key_`` (rendezvous hashing): replicas choosing among
    free shards each take their own best-ranked first, so two of them adopting at once mostly
    pick different shards, and the same replica picks the same ones again."""
    return hashlib.blake2b(f"{owner}/{shard_key_}".encode(), digest_size=8).digest()
