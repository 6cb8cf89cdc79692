"""A dependency's health learned by asking it: a check run every few seconds in the background,
for services whose client library has no connection state to read (redis-py's pool connects
per command). Its ``reason`` feeds ``Mount.readiness``: NOT_SERVING while the last check failed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from libs.platform.tasks import stop_tasks


class Probe:
    def __init__(
        self,
        name: str,
        check: Callable[[], Awaitable[object]],
        interval: float = 1.0,
        timeout: float = 2.0,
    ) -> None:
        self.name = name
        self.check = check
        self.interval = interval
        self.timeout = timeout
        self.reason: str | None = None  # why the dependency is down; None while it answers
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run())

    async def once(self) -> str | None:
        """Ask now; the reason it is down, or None."""
        try:
            await asyncio.wait_for(self.check(), self.timeout)
        except Exception as exc:  # anything but an answer: down
            self.reason = f"{self.name} is not answering ({type(exc).__name__})"
        else:
            self.reason = None
        return self.reason

    async def _run(self) -> None:
        while True:
            await self.once()
            await asyncio.sleep(self.interval)

    async def stop(self) -> None:
        task, self._task = self._task, None
        await stop_tasks([task])
