"""A viewer's statistics book: the event-sourced record, one per viewer (stream
``holdem.lobby.stats.<viewer>``), of every hand the viewer was dealt into, counted for each
player of it (libs.stats.hand). It holds the counters of the viewer themselves and of each
opponent they met, per variant, so a statistic is read from it, never recomputed from the hands.

A hand is counted once: ``last_hand`` remembers, per table, the number of the last hand counted
(a table's hands are counted in order), so a hand delivered again adds nothing. The book is
rebuilt, like every aggregate, from its stream."""

from __future__ import annotations

from dataclasses import dataclass, field

from libs.lobby.codec import decode_events, decode_state, encode_events, encode_state

from .counts import Counts
from .hand import HandCount

ALL_VARIANTS = ""


@dataclass(frozen=True)
class HandCounted:
    table_id: str
    hand_number: int
    variant: str
    players: dict[str, dict[str, int]]  # player id -> Counts fields
    at: float = 0.0


EVENT_TYPES: dict[str, type[HandCounted]] = {"HandCounted": HandCounted}


@dataclass
class StatsBook:
    viewer: str
    counts: dict[str, dict[str, int]] = field(default_factory=dict)  # "<variant>/<player>"
    last_hand: dict[str, int] = field(default_factory=dict)  # table id -> hand number
    hands: int = 0

    def of(self, player_id: str, variant: str = ALL_VARIANTS) -> Counts:
        """The counters of ``player_id`` in the viewer's hands (one variant, or all)."""
        total = Counts()
        for key, fields in self.counts.items():
            kind, _, player = key.partition("/")
            if player == player_id and variant in (ALL_VARIANTS, kind):
                total = total + Counts.from_dict(fields)
        return total

    def players(self) -> set[str]:
        return {key.partition("/")[2] for key in self.counts}


def initial(viewer: str) -> StatsBook:
    return StatsBook(viewer)


def evolve(book: StatsBook, event: HandCounted) -> StatsBook:
    counts = dict(book.counts)
    for player, fields in event.players.items():
        key = f"{event.variant}/{player}"
        before = Counts.from_dict(counts.get(key, {}))
        counts[key] = (before + Counts.from_dict(fields)).as_dict()
    last = dict(book.last_hand)
    last[event.table_id] = max(last.get(event.table_id, 0), event.hand_number)
    return StatsBook(book.viewer, counts, last, book.hands + 1)


def count_hand(book: StatsBook, hand: HandCount, now: float) -> list[HandCounted]:
    """Count ``hand`` in the book; nothing when it was counted already."""
    if hand.hand_number <= book.last_hand.get(hand.table_id, 0):
        return []
    players = {p: c.as_dict() for p, c in hand.players.items() if p}
    return [HandCounted(hand.table_id, hand.hand_number, hand.variant, players, now)]


def encode(events: list[HandCounted]) -> bytes:
    return encode_events(events)


def decode(data: bytes) -> list[HandCounted]:
    return decode_events(data, EVENT_TYPES)


def encode_book(book: StatsBook) -> bytes:
    return encode_state(book)


def decode_book(data: bytes) -> StatsBook:
    return decode_state(data, StatsBook)
