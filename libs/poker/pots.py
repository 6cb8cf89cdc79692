"""Main and side pots, and splitting a pot between tied winners.

Pot building follows the usual rule (and PokerKit's): every distinct amount put in caps a pot;
a player is eligible for the pots up to what they put in; pots with the same eligible players are
one pot. Odd chips go one at a time to the winners in position order, position 0 being the first
seat left of the button.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from .config import RakeRule


@dataclass(frozen=True, slots=True)
class Pot:
    amount: int
    eligible: tuple[int, ...]


def build_pots(
    committed: Sequence[int],
    antes: Sequence[int],
    contenders: Sequence[bool],
    dead_antes: bool = False,
    dead: Sequence[int] = (),
) -> list[Pot]:
    """Pots from what each position put in; ``contenders`` marks who can still win. ``dead``
    money (dead blinds, and antes when ``dead_antes``) goes whole into the main pot."""
    n = len(committed)
    dead = list(dead) or [0] * n
    if dead_antes:
        contributions = [committed[i] - antes[i] - dead[i] for i in range(n)]
        amount = sum(antes) + sum(dead)
    else:
        contributions = [committed[i] - dead[i] for i in range(n)]
        amount = sum(dead)
    pots: list[Pot] = []
    previous = 0
    for level in sorted(set(contributions)):
        for i in range(n):
            if contributions[i] >= level:
                amount += level - previous
        eligible = tuple(i for i in range(n) if contributions[i] >= level and contenders[i])
        while pots and pots[-1].eligible == eligible:
            amount += pots.pop().amount
        if amount:
            if not eligible and pots:
                # Nobody left who paid this much (cannot happen after uncalled bets are
                # returned); keep the chips in the pot below rather than lose them.
                last = pots.pop()
                pots.append(Pot(last.amount + amount, last.eligible))
            else:
                pots.append(Pot(amount, eligible))
        amount = 0
        previous = level
    return pots


def split_evenly(amount: int, winners: Sequence[int]) -> list[tuple[int, int]]:
    """Split ``amount`` between ``winners``; odd chips one each in position order."""
    ordered = sorted(winners)
    share, odd = divmod(amount, len(ordered))
    return [(p, share + (1 if k < odd else 0)) for k, p in enumerate(ordered)]


def rake_amount(total: int, rule: RakeRule, flop_seen: bool) -> int:
    """Rake for a hand whose pots total ``total`` chips."""
    if rule.percent <= 0 or (rule.no_flop_no_drop and not flop_seen):
        return 0
    raked = int(total * Fraction(str(rule.percent)) / 100)
    return min(raked, rule.cap) if rule.cap else raked


def take_rake(pots: list[Pot], rake: int) -> list[Pot]:
    """Remove ``rake`` chips from the pots, main pot first."""
    out: list[Pot] = []
    for pot in pots:
        taken = min(rake, pot.amount)
        rake -= taken
        if pot.amount - taken:
            out.append(Pot(pot.amount - taken, pot.eligible))
    return out
