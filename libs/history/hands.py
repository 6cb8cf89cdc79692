"""A player's hands at a table, cut from the table's events, as that player may see them.

A hand runs from ``HandBegan`` to its ``HandEnded`` (or ``HandVoided``); the hand engine's events in
between use hand positions, ``HandBegan.seats`` maps them to seats. What the viewer may see: their
own hole cards, cards shown (at showdown, in an all-in runout, or voluntarily after the hand, which
the table records after ``HandEnded``), the board. Nobody else's hole cards, no burn cards."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from libs.poker.events import (
    Event as PokerEvent,
)
from libs.poker.events import (
    HandEnded,
    HandShown,
    HandStarted,
    HandVoided,
    HoleCardsDealt,
    RunDealt,
    StreetDealt,
)
from libs.table.events import Event, HandBegan, PlayerLeft, PlayerSeated, TableClosed, TableOpened

#: One stored commit: its sequence, when it was recorded (seconds), its events.
StoredCommit = tuple[int, float, Sequence[Event]]


@dataclass
class PlayedHand:
    """One hand as a viewer may see it: hand-engine events by position, ``seats[p]`` the seat of
    position ``p``, ``players[p]`` its player id; ``viewer`` the viewer's position (None: a
    spectator's history)."""

    table_id: str
    table_name: str
    hand_id: str
    hand_number: int
    button_seat: int
    seats: tuple[int, ...]
    players: tuple[str, ...]
    max_seats: int
    viewer: int | None
    started_at: float
    ended_at: float = 0.0
    events: list[PokerEvent] = field(default_factory=list)
    complete: bool = False
    voided: bool = False


def visible(event: PokerEvent, viewer: int | None) -> PokerEvent:
    """What the viewer may see of one hand event."""
    if isinstance(event, HoleCardsDealt) and event.player != viewer:
        return dataclasses.replace(event, cards=())
    if isinstance(event, StreetDealt) and event.burn is not None:
        return dataclasses.replace(event, burn=None)
    if isinstance(event, RunDealt) and event.burns:
        return dataclasses.replace(event, burns=())
    return event


def played_hands(commits: Iterable[StoredCommit], viewer_id: str | None) -> list[PlayedHand]:
    """Every hand of the table (in order), projected for ``viewer_id`` (None: a spectator)."""
    hands: list[PlayedHand] = []
    players: dict[int, str] = {}
    table_id = ""
    name = ""
    max_seats = 0
    current: PlayedHand | None = None
    for _, at, events in commits:
        for event in events:
            if isinstance(event, TableOpened):
                table_id, max_seats = event.table_id, event.config.seats
                name = event.table_id
            elif isinstance(event, PlayerSeated):
                players[event.seat] = event.player_id
            elif isinstance(event, HandBegan):
                ids = tuple(players.get(s, "") for s in event.seats)
                viewer = ids.index(viewer_id) if viewer_id in ids else None
                current = PlayedHand(
                    table_id,
                    name,
                    event.hand_id,
                    event.hand_number,
                    event.button,
                    event.seats,
                    ids,
                    max_seats,
                    viewer,
                    at,
                )
                hands.append(current)
            elif isinstance(event, (PlayerLeft, TableClosed)):
                continue
            elif current is not None and _is_hand_event(event):
                if current.complete and not isinstance(event, HandShown):
                    continue  # only a voluntary show follows a hand's end
                current.events.append(visible(event, current.viewer))  # type: ignore[arg-type]
                if isinstance(event, (HandEnded, HandVoided)):
                    current.complete = True
                    current.voided = isinstance(event, HandVoided)
                    current.ended_at = at
    return hands


def _is_hand_event(event: Event) -> bool:
    return type(event).__module__ == HandStarted.__module__
