"""The order cards leave a deck: which deck position each dealt card takes (``DealLayout``).

Hole cards go one at a time clockwise starting left of the button (round 1 to every player, then
round 2, ...); then for each of flop, turn and river one burn card followed by the board cards.
The dealer deals by these positions (``libs.fairdeck.deck`` derives the deck they index, and its
audit checks every card against them), and the table asks for cards by them, so a repeated
request for a card returns the same card and a restarted table continues the same deck.

Running the board more than once (run it twice or three times, ``libs.poker.runs``): the first
run takes the usual positions; each further run takes, in deck order, the positions after the
river of a single run (``single_run_end``), one burn card before each of its streets, as a
single run would. A rabbit hunt shows the cards at the usual positions of the streets that were
never dealt.
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

    def single_run_end(self) -> int:
        """The first deck position after everything one run of the board uses."""
        return self.players * self.hole_cards + 8

    def run_streets(self, run: int, after_street: int) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """Run ``run`` (2, 3: the first run is the usual board) of the streets after
        ``after_street``: (burn position, board positions) for each street, in deck order."""
        if run < 2:
            raise ValueError("the first run of the board is dealt by its streets")
        if not 0 <= after_street < 3:
            raise ValueError(f"no street left to run after street {after_street}")
        per_run = run_card_count(after_street)
        at = self.single_run_end() + (run - 2) * per_run
        streets = []
        for street in range(after_street + 1, 4):
            size = 3 if street == 1 else 1
            streets.append((at, tuple(range(at + 1, at + 1 + size))))
            at += 1 + size
        return tuple(streets)

    def most_runs(self, after_street: int) -> int:
        """How many runs of the streets after ``after_street`` the deck holds (at least 1)."""
        left = 52 - self.single_run_end()
        return 1 + max(0, left) // run_card_count(after_street)

    def _street_start(self, street: int) -> int:
        if street not in (1, 2, 3):
            raise ValueError(f"no board street {street}")
        base = self.players * self.hole_cards
        return base + {1: 0, 2: 4, 3: 6}[street]


def run_card_count(after_street: int) -> int:
    """Deck cards one run of the streets after ``after_street`` takes (burns included)."""
    return sum(1 + (3 if street == 1 else 1) for street in range(after_street + 1, 4))
