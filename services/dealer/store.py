"""Where the dealer keeps each hand's secret seed: in memory (tests) or in Redis (for real).

A deck is written once and never changed: ``create`` stores a record unless one already exists
under its ``deck_id`` and returns whichever record is stored (so two concurrent ``StartDeck`` calls
agree on one seed). Records expire after a TTL (a hand lasts minutes; 24 hours by default).

Redis layout: one string key per deck, ``holdem:dealer:deck:<deck_id>``, holding a JSON object
``{"v": 1, "table_id", "hand_id", "idempotency_key", "seed" (hex), "algorithm"}``, written with
``SET NX PX <ttl>``. Anyone who can read these keys can read seeds before they are revealed:
keep this Redis private to the dealer.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import redis.asyncio as aioredis
import redis.exceptions

KEY_PREFIX = "holdem:dealer:deck:"
DEFAULT_TTL_SECONDS = 24 * 3600.0


@dataclass(frozen=True, slots=True)
class DeckRecord:
    """One hand's deck: whose it is, the secret seed and the algorithm deriving the cards."""

    deck_id: str
    table_id: str
    hand_id: str
    idempotency_key: str
    seed: bytes
    algorithm: str


class SeedStoreUnavailable(Exception):
    """The store cannot be reached (answered UNAVAILABLE: the caller may retry)."""


class SeedStore(Protocol):
    async def create(self, record: DeckRecord) -> DeckRecord:
        """Store ``record`` unless its deck_id exists; return the record stored under it."""
        ...

    async def get(self, deck_id: str) -> DeckRecord | None: ...

    async def close(self) -> None: ...


class InMemorySeedStore:
    """A dict with expiry, for unit tests (forgets everything when the process ends)."""

    def __init__(
        self,
        ttl_seconds: float = DEFAULT_TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl_seconds = ttl_seconds
        self.clock = clock
        self._records: dict[str, tuple[DeckRecord, float]] = {}

    async def create(self, record: DeckRecord) -> DeckRecord:
        existing = await self.get(record.deck_id)
        if existing is not None:
            return existing
        self._records[record.deck_id] = (record, self.clock() + self.ttl_seconds)
        return record

    async def get(self, deck_id: str) -> DeckRecord | None:
        entry = self._records.get(deck_id)
        if entry is None:
            return None
        record, expires_at = entry
        if expires_at <= self.clock():
            del self._records[deck_id]
            return None
        return record

    async def close(self) -> None:
        return None


def _encode(record: DeckRecord) -> str:
    return json.dumps(
        {
            "v": 1,
            "table_id": record.table_id,
            "hand_id": record.hand_id,
            "idempotency_key": record.idempotency_key,
            "seed": record.seed.hex(),
            "algorithm": record.algorithm,
        },
        separators=(",", ":"),
    )


def _decode(deck_id: str, raw: str | bytes) -> DeckRecord:
    doc = json.loads(raw)
    return DeckRecord(
        deck_id=deck_id,
        table_id=doc["table_id"],
        hand_id=doc["hand_id"],
        idempotency_key=doc["idempotency_key"],
        seed=bytes.fromhex(doc["seed"]),
        algorithm=doc["algorithm"],
    )


class RedisSeedStore:
    """Seeds in Redis, so a restarted dealer (or another replica) deals the same decks."""

    def __init__(
        self,
        client: aioredis.Redis,
        ttl_seconds: float = DEFAULT_TTL_SECONDS,
        key_prefix: str = KEY_PREFIX,
    ) -> None:
        self.client = client
        self.ttl_ms = max(int(ttl_seconds * 1000), 1)
        self.key_prefix = key_prefix

    @classmethod
    def from_url(cls, url: str, ttl_seconds: float = DEFAULT_TTL_SECONDS) -> RedisSeedStore:
        # Short socket timeouts: a call should fail UNAVAILABLE well inside the caller's deadline.
        client = aioredis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
        return cls(client, ttl_seconds)

    def key(self, deck_id: str) -> str:
        return self.key_prefix + deck_id

    async def create(self, record: DeckRecord) -> DeckRecord:
        key = self.key(record.deck_id)
        try:
            # A lost SET NX and then a key expiring before the GET is possible only at the very
            # end of the TTL; retrying then stores this record.
            for _ in range(3):
                if await self.client.set(key, _encode(record), nx=True, px=self.ttl_ms):
                    return record
                raw = await self.client.get(key)
                if raw is not None:
                    return _decode(record.deck_id, raw)
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
            raise SeedStoreUnavailable(f"seed store unavailable: {exc}") from exc
        raise SeedStoreUnavailable(f"could not store deck {record.deck_id}")

    async def get(self, deck_id: str) -> DeckRecord | None:
        try:
            raw = await self.client.get(self.key(deck_id))
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
            raise SeedStoreUnavailable(f"seed store unavailable: {exc}") from exc
        return None if raw is None else _decode(deck_id, raw)

    async def close(self) -> None:
        await self.client.aclose()
