"""Background loops that stop when told to, even when a step lost the cancellation.

Python 3.11's ``asyncio.wait_for`` (which nats-py's requests use) can swallow a cancellation: a
task cancelled just as the future it waits for completes gets the result instead of
``CancelledError``. The task is still marked as cancelling (``Task.cancelling()``), but nothing
raises again, so a retry loop that catches ``Exception`` and sleeps would run for good, and
whoever awaits the task (a service's stop, ``asyncio.run``'s clean-up) would wait for ever.
Such loops call :func:`honour_cancel` once per round and in their error handler.

:func:`stop_tasks` is how a service stops its background tasks: cancel, then wait for each.
:func:`hold_until_done` keeps a task per key (a table's driver, its snapshot writer) only while
it runs, so a process that has served many tables keeps nothing for those it no longer works on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Hashable, Iterable, MutableMapping
from typing import Any, TypeVar

__all__ = ["cancel_requested", "hold_until_done", "honour_cancel", "stop_tasks"]

K = TypeVar("K", bound=Hashable)


def cancel_requested() -> bool:
    """Whether the running task was asked to stop (a cancellation not yet taken back)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def honour_cancel() -> None:
    """Raise ``CancelledError`` if the running task was asked to stop, whatever a step did with
    the cancellation."""
    if cancel_requested():
        raise asyncio.CancelledError


async def stop_tasks(tasks: Iterable[asyncio.Future[Any] | None]) -> None:
    """Cancel every task of ``tasks`` (None: none there), then wait until each has ended. A task
    ending in its cancellation is what was asked; one that failed raises its error here. If
    the caller itself is cancelled while it waits, that cancellation propagates (``contextlib.
    suppress(CancelledError)`` around the wait would swallow it, and the caller run on)."""
    pending = [task for task in tasks if task is not None]
    for task in pending:
        task.cancel()
    for task in pending:
        try:
            await task
        except asyncio.CancelledError:
            if cancel_requested():  # the caller was cancelled, not (only) the task
                raise


def hold_until_done(
    tasks: MutableMapping[K, asyncio.Task[Any]], key: K, task: asyncio.Task[Any]
) -> None:
    """Keep ``task`` as ``tasks[key]`` until it ends, then drop it (unless another task took its
    place meanwhile, or ``tasks`` was emptied by whoever stopped them)."""
    tasks[key] = task

    def drop(ended: asyncio.Task[Any]) -> None:
        if tasks.get(key) is ended:
            del tasks[key]

    task.add_done_callback(drop)
