"""The pay-out as the rules state it, recomputed from neither engine: main and side pots from what
each player put in (``reference_pots``), the hands ranked by PokerKit's hand classes, each pot
paid to its best hands (odd chips and hi-lo side pots under our rules or under PokerKit's), and
the shown hands PokerKit kills before paying (``hopeless_hands``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pokerkit as pk

from libs.poker import (
    Variant,
)
from tests.poker.pokerkit_hands import HAND_TYPES, PK_CARDS


@dataclass(frozen=True)
class RefPot:
    amount: int
    eligible: tuple[int, ...]


def reference_pots(
    contributions: Sequence[int],
    dead_antes: Sequence[int],
    contenders: Sequence[bool],
) -> list[RefPot]:
    """Main and side pots from what each player put in (``dead_antes`` go to the main pot).

    Every distinct amount caps a pot; eligible are the contenders who put in at least that much;
    adjacent pots with the same eligible players are one pot.
    """
    live = [c - d for c, d in zip(contributions, dead_antes, strict=True)]
    pots: list[RefPot] = []
    carried = sum(dead_antes)
    previous = 0
    for level in sorted(set(live)):
        amount = carried + sum(min(c, level) - min(c, previous) for c in live)
        carried = 0
        eligible = tuple(i for i, c in enumerate(live) if c >= level and contenders[i])
        if pots and pots[-1].eligible == eligible:
            amount += pots.pop().amount
        if amount:
            assert eligible, f"chips {amount} above level {previous} with nobody to win them"
            pots.append(RefPot(amount, eligible))
        previous = level
    return pots


@dataclass(frozen=True)
class Hands:
    """Each contender's high hand and qualifying low (None: no low), by PokerKit's classes."""

    high: dict[int, pk.Hand]
    low: dict[int, pk.Hand | None]
    hi_lo: bool


def evaluate_hands(
    variant: Variant, holes: Sequence[Sequence[int]], board: Sequence[int], players: Sequence[int]
) -> Hands:
    board_cards = [PK_CARDS[c] for c in board]
    high_type, *low_types = HAND_TYPES[variant]
    high: dict[int, pk.Hand] = {}
    low: dict[int, pk.Hand | None] = {}
    for p in players:
        hole = [PK_CARDS[c] for c in holes[p]]
        high[p] = high_type.from_game(hole, board_cards)
        if low_types:
            try:
                low[p] = low_types[0].from_game(hole, board_cards)
            except ValueError:
                low[p] = None
    return Hands(high, low, bool(low_types))


def _split(amount: int, winners: Sequence[int], one_each: bool) -> dict[int, int]:
    """Our rule (``one_each``): odd chips one at a time from the lowest position; PokerKit's:
    the whole remainder to the first winner."""
    ordered = sorted(winners)
    share, odd = divmod(amount, len(ordered))
    if one_each:
        return {p: share + (1 if k < odd else 0) for k, p in enumerate(ordered)}
    return {p: share + (odd if k == 0 else 0) for k, p in enumerate(ordered)}


def _best(hands: dict[int, pk.Hand], players: Sequence[int]) -> list[int]:
    top = max(hands[p] for p in players)
    return [p for p in players if hands[p] == top]


def reference_payout(
    pots: Sequence[RefPot],
    hands: Hands,
    *,
    odd_chips_one_each: bool,
    low_per_pot: bool,
    low_contenders: Sequence[int],
    n: int,
) -> list[int]:
    """What each player receives. ``odd_chips_one_each``: our choice 4 (else PokerKit's rule).

    ``low_per_pot``: our choice 5, a pot is split only if one of its own eligible players has a
    qualifying low. Otherwise (PokerKit) every pot is split when any of ``low_contenders`` has
    one, and a pot none of whose players has a low gives its low half to all of them.
    """
    paid = [0] * n
    for pot in pots:
        eligible = pot.eligible
        if len(eligible) == 1:
            paid[eligible[0]] += pot.amount
            continue
        shares: list[tuple[int, list[int]]] = []
        high_winners = _best(hands.high, eligible)
        lows = [p for p in eligible if hands.low.get(p) is not None]
        if low_per_pot:
            split = hands.hi_lo and bool(lows)
        else:
            split = hands.hi_lo and any(hands.low.get(p) is not None for p in low_contenders)
        if not split:
            shares.append((pot.amount, high_winners))
        else:
            low_half = pot.amount // 2
            shares.append((pot.amount - low_half, high_winners))
            if lows:
                top = max(hands.low[p] for p in lows)  # type: ignore[type-var]
                low_winners = [p for p in lows if hands.low[p] == top]
            else:  # PokerKit: no low among them, every player ties for the low half
                low_winners = list(eligible)
            shares.append((low_half, low_winners))
        for amount, winners in shares:
            for p, chips in _split(amount, winners, odd_chips_one_each).items():
                paid[p] += chips
    return paid


def hopeless_hands(pots: Sequence[RefPot], hands: Hands) -> set[int]:
    """The players PokerKit kills before paying: those whose hand (high, or qualifying low in
    hi-lo) is not at least the best of its kind among the players of some pot they are in."""
    kinds: list[dict[int, pk.Hand | None]] = [dict(hands.high)]
    if hands.hi_lo:
        kinds.append(dict(hands.low))
    alive: set[int] = set()
    for pot in pots:
        for kind in kinds:
            made = {p: hand for p in pot.eligible if (hand := kind.get(p)) is not None}
            if made:
                best = max(made.values())
                alive.update(p for p, hand in made.items() if not hand < best)
    return {p for pot in pots for p in pot.eligible} - alive
