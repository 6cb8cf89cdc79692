"""Private tables at the lobby (libs/lobby/privacy.py): the settings a CreateTable asks for
(the password hashed with argon2 in a thread, a fresh invite code), who may enter one
(JoinTable's password or invite code), the seat requests its creator approves, and the list of
requests. Each change is a commit of the table's catalogue stream."""

from __future__ import annotations

import asyncio
import secrets
import uuid

from libs.lobby import privacy
from libs.lobby.catalogue import TableListed
from libs.lobby.passwords import hash_password, verify_password
from services.lobby.listings import Listings

#: Bytes of randomness in an invite code (URL-safe base64: 22 characters).
INVITE_BYTES = 16


async def private_settings(private: bool, password: str, approve_seats: bool) -> TableListed | None:
    """The private settings of a table a CreateTable asks for (None: a public table)."""
    if not (private or password or approve_seats):
        return None
    hashed = await asyncio.to_thread(hash_password, password) if password else ""
    return privacy.private_listing(hashed, secrets.token_urlsafe(INVITE_BYTES), approve_seats)


class PrivateSeats(Listings):
    async def admit(self, table_id: str, player_id: str, password: str, invite_code: str) -> None:
        """Refuse ``player_id`` at a private table without its password or invite code, and,
        where the creator approves who sits, until they have (the first try asks)."""
        listing = await self.table(table_id)
        if not listing.private:
            return
        matched = False
        if password and listing.password_hash and player_id != listing.created_by:
            matched = await asyncio.to_thread(verify_password, listing.password_hash, password)
        privacy.may_enter(listing, player_id, matched, invite_code)
        if not privacy.must_wait(listing, player_id):
            return
        now = self.clock()
        listing = await self.stores.tables.execute(
            table_id,
            lambda t: privacy.request_seat(t, player_id, now),
            msg_id=f"seat-request-{uuid.uuid4().hex}",  # once by state: a repeat records nothing
        )
        self._remember(listing)
        raise privacy.waiting()

    async def decide_seat(
        self, table_id: str, by: str, player_id: str, approved: bool
    ) -> list[str]:
        """The creator's answer to ``player_id``'s request; who is still waiting."""
        listing = await self.table(table_id)
        now = self.clock()
        listing = await self.stores.tables.execute(
            table_id,
            lambda t: privacy.decide_seat(t, by, player_id, approved, now),
            msg_id=f"seat-decided-{uuid.uuid4().hex}",  # a repeat decides nothing new
        )
        self._remember(listing)
        return privacy.seat_requests(listing, by)

    async def seat_requests(self, table_id: str, by: str) -> list[str]:
        return privacy.seat_requests(await self.table(table_id), by)
