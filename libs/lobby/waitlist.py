"""Waiting lists for full tables. A JoinTable at a full table puts the player on the table's
list (``WaitlistJoined``) and answers FAILED_PRECONDITION ``WAITLISTED`` with their place. When
a seat of the full table comes free (the table's public commits, ``Activity``), it is offered
in order: the first waiting player holds it for ``clock`` seconds, then the second, and so on
(computed from when it came free: nothing has to happen for the offer to move on). While a
player holds the offer, anyone else's JoinTable is refused (``SEAT_OFFERED_TO_ANOTHER``); once
every waiting player's turn has passed, the seat is anyone's. Taking a seat, or
LeaveWaitlist, takes a player off the list (``WaitlistLeft``); one giving up restarts the clock
for those after.

One seat is offered at a time; the lobby's count of seated players follows the table a moment
later, and the table itself still refuses a seat it does not have."""

from __future__ import annotations

from dataclasses import dataclass

from libs.errors import NotFound, PreconditionFailed, ResourceExhausted
from libs.lobby.catalogue import Event, Listing, WaitlistJoined, WaitlistLeft, require

WAITLISTED = "WAITLISTED"
SEAT_OFFERED_TO_ANOTHER = "SEAT_OFFERED_TO_ANOTHER"
NOT_WAITING = "NOT_WAITING"
WAITLIST_FULL = "WAITLIST_FULL"
MAX_WAITING = 100


@dataclass(frozen=True)
class Place:
    """Where a player stands: ``position`` from 1 (0: not waiting), how many wait, and the
    offer they hold (``offered_until`` seconds since the epoch; 0: none)."""

    position: int
    waiting: int
    offered_until: float


def holder(listing: Listing, now: float, clock: float) -> tuple[str, float] | None:
    """Who holds the seat offered now, and until when (None: no offer, or every turn passed)."""
    if not listing.waiting or not listing.offer_started:
        return None
    turn = int((now - listing.offer_started) // clock)
    if turn >= len(listing.waiting):
        return None
    return listing.waiting[turn], listing.offer_started + (turn + 1) * clock


def place(listing: Listing, player_id: str, now: float, clock: float) -> Place:
    held = holder(listing, now, clock)
    until = held[1] if held is not None and held[0] == player_id else 0.0
    position = listing.waiting.index(player_id) + 1 if player_id in listing.waiting else 0
    return Place(position, len(listing.waiting), until)


def before_join(
    listing: Listing, player_id: str, seats: int, now: float, clock: float
) -> list[Event]:
    """Before ``player_id`` sits at a table of ``seats``: at a full table, their place on the
    list (recorded; the caller answers ``waited``); while another holds the offer, a refusal;
    else nothing (they may sit)."""
    require(listing)
    if listing.seated >= seats:
        if player_id in listing.waiting:
            return []
        if len(listing.waiting) >= MAX_WAITING:
            raise ResourceExhausted(WAITLIST_FULL, f"{MAX_WAITING} players wait already")
        return [WaitlistJoined(player_id, seats, now)]
    held = holder(listing, now, clock)
    if held is not None and held[0] != player_id:
        left = int(held[1] - now) + 1
        raise PreconditionFailed(
            SEAT_OFFERED_TO_ANOTHER,
            f"the free seat is offered to a waiting player for {left} s more",
        )
    return []


def full(listing: Listing, seats: int) -> bool:
    return listing.seated >= seats


def waited(listing: Listing, player_id: str) -> PreconditionFailed:
    position = listing.waiting.index(player_id) + 1 if player_id in listing.waiting else 0
    return PreconditionFailed(
        WAITLISTED,
        f"the table is full: you are number {position} of {len(listing.waiting)} on its "
        "waiting list (GetWaitlist says when a seat is yours)",
    )


def after_join(listing: Listing, player_id: str, now: float) -> list[Event]:
    """``player_id`` sat down: off the list if they were on it."""
    return [WaitlistLeft(player_id, True, now)] if player_id in listing.waiting else []


def leave(listing: Listing, player_id: str, now: float) -> list[Event]:
    require(listing)
    if player_id not in listing.waiting:
        raise NotFound(NOT_WAITING, "you are not on this table's waiting list")
    return [WaitlistLeft(player_id, False, now)]
