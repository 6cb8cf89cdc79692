"""Our ordering of hands agrees with phevaluator, treys and PokerKit (differential tests).

"Agrees" means the same total preorder: sort the hands by our value; along that order equal
values must be equal for the peer too, and each strictly better value strictly better for the peer.
By transitivity that covers every pair of hands.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, pairwise

import numpy as np
import numpy.typing as npt
from phevaluator import evaluate_cards, evaluate_omaha_cards
from pokerkit import Hand, OmahaEightOrBetterLowHand
from treys import Card as TreysCard
from treys import Evaluator as TreysEvaluator

from libs.poker.cards import DECK
from libs.poker.fast import NO_LOW, high_batch, omaha_high_batch, omaha_low_batch
from tests.evaluator.conftest import random_deals

TREYS = TreysEvaluator()
TREYS_CARDS = [TreysCard.new(str(card)) for card in DECK]


def assert_same_preorder(ours: Sequence[int], peer_strength: Sequence[int]) -> None:
    """``ours`` and ``peer_strength``: higher is better for both."""
    mine = np.asarray(ours, dtype=np.int64)
    theirs = np.asarray(peer_strength, dtype=np.int64)
    order = np.lexsort((theirs, mine))
    step_mine = np.diff(mine[order])
    step_theirs = np.diff(theirs[order])
    assert np.all(step_theirs[step_mine == 0] == 0), "peer separates hands we call equal"
    assert np.all(step_theirs[step_mine > 0] > 0), "peer orders hands differently"


def test_seven_card_order_agrees_with_phevaluator_and_treys() -> None:
    hands = random_deals(6_000, 7, seed=2024)
    ours = high_batch(hands).tolist()
    # Both peers rank 1 = best: negate.
    assert_same_preorder(ours, [-evaluate_cards(*h) for h in hands.tolist()])
    treys = [
        -TREYS.evaluate([TREYS_CARDS[c] for c in h[:2]], [TREYS_CARDS[c] for c in h[2:]])
        for h in hands.tolist()
    ]
    assert_same_preorder(ours, treys)


def _treys_omaha(hole: list[int], board: list[int]) -> int:
    # treys ships no type information: its ranks are ints
    return int(
        min(
            TREYS.evaluate([TREYS_CARDS[c] for c in pair], [TREYS_CARDS[c] for c in triple])
            for pair in combinations(hole, 2)
            for triple in combinations(board, 3)
        )
    )


def test_omaha_order_agrees_with_phevaluator_and_treys() -> None:
    deals = random_deals(2_500, 9, seed=77)
    hole, board = deals[:, :4], deals[:, 4:]
    ours = omaha_high_batch(hole, board).tolist()
    pairs = list(zip(hole.tolist(), board.tolist(), strict=True))
    assert_same_preorder(ours, [-evaluate_omaha_cards(*b, *h) for h, b in pairs])
    assert_same_preorder(ours, [-_treys_omaha(h, b) for h, b in pairs])


def _pokerkit_low(hole: list[int], board: list[int]) -> Hand | None:
    try:
        return OmahaEightOrBetterLowHand.from_game(
            "".join(str(DECK[c]) for c in hole), "".join(str(DECK[c]) for c in board)
        )
    except ValueError:
        return None


def test_omaha_low_agrees_with_pokerkit() -> None:
    deals = random_deals(5_000, 9, seed=8)
    hole, board = deals[:, :4], deals[:, 4:]
    ours: npt.NDArray[np.int32] = omaha_low_batch(hole, board)
    theirs = [_pokerkit_low(h, b) for h, b in zip(hole.tolist(), board.tolist(), strict=True)]
    assert [v == NO_LOW for v in ours.tolist()] == [t is None for t in theirs]
    qualified = [(int(v), t) for v, t in zip(ours.tolist(), theirs, strict=True) if t is not None]
    assert len(qualified) > 1_000
    qualified.sort(key=lambda item: item[0])
    for (v1, h1), (v2, h2) in pairwise(qualified):
        # Ours: lower is better; PokerKit: a better hand compares greater.
        if v1 == v2:
            assert h1 == h2, (h1, h2)
        else:
            assert h1 > h2, (h1, h2)
