"""One-line bugs in what a viewer of a table may see (services/table/views.py), each caught by
the privacy tests of every showdown shape (tests/tableservice/test_view_privacy.py): a viewer
sees its own hole cards and the cards shown, nothing else, whoever it is and whatever the
showdown's order. The first is the seeded bug the suite missed (issue 24): a mucked hand's
cards shown to everyone while a three-way showdown is still going (heads-up, the hand ends at
the muck, so no view ever showed it)."""

from __future__ import annotations

from tests.mutation.model import Mutation

PRIVACY_TESTS = ("tests/tableservice/test_view_privacy.py",)
_OWN_CARDS = "            elif number == viewer_seat:\n"

MUTATIONS = [
    Mutation(
        "views: a mucked hand's cards are shown to every viewer while the showdown goes on",
        "services/table/views.py",
        _OWN_CARDS,
        "            elif number == viewer_seat or hand.mucked[position]:\n",
        tests=PRIVACY_TESTS,
    ),
    Mutation(
        "views: a folded hand's cards are shown to every viewer",
        "services/table/views.py",
        _OWN_CARDS,
        "            elif number == viewer_seat or hand.folded[position]:\n",
        tests=PRIVACY_TESTS,
    ),
    Mutation(
        "views: an all-in hand is face up before its runout turns it up",
        "services/table/views.py",
        _OWN_CARDS,
        "            elif number == viewer_seat or hand.stacks[position] == 0:\n",
        tests=PRIVACY_TESTS,
    ),
    Mutation(
        "views: cards shown at the showdown are seen by their owner only",
        "services/table/views.py",
        "            if shown is not None:\n",
        "            if shown is not None and number == viewer_seat:\n",
        tests=PRIVACY_TESTS,
    ),
]
