"""One page of a player's hand history: which of their hands a request asks for (pure).

The same rules wherever a history is served (the table service answers the gateway's
``GetHandHistory`` with them): only the table's latest :data:`MAX_HISTORY_COMMITS` commits are
read; a page holds ``limit`` hands (0 = :data:`DEFAULT_HANDS`, at most :data:`MAX_HANDS`), newest
first; ``hand_id`` keeps that hand only; ``before`` keeps hands numbered below it (0 = no bound),
so the number of a page's last hand asks for the page after it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .hands import StoredCommit
from .histories import HandHistory, hands_of_player

#: Commits of a table a history looks at, the latest ones (older hands are not served).
MAX_HISTORY_COMMITS = 20_000
#: Hands a page holds when the request does not say, and at most.
DEFAULT_HANDS = 10
MAX_HANDS = 100


@dataclass(frozen=True)
class HistoryPage:
    """``hands`` newest first; ``more``: older hands match the request too."""

    hands: tuple[HandHistory, ...]
    more: bool


def history_page(
    commits: Sequence[StoredCommit],
    player_id: str,
    *,
    hand_id: str = "",
    before: int = 0,
    limit: int = 0,
) -> HistoryPage:
    """The page of ``player_id``'s finished hands in ``commits`` (a table's, oldest first) that
    the request asks for, each projected for that player (libs.history.histories)."""
    hands = hands_of_player(commits[-MAX_HISTORY_COMMITS:], player_id)
    if hand_id:
        hands = [h for h in hands if h.hand_id == hand_id]
    if before:
        hands = [h for h in hands if h.hand_number < before]
    size = min(limit or DEFAULT_HANDS, MAX_HANDS)
    return HistoryPage(tuple(hands[-size:][::-1]), len(hands) > size)
