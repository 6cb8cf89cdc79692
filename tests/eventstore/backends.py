"""Real backends for the contract tests: a JetStream event store (also group-committed in atomic
batches), a JetStream projection and a Redis snapshot store, each on a stream or key prefix of
its own, removed afterwards."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from libs.eventstore import EventStore, Projection, SnapshotStore

if TYPE_CHECKING:
    from libs.eventstore.jsbatch import BatchingAppender


@asynccontextmanager
async def jetstream_store(nats_url: str) -> AsyncIterator[EventStore]:
    """A JetStream event store on a stream of its own, deleted afterwards."""
    import nats

    from libs.eventstore.jetstream import JetStreamEventStore

    nc = await nats.connect(nats_url)
    name = f"T{uuid.uuid4().hex[:12]}"
    store = JetStreamEventStore(nc, stream=name, subject_prefix=f"test.{name}")
    await store.ensure_stream()
    try:
        yield store
    finally:
        await nc.jetstream().delete_stream(name)
        await nc.close()


@asynccontextmanager
async def jetstream_projection(nats_url: str, prefix: str) -> AsyncIterator[Projection]:
    """A JetStream projection on a stream of its own (subjects ``<prefix>.<stream>.*``),
    deleted afterwards."""
    import nats

    from libs.eventstore.projection import JetStreamProjection

    nc = await nats.connect(nats_url)
    name = f"P{uuid.uuid4().hex[:12]}"
    projection = JetStreamProjection(nc, stream=name, subject_prefix=f"{prefix}.{name}")
    await projection.ensure_stream()
    try:
        yield projection
    finally:
        await nc.jetstream().delete_stream(name)
        await nc.close()


@asynccontextmanager
async def redis_snapshots(redis_url: str) -> AsyncIterator[SnapshotStore]:
    """A Redis snapshot store under a key prefix of its own."""
    from redis.asyncio import Redis

    from libs.eventstore.redis_snapshots import RedisSnapshotStore

    redis = Redis.from_url(redis_url)
    try:
        yield RedisSnapshotStore(redis, prefix=f"test:{uuid.uuid4().hex}:")
    finally:
        await redis.aclose()


@asynccontextmanager
async def batching_store(
    nats_url: str, atomic: bool = True, min_batch: int = 2
) -> AsyncIterator[BatchingAppender]:
    """A JetStream event store on a stream of its own that takes atomic batches (unless not
        ``atomic``), its appends group-committed (``jsbatch.BatchingAppender``, from ``min_batch``
    appends on); deleted afterwards."""
    import nats

    from libs.eventstore.jetstream import JetStreamEventStore
    from libs.eventstore.jsbatch import BatchingAppender

    nc = await nats.connect(nats_url)
    name = f"B{uuid.uuid4().hex[:12]}"
    store = JetStreamEventStore(nc, stream=name, subject_prefix=f"test.{name}")
    await store.ensure_stream(allow_atomic=atomic)
    appender = BatchingAppender(store, min_batch=min_batch)
    await appender.check()
    try:
        yield appender
    finally:
        await nc.jetstream().delete_stream(name)
        await nc.close()
