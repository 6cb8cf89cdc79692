"""Private tables: not in the public list; a player who is not the creator enters with the
table's password or its invite code (the invite link carries it), else PERMISSION_DENIED
(``WRONG_TABLE_PASSWORD``), nothing recorded. At a table whose creator approves who sits, an
admitted player's first join records a request (``SeatRequested``) and is answered
FAILED_PRECONDITION (``AWAITING_APPROVAL``) until the creator approves it (``SeatDecided``);
a refused request is dropped (joining again asks again). The creator always sits.

Pure: the password's hash is checked by the caller (argon2, CPU-bound: passwords.py), which
says whether it matched."""

from __future__ import annotations

import hmac

from libs.errors import NotFound, PermissionDenied, PreconditionFailed
from libs.lobby.catalogue import (
    NOT_TABLE_OWNER,
    Event,
    Listing,
    SeatDecided,
    SeatRequested,
    TableListed,
    require,
)

WRONG_TABLE_PASSWORD = "WRONG_TABLE_PASSWORD"
AWAITING_APPROVAL = "AWAITING_APPROVAL"
NO_SEAT_REQUEST = "NO_SEAT_REQUEST"


def private_listing(password_hash: str, invite_code: str, approve_seats: bool) -> TableListed:
    """The private settings of a table to list (``catalogue.list_table`` fills the rest)."""
    return TableListed(
        name="",
        config="",
        created_by="",
        at=0.0,
        private=True,
        password_hash=password_hash,
        invite_code=invite_code,
        approve_seats=approve_seats,
    )


def may_enter(listing: Listing, player_id: str, password_matched: bool, invite_code: str) -> None:
    """Refuse ``player_id`` at a private table without its password or invite code."""
    require(listing)
    if not listing.private or player_id == listing.created_by:
        return
    invited = bool(invite_code) and hmac.compare_digest(
        invite_code.encode(), listing.invite_code.encode()
    )
    if invited or (listing.password_hash and password_matched):
        return
    raise PermissionDenied(
        WRONG_TABLE_PASSWORD,
        "this table is private: its password or invite code is needed, and this one is wrong",
    )


def must_wait(listing: Listing, player_id: str) -> bool:
    """Whether ``player_id`` may not sit yet: the creator approves who sits, and has not
    approved them."""
    return (
        listing.approve_seats
        and player_id != listing.created_by
        and player_id not in listing.approved
    )


def request_seat(listing: Listing, player_id: str, now: float) -> list[Event]:
    """The request of an admitted player who must wait (once: a repeat records nothing)."""
    if not must_wait(listing, player_id) or player_id in listing.requests:
        return []
    return [SeatRequested(player_id, now)]


def waiting() -> PreconditionFailed:
    """What a player who must wait is answered."""
    return PreconditionFailed(
        AWAITING_APPROVAL, "the table's creator approves who sits: asked, not answered yet"
    )


def decide_seat(
    listing: Listing, by: str, player_id: str, approved: bool, now: float
) -> list[Event]:
    """The creator (only) approves or refuses a request; approving a player who did not ask
    is allowed (an invitation), refusing one who did not ask is NOT_FOUND."""
    require(listing)
    if by != listing.created_by:
        raise PermissionDenied(NOT_TABLE_OWNER, "only the table's creator decides who sits")
    asked = player_id in listing.requests
    if not approved and not asked and player_id not in listing.approved:
        raise NotFound(NO_SEAT_REQUEST, "that player has not asked to sit here")
    if approved and player_id in listing.approved and not asked:
        return []
    return [SeatDecided(player_id, approved, now)]


def seat_requests(listing: Listing, by: str) -> list[str]:
    require(listing)
    if by != listing.created_by:
        raise PermissionDenied(NOT_TABLE_OWNER, "only the table's creator sees who asked to sit")
    return list(listing.requests)
