"""PokerKit's cards and hand classes for the differential play: ``PK_CARDS`` (ours by index) and
``HAND_TYPES`` by variant, PokerKit's own classes evaluated faster (``_memoized``; the hands are
the same: test_differential checks them against PokerKit's).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from math import prod
from typing import Any

import pokerkit as pk

from libs.poker import (
    DECK,
    Variant,
)

PK_CARDS: tuple[pk.Card, ...] = tuple(next(iter(pk.Card.parse(str(card)))) for card in DECK)


HAND_CACHE: dict[tuple[type[pk.Hand], tuple[pk.Card, ...], tuple[pk.Card, ...]], object] = {}


_RANK_PRIMES: dict[pk.Rank, int] = pk.Lookup._Lookup__multipliers  # type: ignore[attr-defined]


def _memoized(base: type[pk.Hand]) -> type[pk.Hand]:
    """PokerKit's hand class ``base``, evaluated faster; the hands are the same.

    PokerKit evaluates every shown hand again for every pot, hand type and question (who can
    still win, whose hand is killed, who gets each pot), and a hand looks its lookup entry up
    again at every comparison: an Omaha hi-lo showdown costs hundreds of milliseconds. Here
    ``from_game`` walks the same five-card combinations in the same order as PokerKit's (Omaha:
    each pair of hole cards, then each three board cards; hold'em: any five of the seven),
    looks each up once in PokerKit's own table and keeps the first strongest, exactly as
    PokerKit's ``max`` does; answers are remembered for the hand. ``test_differential`` checks
    the result against PokerKit's own classes.
    """
    entries = base.lookup._Lookup__entries  # type: ignore[attr-defined]
    invalid = f"the cards form no {base.__qualname__} hand"
    low = base.low
    hole_count: int | None = getattr(base, "hole_card_count", None)
    board_count: int | None = getattr(base, "board_card_count", None)

    def lookup(cards: tuple[pk.Card, ...]) -> object:
        # ``Lookup.get_entry_or_none``: the key is the product of the rank primes and whether
        # all the cards are suited.
        return entries.get(
            (prod(_RANK_PRIMES[c.rank] for c in cards), len({c.suit for c in cards}) <= 1)
        )

    def __init__(self: pk.Hand, cards: pk.CardsLike) -> None:
        cleaned = pk.Card.clean(cards)
        entry = lookup(cleaned)
        if entry is None:
            raise ValueError(invalid)
        self._Hand__cards = cleaned  # type: ignore[attr-defined]
        self._entry = entry  # type: ignore[attr-defined]

    def entry(self: pk.Hand) -> object:
        return self._entry  # type: ignore[attr-defined]

    def candidates(
        hole: tuple[pk.Card, ...], board: tuple[pk.Card, ...]
    ) -> Iterator[tuple[pk.Card, ...]]:
        if hole_count is None or board_count is None:
            yield from combinations(hole + board, 5)
            return
        for pair in combinations(hole, hole_count):
            for triple in combinations(board, board_count):
                yield pair + triple

    def from_game(
        cls: type[pk.Hand], hole_cards: pk.CardsLike, board_cards: pk.CardsLike = ()
    ) -> pk.Hand:
        hole = tuple(pk.Card.clean(hole_cards))
        board = tuple(pk.Card.clean(board_cards))
        key = (cls, hole, board)
        hand = HAND_CACHE.get(key)
        if hand is None:
            best: Any = None
            best_cards: tuple[pk.Card, ...] = ()
            for cards in candidates(hole, board):
                found: Any = lookup(cards)
                if found is not None and (best is None or (found < best if low else found > best)):
                    best, best_cards = found, cards
            if best is None:
                hand = ValueError(invalid)
            else:
                made = cls.__new__(cls)
                made._Hand__cards = best_cards  # type: ignore[attr-defined]
                made._entry = best  # type: ignore[attr-defined]
                hand = made
            HAND_CACHE[key] = hand
        if isinstance(hand, ValueError):
            raise hand
        return hand  # type: ignore[return-value]

    namespace = {
        "__init__": __init__,
        "entry": property(entry),
        "from_game": classmethod(from_game),
    }
    return type(base.__name__, (base,), namespace)


_HIGH = _memoized(pk.StandardHighHand)


_OMAHA_HIGH = _memoized(pk.OmahaHoldemHand)


_OMAHA_LOW = _memoized(pk.OmahaEightOrBetterLowHand)


HAND_TYPES: dict[Variant, tuple[type[pk.Hand], ...]] = {
    Variant.HOLDEM: (_HIGH,),
    Variant.OMAHA: (_OMAHA_HIGH,),
    Variant.OMAHA_HI_LO: (_OMAHA_HIGH, _OMAHA_LOW),
}
