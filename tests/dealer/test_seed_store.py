"""One contract for the seed store, run on the in-memory store and on a real Redis."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest
import redis.asyncio as aioredis

from services.dealer.store import (
    Claim,
    ClaimResult,
    DeckRecord,
    InMemorySeedStore,
    RedisSeedStore,
    SeedStore,
    SeedStoreUnavailable,
)
from tests.conditions import wait_until

T = TypeVar("T")
StoreFactory = Callable[[float], SeedStore]


def _record(deck_id: str = "d1", key: str = "k", seed: bytes = b"\x01" * 32) -> DeckRecord:
    return DeckRecord(deck_id, "table-1", "hand-1", key, seed, "holdem-deck-v1")


class SeedStoreContract:
    """Subclasses say how to make a store (with a TTL in seconds)."""

    def make(self, ttl_seconds: float = 3600.0) -> SeedStore:
        raise NotImplementedError

    def run(self, body: Callable[[SeedStore], Awaitable[T]], ttl_seconds: float = 3600.0) -> T:
        async def main() -> T:
            store = self.make(ttl_seconds)
            try:
                return await body(store)
            finally:
                await store.close()

        return asyncio.run(main())

    def test_a_created_deck_reads_back_unchanged(self) -> None:
        async def body(store: SeedStore) -> None:
            record = _record()
            assert await store.create(record) == record
            assert await store.get("d1") == record

        self.run(body)

    def test_an_unknown_deck_is_none(self) -> None:
        async def body(store: SeedStore) -> None:
            assert await store.get("nope") is None

        self.run(body)

    def test_the_first_record_wins_and_is_never_overwritten(self) -> None:
        async def body(store: SeedStore) -> None:
            first = _record(seed=b"\x01" * 32)
            second = _record(key="other", seed=b"\x02" * 32)
            assert await store.create(first) == first
            assert await store.create(second) == first
            assert await store.get("d1") == first

        self.run(body)

    def test_concurrent_creates_agree_on_one_record(self) -> None:
        async def body(store: SeedStore) -> None:
            records = [_record(seed=bytes([i]) * 32) for i in range(1, 9)]
            stored = await asyncio.gather(*(store.create(r) for r in records))
            assert len(set(stored)) == 1
            assert stored[0] in records
            assert await store.get("d1") == stored[0]

        self.run(body)

    def test_a_deck_expires_after_its_ttl(self) -> None:
        ttl = 0.2

        async def body(store: SeedStore) -> None:
            created = time.monotonic()
            await store.create(_record())
            # There until its TTL has passed (a machine slower than the TTL may already see it
            # gone, which is the rule too); then gone, and never before the TTL.
            kept = await store.get("d1")
            assert kept is not None or time.monotonic() - created >= ttl

            async def gone() -> bool:
                return await store.get("d1") is None

            gone_at = await wait_until(gone, "the deck to expire")
            assert await store.get("d1") is None
            assert gone_at - created >= ttl

        self.run(body, ttl_seconds=ttl)

    def test_a_position_goes_to_one_request_and_its_retries(self) -> None:
        async def body(store: SeedStore) -> None:
            await store.create(_record())
            dealt = ClaimResult(Claim.DEALT, record=_record())
            assert await store.claim("d1", [0, 6], "0,6") == dealt
            assert await store.claim("d1", [0, 6], "0,6") == dealt  # the same request: a retry
            assert await store.claim("d1", [1, 6], "1,6") == ClaimResult(Claim.TAKEN, 6)
            # the refused claim recorded nothing: position 1 is still free
            assert await store.claim("d1", [1], "1") == dealt

        self.run(body)

    def test_concurrent_claims_of_one_position_have_one_winner(self) -> None:
        async def body(store: SeedStore) -> None:
            await store.create(_record())
            results = await asyncio.gather(
                *(store.claim("d1", [i, 51], f"{i},51") for i in range(10))
            )
            assert sorted(r.outcome.value for r in results) == ["dealt"] + ["taken"] * 9

        self.run(body)

    def test_a_closed_deck_refuses_every_claim(self) -> None:
        async def body(store: SeedStore) -> None:
            await store.create(_record())
            assert await store.claim("d1", [0], "0") == ClaimResult(Claim.DEALT, record=_record())
            assert await store.close_deck("d1")
            assert await store.close_deck("d1")  # idempotent
            assert await store.claim("d1", [0], "0") == ClaimResult(Claim.CLOSED)
            assert await store.claim("d1", [7], "7") == ClaimResult(Claim.CLOSED)

        self.run(body)

    def test_an_unknown_deck_cannot_be_claimed_or_closed(self) -> None:
        async def body(store: SeedStore) -> None:
            assert await store.claim("nope", [0], "0") == ClaimResult(Claim.MISSING)
            assert not await store.close_deck("nope")

        self.run(body)


class TestInMemorySeedStore(SeedStoreContract):
    def make(self, ttl_seconds: float = 3600.0) -> SeedStore:
        return InMemorySeedStore(ttl_seconds)


@pytest.mark.integration
class TestRedisSeedStore(SeedStoreContract):
    @pytest.fixture(autouse=True)
    def _redis(self, redis_url: str) -> None:
        self.redis_url = redis_url
        self.prefix = f"test:{uuid.uuid4().hex}:"  # tests share one server

    def make(self, ttl_seconds: float = 3600.0) -> SeedStore:
        client = aioredis.Redis.from_url(self.redis_url)
        return RedisSeedStore(client, ttl_seconds, key_prefix=self.prefix)

    def test_the_record_is_one_json_key_with_a_ttl(self) -> None:
        async def body(store: SeedStore) -> None:
            assert isinstance(store, RedisSeedStore)
            await store.create(_record())
            ttl = await store.client.pttl(self.prefix + "deck:d1")
            assert 0 < ttl <= 3_600_000
            raw = await store.client.get(self.prefix + "deck:d1")
            assert isinstance(raw, bytes)
            assert b'"seed":"' + (b"01" * 32) + b'"' in raw

        self.run(body)

    def test_the_ledger_is_a_hash_expiring_with_the_record(self) -> None:
        async def body(store: SeedStore) -> None:
            assert isinstance(store, RedisSeedStore)
            await store.create(_record())
            await store.claim("d1", [3, 9], "3,9")
            await store.close_deck("d1")
            ledger = await store.client.hgetall(self.prefix + "dealt:d1")
            assert ledger == {b"3": b"3,9", b"9": b"3,9", b"closed": b"1"}
            ledger_ttl = await store.client.pttl(self.prefix + "dealt:d1")
            assert 0 < ledger_ttl <= await store.client.pttl(self.prefix + "deck:d1") + 1000

        self.run(body)

    def test_an_unreachable_redis_is_reported_as_unavailable(self) -> None:
        async def body() -> None:
            store = RedisSeedStore.from_url("redis://127.0.0.1:1/0")
            try:
                with pytest.raises(SeedStoreUnavailable):
                    await store.get("d1")
                with pytest.raises(SeedStoreUnavailable):
                    await store.create(_record())
            finally:
                await store.close()

        asyncio.run(body())
