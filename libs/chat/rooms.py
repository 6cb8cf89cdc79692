"""Where a chat message goes and who reads it. Rooms are named as NATS subject tails:

- ``lobby``: everyone logged in;
- ``table.<id>.main``: a table's chat;
- ``table.<id>.spectators``: at a table that keeps its spectators apart (its config's
  ``separate_spectator_chat``), what those not seated say. Seated players neither read nor post
  there; spectators read both rooms of the table and post in theirs.

Whether the caller is seated is the table's answer at the time of the call; a chat stream at a
table that keeps spectators apart follows both rooms and passes a spectators' message only to
whoever is not seated when it comes (services/gateway/chat.py). A sanction
(moderation.py) is kept per scope: ``lobby`` or ``table.<id>`` (both rooms of a table)."""

from __future__ import annotations

from dataclasses import dataclass

LOBBY = "lobby"
SPECTATORS = ".spectators"  # the tail of a table's spectators' room


@dataclass(frozen=True)
class Seat:
    """How a caller stands at a table's chat: the room they post in, the subject filter of what
    they read (a NATS wildcard for both rooms), and the scope of sanctions."""

    post: str
    read: str
    scope: str


def table_scope(table_id: str) -> str:
    return f"table.{table_id}"


def table_chat(table_id: str, *, seated: bool, separate: bool) -> Seat:
    scope = table_scope(table_id)
    main = f"{scope}.main"
    if not separate or seated:
        return Seat(post=main, read=main, scope=scope)
    return Seat(post=f"{scope}{SPECTATORS}", read=f"{scope}.*", scope=scope)


def lobby_chat() -> Seat:
    return Seat(post=LOBBY, read=LOBBY, scope=LOBBY)


def is_spectators_room(room: str) -> bool:
    return room.startswith("table.") and room.endswith(SPECTATORS)


def spectators_room_too(seat: Seat) -> Seat:
    """``seat`` reading both rooms of its table (what is read is then filtered per message)."""
    return Seat(post=seat.post, read=f"{seat.scope}.*", scope=seat.scope)
