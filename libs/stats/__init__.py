"""Player statistics (pure, no I/O): VPIP, PFR, 3-bet, went to showdown, won at showdown and
aggression, from hands as a viewer saw them (docs/stats.md).

- :mod:`.counts`: a player's counters (``Counts``) and the ratios read from them.
- :mod:`.hand`: what one played hand adds for each of its players (``hand_count``); reads no card.
- :mod:`.book`: a viewer's book, the event-sourced record of every hand they were dealt into.
"""

from .book import ALL_VARIANTS, HandCounted, StatsBook, count_hand
from .counts import Counts, Ratios, ratios
from .hand import HandCount, hand_count

__all__ = [
    "ALL_VARIANTS",
    "Counts",
    "HandCount",
    "HandCounted",
    "Ratios",
    "StatsBook",
    "count_hand",
    "hand_count",
    "ratios",
]
