"""Cards and decks: a card is an int 0..51 (rank index * 4 + suit index) with a readable face.

Ranks run 2..A as indices 0..12, suits c, d, h, s as 0..3. ``Card`` subclasses ``int`` so cards
are cheap to hash, compare and serialize, yet print as ``As``.
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "23456789TJQKA"
SUITS = "cdhs"


class Card(int):
    """One of the 52 cards; ``int(card)`` is its index, ``str(card)`` its face (``"As"``)."""

    __slots__ = ()

    @property
    def rank(self) -> int:
        """Rank index, 0 (deuce) .. 12 (ace)."""
        return self >> 2

    @property
    def suit(self) -> int:
        """Suit index, 0 (clubs) .. 3 (spades)."""
        return self & 3

    def __str__(self) -> str:
        return RANKS[self >> 2] + SUITS[self & 3]

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"

    @staticmethod
    def parse(text: str) -> Card:
        """Parse a face such as ``"As"`` or ``"td"`` (rank letter case-insensitive)."""
        if len(text) != 2:
            raise ValueError(f"not a card: {text!r}")
        rank = RANKS.find(text[0].upper())
        suit = SUITS.find(text[1].lower())
        if rank < 0 or suit < 0:
            raise ValueError(f"not a card: {text!r}")
        return DECK[rank * 4 + suit]


DECK: tuple[Card, ...] = tuple(Card(i) for i in range(52))
"""The 52 cards in index order (2c 2d 2h 2s 3c ... As)."""


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse concatenated or space-separated faces: ``"AsKh"``, ``"As Kh"``."""
    compact = "".join(text.split())
    if len(compact) % 2:
        raise ValueError(f"not a list of cards: {text!r}")
    return tuple(Card.parse(compact[i : i + 2]) for i in range(0, len(compact), 2))


def format_cards(cards: Iterable[int]) -> str:
    """Faces joined without separators, as PHH writes them: ``"AsKh"``."""
    return "".join(str(DECK[c]) for c in cards)
