"""Provably fair decks: a secret seed per hand, its public commitment, and the deck it derives.

See ``deck`` for the algorithm; anyone holding the revealed seed can recompute every card.
"""

from .deck import (
    ALGORITHM,
    DealLayout,
    FairnessError,
    commitment,
    deck_from_seed,
    new_seed,
    verify_deal,
)

__all__ = [
    "ALGORITHM",
    "DealLayout",
    "FairnessError",
    "commitment",
    "deck_from_seed",
    "new_seed",
    "verify_deal",
]
