"""The dealer service's metrics (recorded in services/dealer/app.py)."""

from __future__ import annotations

from prometheus_client import Counter

DECKS_DEALT = Counter(
    "holdem_dealer_decks_dealt_total",
    "Decks started for a hand: a fresh seed and its commitment (repeated StartDeck calls of "
    "the same hand are not counted)",
)
CARDS_DEALT = Counter(
    "holdem_dealer_cards_dealt_total",
    "Card positions answered by DealCards (a position asked again is counted again)",
)
SEEDS_REVEALED = Counter(
    "holdem_dealer_seeds_revealed_total",
    "Seeds revealed after their hand (RevealSeed calls that found the deck)",
)
