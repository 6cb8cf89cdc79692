"""Hand histories of one player's own hands, from a table's stored commits (pure, no I/O).

- :mod:`.hands`: the hands a player was dealt into, cut from the table's events, with every card
  that player never saw removed (others' hole cards unless shown, burn cards).
- :mod:`.phh`: such a hand as a PHH document (``holdem replay`` replays it; unseen cards ``??``).
- :mod:`.pokerstars`: the same hand as PokerStars-style text (hold'em; PokerKit's
  ``HandHistory.from_pokerstars`` parses the no-limit ones).
- :mod:`.histories`: a player's finished hands with both texts (``hands_of_player``).
- :mod:`.page`: which of a player's hands one request asks for (limits, paging), newest first.
"""

from .hands import PlayedHand, StoredCommit, played_hands
from .histories import HandHistory, hands_of_player
from .page import MAX_HANDS, MAX_HISTORY_COMMITS, HistoryPage, history_page

__all__ = [
    "MAX_HANDS",
    "MAX_HISTORY_COMMITS",
    "HandHistory",
    "HistoryPage",
    "PlayedHand",
    "StoredCommit",
    "hands_of_player",
    "history_page",
    "played_hands",
]
