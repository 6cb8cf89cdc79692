"""A player's own finished hands with their texts: each hand they were dealt into, projected
for them (``hands``), written as PHH (``phh``) and as PokerStars-style text (``pokerstars``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .hands import PlayedHand, StoredCommit, played_hands
from .phh import to_phh
from .pokerstars import to_pokerstars


@dataclass(frozen=True)
class HandHistory:
    """One finished hand of a player's history: the hand as they saw it and its two texts."""

    hand_id: str
    hand_number: int
    started_at: float
    ended_at: float
    phh: str
    pokerstars: str
    hand: PlayedHand


def hands_of_player(commits: Iterable[StoredCommit], player_id: str) -> list[HandHistory]:
    """The finished, not voided hands ``player_id`` was dealt into, oldest first, with their
    PHH and PokerStars-style texts."""
    out = []
    for hand in played_hands(commits, player_id):
        if hand.viewer is None or not hand.complete or hand.voided:
            continue
        out.append(
            HandHistory(
                hand.hand_id,
                hand.hand_number,
                hand.started_at,
                hand.ended_at,
                to_phh(hand),
                to_pokerstars(hand),
                hand,
            )
        )
    return out
