"""The next automatic step worked out ahead: while a commit is in flight (its append waiting for
the server's answer), the step that will follow it (a bot's decision, a deal) is worked out on
the state that commit proposes, so that the table's own work overlaps the server's. It is taken
only if that state is the table's when the driver looks next (the commit landed, nothing else
came first); else it is dropped and worked out again. Steps that start a deck or reveal a seed
are never worked out ahead: nothing happens at the dealer that the step in flight may undo.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from libs.platform.tasks import honour_cancel
from libs.table import TableState
from libs.table.automation import BoardDue, BotTurn, HoleCardsDue, next_due
from services.table.automation import Automation
from services.table.commits import Ahead, LoadedTable, Stepped
from services.table.ranking import RankedStep

#: What is worked out ahead: the steps that need no seed revealed and no new deck (a bot's
#: decision, a deal), so nothing happens at the dealer that the step in flight may undo.
AHEAD_STEPS = (BotTurn, HoleCardsDue, BoardDue)


class WorkAhead:
    def __init__(
        self,
        automation: Automation,
        step: RankedStep,
        clock: Callable[[], float],
        start_hands: Callable[[], bool],
    ) -> None:
        """``start_hands``: whether hands start by themselves now (the app's ``auto_start``),
        asked when the step is worked out, as the driver asks it."""
        self.automation = automation
        self.step = step
        self.clock = clock
        self.start_hands = start_hands

    def start(self, table_id: str, table: LoadedTable, state: TableState) -> None:
        """While the commit that proposes ``state`` is in flight, work out the automatic step
        that will follow it; it replaces any step worked out before."""
        self.drop(table)
        due = next_due(state, self.clock())
        if not isinstance(due, AHEAD_STEPS):
            return

        async def work() -> Stepped | None:
            command = await self.automation.next_command(
                table_id, state, start_hands=self.start_hands()
            )
            if command is None:
                return None
            return command, await self.step(state, command)

        table.ahead = Ahead(state, asyncio.create_task(work()))

    async def take(self, table: LoadedTable, state: TableState) -> Stepped | None:
        """The step worked out ahead on ``state``, if there is one (a failed one is none: the
        driver works it out again, and meets the same failure itself if it lasts)."""
        ahead, table.ahead = table.ahead, None
        if ahead is None:
            return None
        if ahead.state is not state:
            _drop(ahead)
            return None
        try:
            return await ahead.task
        except asyncio.CancelledError:
            honour_cancel()
            return None
        except Exception:
            return None

    @staticmethod
    def drop(table: LoadedTable) -> None:
        """Forget the step worked out ahead at ``table`` (cancelled if still being worked out)."""
        ahead, table.ahead = table.ahead, None
        if ahead is not None:
            _drop(ahead)


def _drop(ahead: Ahead) -> None:
    if not ahead.task.done():
        ahead.task.cancel()
    else:
        with contextlib.suppress(BaseException):
            ahead.task.exception()  # retrieved: nobody asks for a step dropped
