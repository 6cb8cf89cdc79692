"""services/gateway/revocations.py on a real nats-server: until the watch of the revocation
bucket is up, each token is read from the bucket itself (no bucket: nothing revoked; a bucket
that cannot be read: an error, which the gateway answers UNAVAILABLE), and the watch is tried
again until it is up, after which revocations arrive by it."""

from __future__ import annotations

import asyncio
import time
import uuid

import nats.errors
import pytest

from libs.auth import KeyRing, TokenClaims, issue
from libs.eventstore.revoked import Revocations, revoked_bucket
from libs.platform.natsconn import connect_nats
from libs.platform.unavailable import dependency_failure
from services.gateway.revocations import RevocationCheck
from tests.conditions import wait_until
from tests.gateway.stack import KEYS

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]


def _claims(player_id: str) -> TokenClaims:
    _, claims = issue(
        KeyRing.parse(KEYS),
        player_id=player_id,
        username=player_id,
        display_name=player_id,
        guest=True,
        now=time.time(),
        ttl_seconds=3600,
    )
    return claims


def test_until_the_watch_is_up_each_token_is_read_from_the_bucket(nats_url: str) -> None:
    async def run() -> None:
        nc = await connect_nats(nats_url)
        bucket = f"revoked_{uuid.uuid4().hex[:8]}"  # not there yet
        check = RevocationCheck(nc, bucket, pauses=(3600.0,))  # no second try in this test
        try:
            await check.start(timeout=2)
            assert not check.watching
            leaver, stayer = _claims("leaver"), _claims("stayer")
            assert not await check.revoked(leaver)  # no bucket: nothing was ever revoked
            # the lobby makes the bucket and a logout revokes a token: refused at once
            await Revocations(await revoked_bucket(nc, 3600, bucket)).revoke(leaver)
            assert await check.revoked(leaver)
            assert not await check.revoked(stayer)
            assert not check.watching  # all of it by reading the bucket
        finally:
            await check.stop()
            await nc.close()
        # a bucket that cannot be read: no answer is made up (the gateway says UNAVAILABLE)
        with pytest.raises(nats.errors.Error) as caught:
            await check.revoked(stayer)
        assert dependency_failure(caught.value)

    asyncio.run(run())


def test_the_watch_is_tried_again_until_it_is_up_and_then_keeps_revocations(
    nats_url: str,
) -> None:
    async def run() -> None:
        nc = await connect_nats(nats_url)
        bucket = f"revoked_{uuid.uuid4().hex[:8]}"
        check = RevocationCheck(nc, bucket, pauses=(0.05, 0.1))
        try:
            await check.start(timeout=2)
            assert not check.watching
            revocations = Revocations(await revoked_bucket(nc, 3600, bucket))
            early, late = _claims("early"), _claims("late")
            await revocations.revoke(early)

            async def watching() -> bool:
                return check.watching

            await wait_until(watching, "the watch to be up once the bucket exists", timeout=10)
            assert await check.revoked(early)  # known from the watch's first read
            assert not await check.revoked(late)
            await revocations.revoke(late)

            async def refused() -> bool:
                return await check.revoked(late)

            await wait_until(refused, "a revocation after the watch began", timeout=10)
        finally:
            await check.stop()
            await nc.close()

    asyncio.run(run())
