"""Every live key of a NATS KV bucket, read so that the answer can be trusted.

nats-py's ``KeyValue.keys()`` watches the bucket with a push consumer and decides it is empty
when the consumer's info shows nothing pending and nothing has arrived yet. On a replicated
bucket (R3) the first entry is often on its way by then, so ``keys()`` says "no keys" for a
bucket that has some, again and again: a replica then saw no open tables and never took over
a table whose lease it had lost. A pull consumer (``libs.eventstore.pull``) delivers nothing
until asked, so what it holds is known before the first message moves.

A one-replica consumer of a replicated stream may sit on a replica that has not yet stored the
latest writes (a quorum acknowledged them without it): it would list a key too few. The stream's
leader says which sequence was written last before the consumer is made; the newest write is
always the last entry of its key, so a listing that did not see it came from a lagging replica
and is made again (seen about once in 30 listings of a fresh R3 bucket on a loaded machine).
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.errors import NoRespondersError
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.errors import ServiceUnavailableError

from .pull import fetch_until, pull_consumer

_BATCH = 1024
_RETRY_PAUSE = 0.1  # between tries while the stream answers "unavailable" (503)
_RECHECKS = 3  # rounds of "the consumer still holds some": keys written meanwhile join them
# a key whose last entry is one of these is gone (deleted, purged, or aged out on 2.11+)
_GONE_OPERATIONS = {"DEL", "PURGE"}
_GONE_MARKERS = {"MaxAge", "Purge", "Remove"}


def _none_pending(msg: Msg) -> bool:
    """The consumer held nothing more when ``msg`` was delivered."""
    return msg.metadata.num_pending <= 0


def _live(msg: Msg) -> bool:
    headers = msg.headers or {}
    return (
        headers.get("KV-Operation") not in _GONE_OPERATIONS
        and headers.get("Nats-Marker-Reason") not in _GONE_MARKERS
    )


class _Lagging(Exception):
    """The consumer's replica had not stored the stream's last write yet."""


async def all_keys(nc: NATS, bucket: str, timeout: float = 5.0) -> list[str]:
    """Every live key of KV bucket ``bucket``, sorted: the last entry of each key, headers
    only, through a short-lived pull consumer that is deleted afterwards. A replicated bucket
    answers 503 for a moment while its stream or the new consumer elects a leader (a node
    restarting, a bucket just made): the listing is tried again, with a new consumer, for up
    to ``timeout`` seconds before that error is raised."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return await _all_keys_once(nc, bucket, timeout)
        except (ServiceUnavailableError, NoRespondersError, _Lagging) as exc:
            if time.monotonic() + _RETRY_PAUSE >= deadline:
                if isinstance(exc, _Lagging):
                    raise ServiceUnavailableError from exc
                raise
            await asyncio.sleep(_RETRY_PAUSE)


async def _all_keys_once(nc: NATS, bucket: str, timeout: float) -> list[str]:
    js = nc.jetstream(timeout=timeout)
    stream, prefix = f"KV_{bucket}", f"$KV.{bucket}."
    config = ConsumerConfig(
        deliver_policy=DeliverPolicy.LAST_PER_SUBJECT,
        ack_policy=AckPolicy.NONE,
        headers_only=True,
        mem_storage=True,
        num_replicas=1,
        inactive_threshold=max(timeout * 2, 10.0),  # the server drops it if we never can
    )
    state = (await js.stream_info(stream)).state  # the leader's: what was written last
    written = state.last_seq if state.messages else 0
    async with pull_consumer(js, f"{prefix}>", stream=stream, config=config) as sub:
        name = ""
        try:
            info = await sub.consumer_info()
            name, pending = info.name or "", info.num_pending or 0
            keys: set[str] = set()
            seen = 0  # the newest stream sequence delivered
            for _ in range(_RECHECKS):
                if pending > 0:
                    for msg in await fetch_until(
                        sub, _none_pending, batch=min(pending, _BATCH), timeout=timeout
                    ):
                        seen = max(seen, msg.metadata.sequence.stream)
                        if _live(msg):
                            keys.add(msg.subject[len(prefix) :])
                # the consumer's own count, not the last message's, says whether it is all
                pending = (await sub.consumer_info()).num_pending or 0
                if pending <= 0:
                    break
            if seen < written:
                raise _Lagging(f"{stream}: saw up to {seen}, the leader has {written}")
            return sorted(keys)
        finally:
            if name:
                with contextlib.suppress(Exception):
                    await js.delete_consumer(stream, name)
