"""A watched table whose latest public commit never reached the gateway's subscription still gets
it to every stream (services/gateway/watch.py, the quiet check).

A stream notices a missed live commit at the next one (its ``previous`` does not follow) and
fills the gap from the store. When the missed commit is the table's latest, the one that makes
it some player's turn, no next commit comes: that player never learns it is their turn and the
table waits out the action clock (an end-to-end run stalled so). Here the subscription is made
to miss a commit for real (it is unsubscribed on the server), over a real nats-server."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from nats.aio.client import Client as NATS

from libs.eventstore.projection import JetStreamProjection
from libs.platform.natsconn import connect_nats
from services.gateway import watch
from services.gateway.watch import TableFeeds

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]


async def _feeds(nc: NATS) -> tuple[JetStreamProjection, TableFeeds]:
    """A projection stream of this test's own, and the gateway's feeds on it."""
    projection = JetStreamProjection(nc, stream=f"QUIET{uuid.uuid4().hex[:8]}")
    projection.prefix = f"quiet{uuid.uuid4().hex[:8]}"
    await projection.ensure_stream()
    return projection, TableFeeds(nc, projection)


def test_a_missed_latest_commit_reaches_the_streams_once_the_table_is_quiet(
    nats_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watch, "QUIET_CHECK_SECONDS", 0.3)

    async def run() -> list[int]:
        nc = await connect_nats(nats_url)
        try:
            projection, feeds = await _feeds(nc)
            table = "t1"
            listener = await feeds.listen(table, 16)
            position = await projection.publish(table, 1, 0, b"one", expected_position=0)
            first = await asyncio.wait_for(listener.next(), 5)  # delivered live
            # the next commit is lost on the way: the subscription is gone from the server
            feed = feeds._feeds[table]
            assert feed.subscription is not None
            await feed.subscription.unsubscribe()
            await projection.publish(table, 2, 1, b"two", expected_position=position)
            second = await asyncio.wait_for(listener.next(), 5)  # from the quiet check
            await feeds.leave(table, listener)  # the last stream: the check stops
            await asyncio.sleep(0.05)
            assert feed.checker is not None and feed.checker.done()
            return [c.sequence for c in (first, second) if c is not None]
        finally:
            await nc.close()

    assert asyncio.run(run()) == [1, 2]


def test_a_quiet_table_with_nothing_missed_offers_nothing_new(
    nats_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watch, "QUIET_CHECK_SECONDS", 0.2)

    async def run() -> list[int]:
        nc = await connect_nats(nats_url)
        try:
            projection, feeds = await _feeds(nc)
            listener = await feeds.listen("t1", 16)
            await projection.publish("t1", 1, 0, b"one", expected_position=0)
            got = [await asyncio.wait_for(listener.next(), 5)]
            await asyncio.sleep(1.0)  # several quiet periods
            while not listener.idle():
                got.append(await listener.next())
            await feeds.leave("t1", listener)
            return [c.sequence for c in got if c is not None]
        finally:
            await nc.close()

    # the live commit once; a quiet check that finds it again offers nothing
    assert asyncio.run(run()) == [1]
