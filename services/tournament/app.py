"""The tournament service's use cases: create, list and read tournaments, register, rebuy and
the add-on (the registration and purchase sagas, ``registration.py``), unregister and cancel.
Each is one command decided by the aggregate (``store.Tournaments``) and appended with a message
id made from the caller's key, so a retry appends nothing; a refusal raises its ``libs.errors``
kind with nothing changed. What the tournament then owes (refunds, prizes) its director pays
(``supervisor.py``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from dataclasses import dataclass

from libs.errors import InvalidArgument, NotFound
from libs.tournament import commands as C
from libs.tournament.config import TournamentConfig
from libs.tournament.errors import INVALID_COMMAND, TOURNAMENT_NOT_FOUND
from libs.tournament.state import Status, TournamentState

from .registration import ADD_ON, REBUY, Registrations
from .store import Tournaments

STATUSES = frozenset(s.value for s in Status if s is not Status.NEW)


@dataclass(frozen=True, slots=True)
class Purchase:
    """A rebuy or add-on made: the tournament after it, the chips bought, their wallet cost,
    the buyer's stack in the books now."""

    state: TournamentState
    chips: int
    cost: int
    stack: int


class TournamentApp:
    def __init__(
        self,
        tournaments: Tournaments,
        registrations: Registrations,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.tournaments = tournaments
        self.registrations = registrations
        self.clock = clock

    async def create(
        self, tournament_id: str, config: TournamentConfig, created_by: str, key: str
    ) -> TournamentState:
        """A new tournament; the same request again (same id, settings and creator) answers
        the tournament made, another one with its id is ALREADY_CREATED."""
        command = C.CreateTournament(tournament_id, config, created_by, self.clock())
        return await self.tournaments.execute(tournament_id, command, f"create:{key}")

    async def get(self, tournament_id: str) -> TournamentState:
        state = await self.tournaments.get(tournament_id)
        if state.status is Status.NEW:
            raise NotFound(TOURNAMENT_NOT_FOUND, f"no tournament {tournament_id}")
        return state

    async def list(self, statuses: Collection[str] = ()) -> list[TournamentState]:
        """Every tournament (in one of ``statuses``, when given), by id."""
        unknown = set(statuses) - STATUSES
        if unknown:
            raise InvalidArgument(
                INVALID_COMMAND,
                f"unknown status {sorted(unknown)[0]!r}: one of {', '.join(sorted(STATUSES))}",
            )
        found = []
        for tournament_id in sorted(await self.tournaments.ids()):
            state = await self.tournaments.get(tournament_id)
            if state.status is not Status.NEW and (not statuses or state.status.value in statuses):
                found.append(state)
        return found

    async def register(
        self, tournament_id: str, player_id: str, key: str, is_bot: bool, bot_level: str
    ) -> TournamentState:
        await self.get(tournament_id)
        return await self.registrations.register(tournament_id, player_id, key, is_bot, bot_level)

    async def rebuy(self, tournament_id: str, player_id: str, key: str) -> Purchase:
        return await self._purchase(tournament_id, player_id, key, REBUY)

    async def add_on(self, tournament_id: str, player_id: str, key: str) -> Purchase:
        return await self._purchase(tournament_id, player_id, key, ADD_ON)

    async def _purchase(self, tournament_id: str, player_id: str, key: str, kind: str) -> Purchase:
        """The state after, the chips and cost of the rule, and the player's stack now."""
        await self.get(tournament_id)
        state = await self.registrations.purchase(tournament_id, player_id, key, kind)
        rule = state.cfg.rebuy if kind == REBUY else state.cfg.add_on
        entrant = state.entrants[player_id]  # the purchase was made: the player is an entrant
        chips, cost = (0, 0) if rule is None else (rule.chips, rule.cost)
        return Purchase(state, chips, cost, entrant.stack)

    async def unregister(
        self, tournament_id: str, player_id: str, key: str
    ) -> tuple[TournamentState, int]:
        """The player leaves before the start; the state after and the refund owed (the
        director pays it; 0 for a retry of an unregistration made)."""
        before = await self.get(tournament_id)
        entrant = before.entrants.get(player_id)
        command = C.Unregister(player_id, key, self.clock())
        after = await self.tournaments.execute(tournament_id, command, f"unregister:{key}")
        refund = entrant.paid if entrant is not None and player_id not in after.entrants else 0
        return after, refund

    async def cancel(self, tournament_id: str, reason: str) -> TournamentState:
        await self.get(tournament_id)
        command = C.Cancel(reason, self.clock())
        return await self.tournaments.execute(tournament_id, command, "cancel")
