"""Provably fair decks: a secret seed per hand, its public commitment, and the deck it derives.

See ``deck`` for the algorithm; anyone holding the revealed seed can recompute every card.
``audit`` checks a finished hand's cards against its revealed seed, ``histories`` reads and
writes the hand histories it audits (PHH or JSON text), ``disclosure`` lists which of a table's
decks are public yet. Pure, no I/O: ``holdem verify`` (libs/cli/verify.py) reads a table's stream
for the audit. They are imported by name, so the dealer service, which needs only ``deck``,
loads nothing else.
"""

from .deck import (
    ALGORITHM,
    FairnessError,
    commitment,
    deck_from_seed,
    new_seed,
    verify_deal,
)

__all__ = [
    "ALGORITHM",
    "FairnessError",
    "commitment",
    "deck_from_seed",
    "new_seed",
    "verify_deal",
]
