"""Waiting lists at the lobby (libs/lobby/waitlist.py): JoinTable at a full table waits in line
(recorded in the table's catalogue stream), a seat that comes free is offered in turn for
``HOLDEM_LOBBY_SEAT_OFFER_SECONDS`` each, a player who sits leaves the list, and the player's
place (GetWaitlist) and leaving the list (LeaveWaitlist)."""

from __future__ import annotations

import uuid

from libs.lobby import waitlist
from libs.lobby.waitlist import Place
from services.lobby.listings import Listings

#: The default of HOLDEM_LOBBY_SEAT_OFFER_SECONDS.
SEAT_OFFER_SECONDS = 60.0


class Waitlists(Listings):
    seat_offer_seconds: float = SEAT_OFFER_SECONDS

    async def wait_turn(self, table_id: str, player_id: str) -> None:
        """Refuse ``player_id``'s seat while the table is full (they wait in line: WAITLISTED)
        or the free seat is offered to another (SEAT_OFFERED_TO_ANOTHER)."""
        listing = await self.table(table_id)
        seats = self.config_of(listing).seats
        now, clock = self.clock(), self.seat_offer_seconds
        listing = await self.stores.tables.execute(
            table_id,
            lambda t: waitlist.before_join(t, player_id, seats, now, clock),
            msg_id=f"waitlist-{uuid.uuid4().hex}",  # once by state: a repeat records nothing
        )
        self._remember(listing)
        if waitlist.full(listing, seats):
            raise waitlist.waited(listing, player_id)

    async def took_seat(self, table_id: str, player_id: str) -> None:
        listing = await self.table(table_id)
        if player_id not in listing.waiting:
            return
        now = self.clock()
        listing = await self.stores.tables.execute(
            table_id,
            lambda t: waitlist.after_join(t, player_id, now),
            msg_id=f"waitlist-seated-{uuid.uuid4().hex}",
        )
        self._remember(listing)

    async def waitlist_place(self, table_id: str, player_id: str) -> Place:
        listing = await self.table(table_id)
        return waitlist.place(listing, player_id, self.clock(), self.seat_offer_seconds)

    async def leave_waitlist(self, table_id: str, player_id: str) -> None:
        await self.table(table_id)  # NOT_FOUND for an unknown table
        now = self.clock()
        listing = await self.stores.tables.execute(
            table_id,
            lambda t: waitlist.leave(t, player_id, now),
            msg_id=f"waitlist-left-{uuid.uuid4().hex}",
        )
        self._remember(listing)
