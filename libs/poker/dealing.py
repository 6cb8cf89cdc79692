"""The order cards leave a deck: which deck position each dealt card takes (``DealLayout``).

Hole cards go one at a time clockwise starting left of the button (round 1 to every player, then
round 2, ...); then for each of flop, turn and river one burn card followed by the board cards.
The dealer deals by these positions (``libs.fairdeck.deck`` derives the deck they index, and its
audit checks every card against them), and the table asks for cards by them, so a repeated
request for a card returns the same card and a restarted table continues the same deck.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class DealLayout:
    """Where each dealt card sits in the deck, for ``players`` players with ``hole_cards`` each."""

    players: int
    hole_cards: int

    def hole(self, position: int) -> tuple[int, ...]:
        """Deck indices of the hole cards of ``position`` (0 = first left of the button)."""
        return tuple(r * self.players + position for r in range(self.hole_cards))

    def burn(self, street: int) -> int:
        """Deck index of the burn card before ``street`` (1 flop, 2 turn, 3 river)."""
        return self._street_start(street)

    def board(self, street: int) -> tuple[int, ...]:
        start = self._street_start(street) + 1
        return tuple(range(start, start + (3 if street == 1 else 1)))

    def _street_start(self, street: int) -> int:
        if street not in (1, 2, 3):
            raise ValueError(f"no board street {street}")
        base = self.players * self.hole_cards
        return base + {1: 0, 2: 4, 3: 6}[street]
