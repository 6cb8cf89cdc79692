"""The director: the process manager of one tournament (docs/tournaments.md, "the director's
contract"). It reads the tournament's commits in order and carries out each event's directives
(``libs.tournament.directives``) to completion before the next event's, saving its position
after each (``checkpoint``); it reports back with commands (``ReportHand`` when a released
hand ended, ``CompleteMove`` when a move landed, ``SettlePayment`` when a wallet was credited),
and drives the clock (``Start`` when a sit & go is full or a scheduled start is due, ``Tick`` at
the next deadline).

Exactly once: every directive carries its key and the tables and wallets do each key once; every
report is a command appended with a message id of its own (``report:<table>:<hand>``,
``moved:<move>``, ``settled:<key>``) on the expected sequence, and the tournament decides a
repeated report as nothing. So a director killed anywhere - inside a directive, between a
directive and its report, between a commit and its checkpoint - and started again redoes at
most one event's directives, and nothing is lost or doubled.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable

import structlog

from libs.errors import DomainError
from libs.tournament import commands as C
from libs.tournament import directives as D
from libs.tournament import evolve
from libs.tournament.clock import next_deadline
from libs.tournament.codec import decode_events
from libs.tournament.config import TournamentKind
from libs.tournament.state import Status, TournamentState, full

from .checkpoint import Checkpoints, Position
from .ports import Tables, Wallets
from .store import Tournaments

log = structlog.get_logger("tournament.director")


class Director:
    def __init__(
        self,
        tournaments: Tournaments,
        checkpoints: Checkpoints,
        tables: Tables,
        wallets: Wallets,
        clock: Callable[[], float] = time.time,
        poll: float = 0.5,
    ) -> None:
        self.tournaments = tournaments
        self.checkpoints = checkpoints
        self.tables = tables
        self.wallets = wallets
        self.clock = clock
        self.poll = poll

    async def run(self, tournament_id: str) -> TournamentState:
        """Direct the tournament until it is over and everything it owes is paid."""
        while True:
            state = await self.step(tournament_id)
            if state.over and not state.payments:
                return state

    async def step(self, tournament_id: str) -> TournamentState:
        """Carry out what was decided, then report what happened (or wait a little)."""
        await self.carry_out(tournament_id)
        state = await self.tournaments.get(tournament_id)
        if not await self._report(tournament_id, state):
            deadline = next_deadline(state) if not state.over else None
            wait = (
                self.poll if deadline is None else max(0.0, min(self.poll, deadline - self.clock()))
            )
            await self.tables.wait(wait)
        return state

    # ---- directives ----

    async def carry_out(self, tournament_id: str) -> TournamentState:
        """Every directive of every commit after the checkpoint, in order; the state after."""
        position = await self.checkpoints.load(tournament_id)
        state = position.state
        for commit in await self.tournaments.events.read(tournament_id, after=position.after):
            for n, event in enumerate(decode_events(commit.data)):
                if n >= position.done:
                    for directive in D.directives(state, event):
                        await self._do(tournament_id, state, directive)
                    await self.checkpoints.save(
                        tournament_id, Position(position.state, position.after, n + 1)
                    )
                state = evolve(state, event)
            position = Position(state, commit.sequence, 0)
            await self.checkpoints.save(tournament_id, position)
        return state

    async def _do(self, tid: str, s: TournamentState, d: D.Directive) -> None:
        match d:
            case D.OpenTable():
                await self.tables.open(d)
            case D.SeatPlayer():
                await self.tables.seat(d)
            case D.MovePlayer():
                mover = s.entrants[d.player_id]
                await self.tables.move(d, mover.stack, mover.is_bot, mover.bot_level)
                await self._command(
                    tid, C.CompleteMove(d.move_id, self.clock()), f"moved:{d.move_id}"
                )
            case D.RemovePlayer():
                await self.tables.remove(d)
            case D.AddChips():
                await self.tables.add_chips(d)
            case D.DealHand():
                await self.tables.deal(d)
            case D.CloseTable():
                await self.tables.close(d)
            case D.PayPlayer():
                await self.wallets.credit(d.payment)
                key = d.payment.key
                await self._command(tid, C.SettlePayment(key, self.clock()), f"settled:{key}")

    # ---- reports and the clock ----

    async def _report(self, tid: str, s: TournamentState) -> bool:
        """Report whatever happened since ``s``; whether anything was reported."""
        now = self.clock()
        if s.status is Status.REGISTERING:
            cfg = s.cfg
            due = full(s) if cfg.kind is TournamentKind.SIT_AND_GO else now >= cfg.start_at
            if due:
                await self._command(tid, C.Start(secrets.token_hex(16), now), "start")
            return due
        reported = False
        for table in list(s.tables.values()):
            if table.in_hand:
                report = await self.tables.hand_result(table.table_id, table.hand)
                if report is not None:
                    command = C.ReportHand(
                        report.table_id, report.hand, report.results, report.button, now
                    )
                    await self._command(tid, command, f"report:{table.table_id}:{table.hand}")
                    reported = True
        deadline = next_deadline(s)
        if not reported and deadline is not None and now >= deadline:
            after = await self._command(tid, C.Tick(now), f"tick:{deadline!r}")
            reported = after is not None and next_deadline(after) != deadline
        return reported

    async def _command(self, tid: str, command: C.Command, msg_id: str) -> TournamentState | None:
        """Decide and append a report; the state after it. A refusal (None) means the
        tournament moved on (a start already made, a report of a table since closed)."""
        try:
            return await self.tournaments.execute(tid, command, msg_id)
        except DomainError as exc:
            kind = type(command).__name__
            log.info("report refused", tournament=tid, command=kind, error=str(exc))
            return None
