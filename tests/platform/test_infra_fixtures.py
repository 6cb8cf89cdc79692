"""The shared fixtures give a working JetStream and a working Redis."""

from __future__ import annotations

import asyncio
import uuid

import nats
import pytest
import redis

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]


def test_nats_url_serves_jetstream(nats_url: str) -> None:
    async def roundtrip() -> list[bytes]:
        nc = await nats.connect(nats_url, connect_timeout=5)
        try:
            js = nc.jetstream()
            name = f"T{uuid.uuid4().hex[:12]}"
            await js.add_stream(name=name, subjects=[f"{name}.>"])
            acks = [await js.publish(f"{name}.a", data) for data in (b"one", b"two")]
            assert [ack.seq for ack in acks] == [1, 2]
            msgs = [await js.get_msg(name, seq) for seq in (1, 2)]
            await js.delete_stream(name)
            return [m.data or b"" for m in msgs]
        finally:
            await nc.close()

    assert asyncio.run(roundtrip()) == [b"one", b"two"]


def test_redis_url_serves_redis(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url, socket_timeout=5)
    try:
        key = f"test:{uuid.uuid4().hex}"
        client.set(key, b"value", ex=60)
        assert client.get(key) == b"value"
        client.delete(key)
    finally:
        client.close()
