"""Dealer use cases (to come): draw a seed, commit to it (SHA-256), shuffle a deck from it with a
published algorithm, deal cards by deck index at most once, reveal the seed after the hand.

Not implemented in this release: every DealerService method answers UNIMPLEMENTED (the shuffle
algorithm is part of the provably-fair design, a later issue).
"""

from __future__ import annotations

#: Why the methods answer UNIMPLEMENTED, for the status message.
NOT_YET = "it arrives with the provably-fair dealer (a later issue)"
