"""How the lobby's feeds read the tables' public projection (HOLDEM_PUBLIC: no hidden card is
ever in it): cash-outs (cashout.py) and statistics (stats_feed.py). Each feed is one durable
consumer that every lobby replica may read, one at a time: the holder of the feed's lease
(feed_lease.py) pulls batches of up to ``BATCH`` public commits and handles each in order,
acknowledging it once handled. Every commit is handled, in order (per table, and across them):
a commit that fails is tried again a second later, before the next; a batch is pulled only when
the last is done, and by one replica at a time, which takes the lease only once the last
holder's batch is acknowledged (or its ack wait is out: JetStream then delivers those commits
again, before any later one). A replica that dies or loses the lease leaves the rest of its
batch unacknowledged: the next holder gets it again."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Awaitable, Callable

import structlog
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.errors import NotFoundError

from libs.eventstore.projection import (
    PREVIOUS_HEADER,
    PUBLIC_STREAM,
    PUBLIC_SUBJECT_PREFIX,
    SEQUENCE_HEADER,
    Projected,
)
from libs.eventstore.pull import FETCH_TIMEOUTS
from libs.platform.tasks import honour_cancel
from services.lobby.feed_lease import FeedLease

log = structlog.get_logger("lobby.public_feed")

#: Public commits in flight (pulled at once, handled in order) per feed, across every replica.
BATCH = 64


def projected_message(msg: Msg) -> Projected:
    """A message of HOLDEM_PUBLIC, delivered to a consumer, as the projection's record."""
    headers = msg.headers or {}
    table_id = msg.subject.rpartition(".")[2]
    return Projected(
        table_id,
        int(headers.get(SEQUENCE_HEADER, 0)),
        int(headers.get(PREVIOUS_HEADER, 0)),
        msg.data or b"",
        int(msg.metadata.sequence.stream),
    )


async def public_subscription(
    js: JetStreamContext, durable: str, ack_wait: float
) -> JetStreamContext.PullSubscription:
    """The feed's durable consumer of every table's public commits, from the first kept."""
    config = ConsumerConfig(
        durable_name=durable,
        deliver_policy=DeliverPolicy.ALL,
        ack_policy=AckPolicy.EXPLICIT,
        ack_wait=ack_wait,
        max_ack_pending=BATCH,  # one batch in flight (its replica holds the feed's lease)
        filter_subject=f"{PUBLIC_SUBJECT_PREFIX}.>",
    )
    with contextlib.suppress(Exception):  # made by an older lobby: bring its ack wait and
        info = await js.consumer_info(PUBLIC_STREAM, durable)  # batch to this one's
        if (info.config.ack_wait, info.config.max_ack_pending) != (ack_wait, BATCH):
            await js.add_consumer(PUBLIC_STREAM, dataclasses.replace(config))
    return await js.pull_subscribe(
        f"{PUBLIC_SUBJECT_PREFIX}.>", durable=durable, stream=PUBLIC_STREAM, config=config
    )


async def in_flight(js: JetStreamContext, durable: str) -> int:
    """The feed's commits delivered and not acknowledged (0 before its consumer exists)."""
    try:
        info = await js.consumer_info(PUBLIC_STREAM, durable)
    except NotFoundError:
        return 0
    return int(info.num_ack_pending or 0)


async def consume_forever(
    subscribe: Callable[[], Awaitable[JetStreamContext.PullSubscription]],
    handle: Callable[[Msg], Awaitable[None]],
    feed: str,
    lease: FeedLease,
) -> None:
    """Hand every message to ``handle``, in order, for ever, while this replica holds the
    feed's lease: on any other error (NATS gone, the consumer deleted) take the lease and
    subscribe again a second later."""
    while True:
        honour_cancel()  # asked to stop, even if a step swallowed it
        keeping: asyncio.Task[None] | None = None
        try:
            await lease.take()
            keeping = asyncio.create_task(lease.keep())
            sub = await subscribe()
            try:
                await _read(sub, handle, feed, lease)
            finally:
                with contextlib.suppress(Exception):
                    await sub.unsubscribe()
        except asyncio.CancelledError:
            await _stop(keeping)  # before giving the lease up: nothing renews it after
            await lease.release()
            raise
        except Exception as exc:
            log.warning("public feed restarts", feed=feed, error=str(exc)[:200])
            await asyncio.sleep(1.0)
        finally:
            await _stop(keeping)


async def _stop(keeping: asyncio.Task[None] | None) -> None:
    """Stop the lease's renewals and wait until they have (a service's ``stopped`` is its last
    word: no renewal may log after it)."""
    if keeping is None or keeping.done():
        return
    keeping.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await keeping


async def _read(
    sub: JetStreamContext.PullSubscription,
    handle: Callable[[Msg], Awaitable[None]],
    feed: str,
    lease: FeedLease,
) -> None:
    """Batches, each commit handled in turn, until the lease is lost (the rest of the batch is
    then left to the next holder)."""
    while await lease.held():
        try:
            batch = await sub.fetch(BATCH, timeout=1.0)
        except FETCH_TIMEOUTS:
            continue
        for msg in batch:
            if not await _handled(msg, handle, feed, lease):
                return


async def _handled(
    msg: Msg, handle: Callable[[Msg], Awaitable[None]], feed: str, lease: FeedLease
) -> bool:
    """``handle(msg)``, again a second later until it succeeds (nothing after it is handled
    before it); False if the lease was lost first."""
    while await lease.held():
        try:
            await handle(msg)
            return True
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("public commit again in a second", feed=feed, error=str(exc)[:200])
            await asyncio.sleep(1.0)
    return False
