"""libs.eventstore.revoked on a real NATS: a revoked jti is seen by the lobby's check and by the
gateway's watched copy (services/gateway/revocations.py: entries existing before it started,
and new ones as they come)."""

from __future__ import annotations

import asyncio
import uuid

import nats

from libs.auth import KeyRing, SigningKey, issue
from libs.eventstore.revoked import Revocations, revoked_bucket
from services.gateway.revocations import RevokedTokens
from tests.conditions import wait_until

RING = KeyRing.of(SigningKey("k", b"k" * 32))


def test_revoked_tokens_are_seen_by_both_sides(nats_url: str) -> None:
    async def main() -> None:
        nc = await nats.connect(nats_url)
        bucket = f"revoked_{uuid.uuid4().hex[:8]}"
        now = 1_800_000_000.0
        clock = [now]
        try:
            kv = await revoked_bucket(nc, 3600, bucket=bucket)
            revocations = Revocations(kv)
            _, first = issue(
                RING,
                player_id="p1",
                username="a",
                display_name="A",
                guest=False,
                now=now,
                ttl_seconds=600,
            )
            _, second = issue(
                RING,
                player_id="p2",
                username="b",
                display_name="B",
                guest=False,
                now=now,
                ttl_seconds=600,
            )
            await revocations.revoke(first)
            assert await revocations.is_revoked(first.jti)
            assert not await revocations.is_revoked(second.jti)
            watched = RevokedTokens(kv, clock=lambda: clock[0])
            await watched.start()
            assert watched.is_revoked(first) and not watched.is_revoked(second)
            await revocations.revoke(second)

            async def second_seen() -> bool:
                return watched.is_revoked(second)

            await wait_until(second_seen, "the watcher to see a new revocation")
            clock[0] = now + 601  # the token expired: the entry is forgotten
            assert not watched.is_revoked(first)
            await watched.stop()
            # a shorter bucket age than the token lifetime is raised
            again = await revoked_bucket(nc, 7200, bucket=bucket)
            assert (await again.status()).ttl == 7200
        finally:
            await nc.jetstream().delete_key_value(bucket)
            await nc.close()

    asyncio.run(asyncio.wait_for(main(), 60))
