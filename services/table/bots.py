"""Bot seats: every decision of a bot is asked of the ai service (one ``Decide`` per decision),
with exactly that seat's view and nothing else.

The request is built the one way ``libs.aiproto.requests.decide_request`` builds it, from
``libs.ai.seat_view`` over the hand in play: the seat's own hole cards (no other hidden card),
the board, every dealt seat's stack, bet and status, the pots, the hand's public history
(``TableState.actions``) and the legal actions with their bounds. The seat's level is the one it
was seated with (``Seat.bot_difficulty``; NORMAL when none was given).

The call's deadline is ``HOLDEM_TABLE_AI_TIMEOUT_MS``; the request's ``time_budget_ms`` is half of
it (Hard samples less when it must), the other half is slack. If the service does not answer
within the deadline, cannot be
reached, or answers with an action that is not legal, the seat acts as the clock would make it
(check, else fold: ``libs.ai.clock_action``), the table logs ``ai_fallback`` and counts it in
``holdem_table_ai_fallbacks_total``, and the hand goes on.

With ``HOLDEM_TABLE_AI=local`` the same levels decide in-process (a worker thread), as
``HOLDEM_TABLE_DEALER=local`` deals in-process: for tests and tools without an ai service.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

import grpc
import structlog

from libs.ai import Decision, Level, SeatView, clock_action, decide, is_legal, seat_view
from libs.ai.view import Prizes
from libs.aiproto.requests import TableContext, decide_request, decision_from_response
from libs.platform.metrics import table as metrics
from libs.table import TableState
from libs.table import commands as tc
from libs.table.config import BotDifficulty

log = structlog.get_logger("table")

#: How long a decision may take when nothing else is configured (HOLDEM_TABLE_AI_TIMEOUT_MS).
DEFAULT_TIMEOUT_SECONDS = 0.5
#: The share of it a decision may think for (``time_budget_ms``); the rest is slack for the
#: way there and back and for a loaded machine, so a slow Hard decision still lands in time.
BUDGET_SHARE = 0.5


class AiUnavailable(Exception):
    """No usable answer from the ai service (no answer in time, unreachable, or refused)."""


class Decider(Protocol):
    async def decide(
        self, view: SeatView, level: Level, context: TableContext, timeout: float
    ) -> Decision:
        """The decision for ``view`` at ``level`` within ``timeout`` seconds, or AiUnavailable.
        Whether it is legal is the caller's to check."""
        ...


class GrpcDecider:
    """holdem.ai.v1.AiService.Decide, one call per decision, with the budget as its deadline."""

    def __init__(self, channel: Any) -> None:
        from holdem.ai.v1 import ai_pb2_grpc

        self._stub = ai_pb2_grpc.AiServiceStub(channel)

    async def decide(
        self, view: SeatView, level: Level, context: TableContext, timeout: float
    ) -> Decision:
        # seed 0: the service draws a fresh one (a bot's mixed choices stay unpredictable)
        budget_ms = max(1, int(timeout * BUDGET_SHARE * 1000))
        request = decide_request(view, level, 0, budget_ms, context)
        try:
            reply = await self._stub.Decide(request, timeout=timeout)
        except grpc.aio.AioRpcError as exc:
            raise AiUnavailable(f"{exc.code().name}: {(exc.details() or '')[:120]}") from exc
        decision = decision_from_response(reply, view)
        if decision is None:
            raise AiUnavailable(f"answer with action type {reply.action}")
        return decision


class LocalDecider:
    """The same levels in-process, in a worker thread (HOLDEM_TABLE_AI=local). ``level``, when
    given, plays every bot at that level instead of its seat's (tests that need, say, calling
    stations so every hand reaches the river)."""

    def __init__(self, level: Level | None = None) -> None:
        self.level = level

    async def decide(
        self, view: SeatView, level: Level, context: TableContext, timeout: float
    ) -> Decision:
        seed = secrets.randbits(63) + 1
        chosen = self.level or level
        return await asyncio.to_thread(decide, view, chosen, seed, timeout * BUDGET_SHARE)


def with_prizes(view: SeatView, s: TableState) -> SeatView:
    """At a tournament table whose hand came with the prizes (``HandReleased.payouts`` and
    ``others``: the places still to win and the other tables' stacks, none at the final
    table), the view carries them, so the bot weighs chips by prize equity (``SeatView.prizes``).
    Without them (a cash table, or a big field's early hands) it plays chips."""
    if not s.prize_payouts:
        return view
    return replace(view, prizes=Prizes(s.prize_payouts, s.prize_others))


class Bots:
    """Turns a bot's turn into its ``Act``: asks the decider, falls back to the clock rule."""

    def __init__(
        self,
        decider: Decider,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.decider = decider
        self.timeout = timeout
        self.clock = clock
        self.decisions = 0
        self.fallbacks = 0

    async def act(self, table_id: str, s: TableState, player_id: str) -> tc.Act:
        """The action of the bot ``player_id``, which is to act in ``s``'s betting round."""
        hand = s.hand
        assert hand is not None and hand.actor is not None and s.config is not None
        position = hand.actor
        seat = s.seats[s.hand_seats[position]]
        view = with_prizes(seat_view(hand, position, s.actions), s)
        level = Level((seat.bot_difficulty or BotDifficulty.NORMAL).value)
        context = TableContext(
            seats=s.hand_seats,
            max_seats=s.config.seats,
            table_id=table_id,
            hand_id=s.hand_id,
            hand_number=s.hands_started,
            player_ids=tuple(s.seats[n].player_id for n in s.hand_seats),
            bots=tuple(s.seats[n].is_bot for n in s.hand_seats),
        )
        self.decisions += 1
        try:
            # the deadline guards a decider that would not keep its own (a little slack for
            # the answer's way back)
            # (asyncio.timeout, not wait_for: wait_for wraps the call in a task of its own, and
            # for a decider that answers at once that task was most of a bot's turn)
            async with asyncio.timeout(self.timeout + 0.05):
                decision = await self.decider.decide(view, level, context, self.timeout)
            if not is_legal(view.options, decision):
                raise AiUnavailable(f"illegal answer {decision.kind.value} {decision.to}")
        except Exception as exc:  # no answer, a late or illegal one, a failure: the hand goes on
            decision = self._fallback(table_id, s, player_id, exc)
        return tc.Act(
            player_id,
            tc.PlayerAction(decision.kind.value),
            decision.to,
            self.clock(),
            hand_id=s.hand_id,
        )

    def _fallback(
        self, table_id: str, s: TableState, player_id: str, why: BaseException
    ) -> Decision:
        assert s.hand is not None and s.hand.actor is not None
        self.fallbacks += 1
        metrics.AI_FALLBACKS.inc()
        view = seat_view(s.hand, s.hand.actor, s.actions)
        decision = clock_action(view)
        log.warning(
            "ai_fallback",
            table_id=table_id,
            hand_id=s.hand_id,
            player_id=player_id,
            error=str(why) or type(why).__name__,
            action=decision.kind.value,
        )
        return decision
