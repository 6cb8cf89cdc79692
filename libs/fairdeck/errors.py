"""The dealer's error codes its callers act on (the dealer service raises them, the table reads
them): ``DECK_CLOSED``, a deal asked of a deck whose seed was revealed, which deals no more (the
table voids the hand rather than wait for cards for good). The dealer's other codes are its own
(services/dealer/app.py)."""

from __future__ import annotations

DECK_CLOSED = "DECK_CLOSED"
