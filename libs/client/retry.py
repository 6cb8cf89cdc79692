"""Backoff for calls that may be retried: exponential, capped, with full jitter (so clients that
lost the same server do not come back in step)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

import grpc

# Statuses a retry with the same request (same idempotency key) may cure.
RETRYABLE: frozenset[grpc.StatusCode] = frozenset({grpc.StatusCode.UNAVAILABLE})

# Statuses that end a WatchTable stream without ending the table: resume from the last sequence.
# RESOURCE_EXHAUSTED is the gateway cutting off a client that fell too far behind.
RESUMABLE: frozenset[grpc.StatusCode] = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        grpc.StatusCode.ABORTED,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.INTERNAL,  # a stream reset by a dying server surfaces as INTERNAL
    }
)


@dataclass(frozen=True)
class RetryPolicy:
    """``attempts`` = total tries of one unary call (1 = no retry)."""

    attempts: int = 6
    initial_delay: float = 0.05
    max_delay: float = 2.0
    multiplier: float = 2.0
    jitter: bool = True

    def delays(self) -> Iterator[float]:
        """Endless delays: the cap once reached."""
        delay = self.initial_delay
        while True:
            yield random.uniform(0, delay) if self.jitter else delay
            delay = min(self.max_delay, delay * self.multiplier)


NO_RETRY = RetryPolicy(attempts=1)
