"""The lobby's feeds of public commits (services/lobby/public_feed.py, feed_lease.py) on a real
nats-server, with two replicas sharing one durable consumer: every commit is handled, each
table's in order, and a commit that fails is tried again before the next; batches go to one
replica at a time, and when the holder stops mid-batch the other takes the feed over and
handles what was left, still in order."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Awaitable, Callable

import nats
import pytest
from nats.aio.msg import Msg

from libs.eventstore.projection import (
    PREVIOUS_HEADER,
    PUBLIC_STREAM,
    PUBLIC_SUBJECT_PREFIX,
    SEQUENCE_HEADER,
    JetStreamProjection,
)
from services.lobby.feed_lease import FeedLease
from services.lobby.public_feed import BATCH, consume_forever, in_flight, public_subscription

pytestmark = pytest.mark.integration

TABLES = 5
COMMITS = 60  # per table: five tables make several batches
ACK_WAIT = 2.0


def test_two_replicas_handle_every_commit_in_order_through_a_failure_and_a_takeover(
    nats_url: str,
) -> None:
    asyncio.run(_two_replicas(nats_url))


async def _two_replicas(nats_url: str) -> None:
    run = uuid.uuid4().hex[:8]
    durable = f"test-feed-{run}"
    tables = [f"{run}t{i}" for i in range(TABLES)]
    publisher = await nats.connect(nats_url)
    replicas = [await nats.connect(nats_url) for _ in range(2)]
    await JetStreamProjection(publisher).ensure_stream()
    js = publisher.jetstream()
    handled: list[tuple[int, str, int]] = []  # (replica, table, sequence), as handled
    failed: set[tuple[str, int]] = set()
    busy: list[int] = []  # replicas inside a handler now
    overlaps: list[list[int]] = []  # two replicas handling at once (never)

    def handler(replica: int) -> Callable[[Msg], Awaitable[None]]:
        async def handle(msg: Msg) -> None:
            table = msg.subject.rpartition(".")[2]
            if not table.startswith(run):  # another test's commit
                await msg.ack()
                return
            sequence = int((msg.headers or {})[SEQUENCE_HEADER])
            if (table, sequence) in {(tables[0], 10), (tables[3], 25)} - failed:
                failed.add((table, sequence))
                raise RuntimeError("fails once")
            busy.append(replica)
            if len(busy) > 1:
                overlaps.append(list(busy))
            try:
                await asyncio.sleep(0.001)
            finally:
                busy.remove(replica)
            handled.append((replica, table, sequence))
            await msg.ack()

        return handle

    def feed(replica: int) -> asyncio.Task[None]:
        nc = replicas[replica]
        lease = FeedLease(
            nc, durable, lambda: in_flight(nc.jetstream(), durable), ACK_WAIT, ttl=3.0
        )
        return asyncio.create_task(
            consume_forever(
                lambda: public_subscription(nc.jetstream(), durable, ACK_WAIT),
                handler(replica),
                "test",
                lease,
            )
        )

    try:
        for sequence in range(1, COMMITS + 1):
            for table in tables:
                await js.publish(
                    f"{PUBLIC_SUBJECT_PREFIX}.{table}",
                    b"",
                    headers={SEQUENCE_HEADER: str(sequence), PREVIOUS_HEADER: str(sequence - 1)},
                )
        tasks = [feed(0), feed(1)]
        while len(handled) < TABLES * COMMITS // 3:
            await asyncio.sleep(0.01)
        holder = handled[-1][0]
        tasks[holder].cancel()  # stops mid-batch: the rest is left unacknowledged
        await asyncio.gather(tasks[holder], return_exceptions=True)
        stopped_at = len(handled)
        assert stopped_at < TABLES * COMMITS
        async with asyncio.timeout(60):
            while len(handled) < TABLES * COMMITS:
                await asyncio.sleep(0.05)
        tasks[1 - holder].cancel()
        await asyncio.gather(tasks[1 - holder], return_exceptions=True)
        assert not overlaps
        for table in tables:
            assert [s for _, t, s in handled if t == table] == list(range(1, COMMITS + 1))
        assert {r for r, _, _ in handled[stopped_at:]} == {1 - holder}
        assert failed == {(tables[0], 10), (tables[3], 25)}
        assert TABLES * COMMITS > 2 * BATCH  # batches were pulled more than once
    finally:
        with contextlib.suppress(Exception):
            await js.delete_consumer(PUBLIC_STREAM, durable)
        for nc in [publisher, *replicas]:
            await nc.close()
