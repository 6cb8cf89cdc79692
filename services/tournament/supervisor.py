"""Directors under leases: one ``Director.run`` per live tournament, in exactly one process.

Every round (a third of the lease's lifetime) the supervisor renews the leases it holds (a
lease lost - this process stalled past its lifetime, another took the tournament - cancels that
director at once), collects directors that ended (a tournament over and paid: its lease is
released; a director that failed - a table or the lobby refusing for good, a dependency down -
is started again next round, from its checkpoint), and adopts every live tournament nobody
drives: it takes the tournament's lease (``libs.eventstore.lease``, bucket
``holdem_tournament_leases``, one key per tournament) and starts its director. A process that
dies stops renewing; its leases age out of the bucket and another process's next round takes
the tournaments over, each director resuming from its checkpoint (``checkpoint.py``).

The lease decides who does the work, not what is right: two directors of one tournament (a
stalled process waking up before it learns its lease is gone) cannot both commit, because every
report is appended on the expected sequence and every directive is keyed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any

import structlog

from libs.eventstore.lease import LeaseLost, Leases
from libs.platform.metrics import tournament as metrics
from libs.tournament.state import Status, TournamentState

from .store import Tournaments

log = structlog.get_logger("tournament.supervisor")

LEASE_BUCKET = "holdem_tournament_leases"
#: Runs one tournament's director to the end (the tournament over and everything paid).
DirectorRun = Callable[[str], Coroutine[Any, Any, TournamentState]]


class Supervisor:
    def __init__(
        self,
        tournaments: Tournaments,
        leases: Leases,
        direct: DirectorRun,
        round_seconds: float,
    ) -> None:
        self.tournaments = tournaments
        self.leases = leases
        self.direct = direct
        self.round_seconds = round_seconds
        self.running: dict[str, asyncio.Task[TournamentState]] = {}
        self.done: set[str] = set()  # over and paid: never driven again

    async def run(self) -> None:
        try:
            while True:
                try:
                    await self.round()
                except Exception as exc:  # NATS away a moment: the next round tries again
                    log.warning("supervisor round failed", error=str(exc)[:300])
                await asyncio.sleep(self.round_seconds)
        finally:
            await self.stop()

    async def round(self) -> None:
        for tournament_id in await self.leases.renew_all():
            log.warning("lease lost: director stopped", tournament=tournament_id)
            metrics.LEASES_LOST.inc()
            await self._cancel(tournament_id)
        for tournament_id, task in list(self.running.items()):
            if task.done():
                await self._ended(tournament_id, task)
        for tournament_id in sorted(await self.tournaments.ids()):
            if tournament_id in self.done or tournament_id in self.running:
                continue
            state = await self.tournaments.get(tournament_id)
            if state.status is Status.NEW:
                continue  # indexed before its first commit; or its creation was refused
            if state.over and not state.payments:
                self.done.add(tournament_id)
                continue
            if await self._acquire(tournament_id):
                log.info("directing", tournament=tournament_id, owner=self.leases.owner)
                metrics.TAKEOVERS.inc()
                self.running[tournament_id] = asyncio.create_task(
                    self.direct(tournament_id), name=f"director:{tournament_id}"
                )
        metrics.DIRECTORS.set(len(self.running))

    async def _acquire(self, tournament_id: str) -> bool:
        try:
            return await self.leases.acquire(tournament_id)
        except LeaseLost:
            return False

    async def _ended(self, tournament_id: str, task: asyncio.Task[TournamentState]) -> None:
        del self.running[tournament_id]
        error = None if task.cancelled() else task.exception()
        if task.cancelled() or error is not None:
            # keep the lease: the next round starts the director again from its checkpoint
            log.warning("director stopped", tournament=tournament_id, error=str(error)[:300])
            metrics.DIRECTOR_FAILURES.inc()
            return
        self.done.add(tournament_id)
        await self.leases.release(tournament_id)
        state = task.result()
        log.info("tournament over", tournament=tournament_id, status=state.status.value)

    async def _cancel(self, tournament_id: str) -> None:
        task = self.running.pop(tournament_id, None)
        if task is not None:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task

    async def stop(self) -> None:
        """Stop every director and hand its tournament back (another process takes it at
        once instead of after the lease's lifetime)."""
        for tournament_id in list(self.running):
            await self._cancel(tournament_id)
        for tournament_id in self.leases.held():
            with contextlib.suppress(Exception):
                await self.leases.release(tournament_id)
