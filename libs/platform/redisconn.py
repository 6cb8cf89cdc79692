"""Every service's Redis client, made one way: bounded timeouts, TLS when the URL asks for it,
and at most ``connections`` at once, a call waiting its turn for one (up to its timeout).

redis-py's plain pool refuses the 101st connection at once ("Too many connections"): a burst of
calls (128 tables opened or loaded together at a table service, a crowd of guests logging in
at the lobby) then failed where waiting a few milliseconds would have served it. One retry,
with no pause, only for a connection found broken (Redis restarted); none for a timeout. Said
here rather than left to redis-py's defaults, which have changed between versions."""

from __future__ import annotations

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError

from libs.platform.tls import TlsFiles, redis_options

__all__ = ["CONNECTIONS", "redis_client"]

#: Redis calls in flight at once, per process
CONNECTIONS = 64


def redis_client(
    url: str,
    tls: TlsFiles | None,
    *,
    timeout: float = 2.0,
    connect_timeout: float = 1.0,
    connections: int = CONNECTIONS,
) -> Redis:
    """A client of ``url``: each call waits at most ``timeout`` for a connection and again for
    its answer."""
    if connections < 1 or timeout <= 0 or connect_timeout <= 0:
        raise ValueError(
            f"a Redis pool needs a connection and timeouts above 0: {connections} connections, "
            f"{timeout} s, {connect_timeout} s to connect"
        )
    pool = BlockingConnectionPool.from_url(
        url,
        max_connections=connections,
        timeout=timeout,
        socket_timeout=timeout,
        socket_connect_timeout=connect_timeout,
        retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
        **redis_options(url, tls),
    )
    return Redis.from_pool(pool)
