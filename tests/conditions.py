"""Waiting on conditions instead of sleeping for a guessed time.

A test that needs something to happen (a lease to expire, a key to age out, a process to stop)
polls for it with ``wait_until``: it returns as soon as the condition holds, and fails with a
message only if it does not hold within a deadline far longer than it should ever take, so a slow
machine makes the test slower, never wrong.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

__all__ = ["DEADLINE", "wait_until", "wait_until_sync"]

#: Seconds a condition gets before the test fails: generous, it only bounds a broken run.
DEADLINE = 30.0
INTERVAL = 0.02


async def wait_until(
    condition: Callable[[], Awaitable[bool]], what: str, timeout: float = DEADLINE
) -> float:
    """Await ``condition()`` until it is true; return the monotonic time it first was."""
    deadline = time.monotonic() + timeout
    while True:
        if await condition():
            return time.monotonic()
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting after {timeout:.0f}s for {what}")
        await asyncio.sleep(INTERVAL)


def wait_until_sync(condition: Callable[[], bool], what: str, timeout: float = DEADLINE) -> float:
    """``wait_until`` for plain functions."""
    deadline = time.monotonic() + timeout
    while True:
        if condition():
            return time.monotonic()
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting after {timeout:.0f}s for {what}")
        time.sleep(INTERVAL)
