"""Which decks of a table are public yet: each finished hand's commitment (published before its
first card) and its seed once ``delay`` seconds passed since the hand ended.

A seed reveals every card of its hand, folded and mucked hands included, so it is not public at
the hand's end (players may muck: RULES.md); after the delay anyone may have it and recompute
the whole deck (``libs.fairdeck.deck``), which the commitment, published before the deal, ties
to the hand. Pure: no I/O. The table service reads the stream and serves this (``GetDecks``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from libs.poker.events import HandEnded, HandVoided
from libs.table.events import Event, HandBegan, SeedRevealed

from .deck import ALGORITHM

__all__ = ["DeckDisclosure", "disclosed_decks"]


@dataclass(frozen=True)
class DeckDisclosure:
    """One finished hand's deck as anyone may know it now."""

    hand_id: str
    hand_number: int
    commitment: str
    ended_at: float  # when the commit that ended the hand was recorded (seconds since the epoch)
    disclosed_at: float  # when its seed is (or was) public
    seed: str  # hex; "" until ``disclosed_at``, or when the dealer had lost it
    voided: bool
    algorithm: str = ALGORITHM


TimedEvents = Iterable[tuple[float, Iterable[Event]]]


def disclosed_decks(
    commits: TimedEvents,
    *,
    now: float,
    delay: float,
    hand_id: str = "",
    before: int = 0,
    limit: int = 10,
) -> tuple[list[DeckDisclosure], bool]:
    """The decks of the finished hands of a table's commits (each: when recorded, its events),
    newest first: only ``hand_id`` when given, only hands numbered below ``before`` when it is
    above 0, at most ``limit``; and whether older ones match too."""
    began: dict[str, HandBegan] = {}
    ended: dict[str, tuple[float, bool]] = {}
    seeds: dict[str, str] = {}
    current = ""
    for at, events in commits:
        for event in events:
            if isinstance(event, HandBegan):
                began[event.hand_id] = event
                current = event.hand_id
            elif isinstance(event, (HandEnded, HandVoided)) and current:
                ended.setdefault(current, (at, isinstance(event, HandVoided)))
            elif isinstance(event, SeedRevealed):
                seeds[event.hand_id] = event.seed
    found: list[DeckDisclosure] = []
    for hid, start in sorted(began.items(), key=lambda item: -item[1].hand_number):
        if hid not in ended or (hand_id and hid != hand_id):
            continue
        if before > 0 and start.hand_number >= before:
            continue
        at, voided = ended[hid]
        public = at + delay
        found.append(
            DeckDisclosure(
                hand_id=hid,
                hand_number=start.hand_number,
                commitment=start.commitment,
                ended_at=at,
                disclosed_at=public,
                seed=seeds.get(hid, "") if now >= public else "",
                voided=voided,
            )
        )
        if len(found) > limit:
            break
    return found[:limit], len(found) > limit
