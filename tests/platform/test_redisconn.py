"""libs.platform.redisconn: a burst of more Redis calls than the pool's connections waits for a
free one instead of failing ("Too many connections" from redis-py's plain pool), and the pool
never opens more than it says."""

from __future__ import annotations

import asyncio

import pytest

from libs.platform.redisconn import redis_client


@pytest.mark.integration
def test_a_burst_larger_than_the_pool_is_served_by_waiting(redis_url: str) -> None:
    async def burst() -> tuple[list[object], int]:
        redis = redis_client(redis_url, None, connections=8)
        try:
            key = "holdem-test:redisconn"
            await redis.set(key, b"x")
            answers: list[object] = list(
                await asyncio.gather(*(redis.get(key) for _ in range(300)))  # all at once
            )
            pool = redis.connection_pool
            opened = len(pool._available_connections) + len(pool._in_use_connections)
            await redis.delete(key)
            return answers, opened
        finally:
            await redis.aclose()

    answers, opened = asyncio.run(burst())
    assert answers == [b"x"] * 300
    assert opened <= 8


def test_a_pool_of_none_or_no_time_is_refused() -> None:
    for bad in ({"connections": 0}, {"timeout": 0.0}, {"connect_timeout": -1.0}):
        with pytest.raises(ValueError, match="above 0"):
            redis_client("redis://127.0.0.1:1/0", None, **bad)
