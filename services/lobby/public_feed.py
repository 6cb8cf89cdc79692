"""How the lobby's feeds read the tables' public projection (HOLDEM_PUBLIC: no hidden card is
ever in it): cash-outs (cashout.py) and statistics (stats_feed.py). Each feed is one durable
consumer that every lobby replica pulls from: JetStream hands each public commit to one of them
at a time, in order (``max_ack_pending`` 1), and again to whichever pulls next when it is not
acknowledged within the ack wait (a nak, or its replica died)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Awaitable, Callable

import structlog
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from libs.eventstore.projection import (
    PREVIOUS_HEADER,
    PUBLIC_STREAM,
    PUBLIC_SUBJECT_PREFIX,
    SEQUENCE_HEADER,
    Projected,
)
from libs.eventstore.pull import pull_messages

log = structlog.get_logger("lobby.public_feed")


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
        max_ack_pending=1,  # in order, and one in flight across every replica
        filter_subject=f"{PUBLIC_SUBJECT_PREFIX}.>",
    )
    with contextlib.suppress(Exception):  # made by an older lobby: bring its ack wait
        info = await js.consumer_info(PUBLIC_STREAM, durable)  # to this one's (best effort)
        if info.config.ack_wait != ack_wait:
            await js.add_consumer(PUBLIC_STREAM, dataclasses.replace(config))
    return await js.pull_subscribe(
        f"{PUBLIC_SUBJECT_PREFIX}.>", durable=durable, stream=PUBLIC_STREAM, config=config
    )


async def consume_forever(
    subscribe: Callable[[], Awaitable[JetStreamContext.PullSubscription]],
    handle: Callable[[Msg], Awaitable[None]],
    feed: str,
) -> None:
    """Hand every message to ``handle``, one at a time, for ever: on any error (NATS gone, the
    consumer deleted) subscribe again a second later."""
    while True:
        try:
            sub = await subscribe()
            async for msg in pull_messages(sub, batch=1, timeout=1.0):
                await handle(msg)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("public feed restarts", feed=feed, error=str(exc)[:200])
            await asyncio.sleep(1.0)
