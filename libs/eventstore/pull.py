"""Reading a JetStream stream through a pull consumer: the read loop of ranges and followers
(the lobby's feeds of public commits fetch their batches in their own loop, under a lease,
services/lobby/public_feed.py, with this module's ``FETCH_TIMEOUTS``).

A pull consumer delivers nothing until asked, so a reader knows where it stands before the
first message moves: ``pull_read`` reads a range (from where the consumer's config starts it,
through a known stream position), ``fetch_until`` is the loop under it (fetch batches until a
message says it is the last wanted), ``pull_consumer`` the subscription around both,
unsubscribed whatever happens; ``pull_following`` takes a consumer's messages for as long as
it is read. nats-py's timeouts of a fetch are one error here, ``FETCH_TIMEOUTS``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable

from nats.aio.msg import Msg
from nats.errors import TimeoutError as NatsTimeout
from nats.js import JetStreamContext
from nats.js.api import ConsumerConfig
from nats.js.errors import FetchTimeoutError, ServiceUnavailableError

#: What a fetch that got nothing in time raises (nats-py's own, and asyncio's from within it).
FETCH_TIMEOUTS: tuple[type[BaseException], ...] = (TimeoutError, FetchTimeoutError, NatsTimeout)
READ_BATCH = 512
#: A pull nobody answered (503: a consumer just made whose leader is not elected yet, as in a
#: cluster whose nodes restart) is made again, up to this many times in all, the n-th pause
#: ``n * ASK_AGAIN_SECONDS`` (2.25 s in all before the tenth): ``fetch_until`` here and
#: ``JetStreamEventStore.read``'s raw pulls alike.
ASK_AGAIN_TIMES = 10
ASK_AGAIN_SECONDS = 0.05


@contextlib.asynccontextmanager
async def pull_consumer(
    js: JetStreamContext,
    subject: str,
    *,
    stream: str,
    config: ConsumerConfig,
) -> AsyncIterator[JetStreamContext.PullSubscription]:
    """A pull subscription on ``subject`` of ``stream`` (a new consumer of ``config``: the
    server drops it at its ``inactive_threshold``), unsubscribed at the end."""
    sub = await js.pull_subscribe(subject, stream=stream, config=config)
    try:
        yield sub
    finally:
        with contextlib.suppress(Exception):
            await sub.unsubscribe()


async def fetch_until(
    sub: JetStreamContext.PullSubscription,
    last: Callable[[Msg], bool],
    *,
    batch: int = READ_BATCH,
    timeout: float = 5.0,
    limit: int = 0,
    end_when_quiet: bool = False,
) -> list[Msg]:
    """Fetch batches of up to ``batch`` until a message is the ``last`` wanted (those after it
    in its batch come too), or ``limit`` messages came (0: no limit). A fetch that gets nothing
    within ``timeout`` seconds raises (``FETCH_TIMEOUTS``), or, ``end_when_quiet``, ends the
    read with what came."""
    found: list[Msg] = []
    unanswered = 0
    while not found or not last(found[-1]):
        if limit and len(found) >= limit:
            break
        try:
            found.extend(await sub.fetch(batch, timeout=timeout))
        except FETCH_TIMEOUTS:
            if not end_when_quiet:
                raise
            break
        except ServiceUnavailableError:
            unanswered += 1
            if unanswered >= ASK_AGAIN_TIMES:
                raise
            await asyncio.sleep(ASK_AGAIN_SECONDS * unanswered)
    return found


def position_of(msg: Msg) -> int:
    """A delivered message's position (sequence) in its stream."""
    return int(msg.metadata.sequence.stream)


async def pull_read(
    js: JetStreamContext,
    subject: str,
    *,
    stream: str,
    config: ConsumerConfig,
    through: int,
    batch: int = READ_BATCH,
    timeout: float = 5.0,
    limit: int = 0,
    end_when_quiet: bool = False,
) -> list[Msg]:
    """The messages of ``subject`` a new consumer of ``config`` delivers (from where its config
    starts it) through stream position ``through``, in order: those published after it, which
    a batch may bring along, are left out; at most ``limit`` (0: all). The caller knows a
    message at ``through`` exists; one that does not come within ``timeout`` seconds raises
    (``FETCH_TIMEOUTS``), or, ``end_when_quiet``, ends the read with what came."""
    async with pull_consumer(js, subject, stream=stream, config=config) as sub:
        found = await fetch_until(
            sub,
            lambda msg: position_of(msg) >= through,
            batch=batch,
            timeout=timeout,
            limit=limit,
            end_when_quiet=end_when_quiet,
        )
    kept = [msg for msg in found if position_of(msg) <= through]
    return kept[:limit] if limit else kept


async def pull_following(
    sub: JetStreamContext.PullSubscription, *, catch_up: int = 64, timeout: float = 5.0
) -> AsyncIterator[Msg]:
    """Each message the consumer of ``sub`` delivers, for as long as the caller reads, without
    waiting on a batch: while it is behind (the last fetch came full) it fetches ``catch_up`` at
    a time, which the server answers at once with what it has; then one at a time, each handed
    on as soon as it is published (a fetch of more than one that got some waits out its
    ``timeout`` for the rest)."""
    batch = catch_up
    while True:
        try:
            messages = await sub.fetch(batch, timeout=timeout)
        except FETCH_TIMEOUTS:
            batch = 1
            continue
        batch = catch_up if len(messages) >= batch > 1 else 1
        for msg in messages:
            yield msg
