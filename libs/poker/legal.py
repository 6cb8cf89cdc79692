"""What the player to act may do (``legal_actions``: the actions with their amount bounds), whose
turn it is to show or muck (``showdown_turn``), and the pots' shape (``pots_of``).

Pure queries on a ``HandState``; ``engine`` checks every command by the same rules
(``raise_denial``, ``raise_bounds``, ``can_muck``), so what a player is offered and what the
engine accepts never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from . import errors as E
from .config import BettingStructure
from .pots import Pot, build_pots
from .state import HandState, Phase

FIXED_LIMIT_BETS_PER_ROUND = 4  # one bet and three raises (preflop the big blind is the bet)


class LegalActions(NamedTuple):
    """What the player to act may do. Amounts are totals on this street (``to``).

    (A named tuple: immutable, and cheap to build on the hot path.)
    """

    player: int
    can_fold: bool
    can_check: bool
    can_call: bool
    call_amount: int  # chips a call adds (may be a short all-in call)
    can_raise: bool  # bet (``is_bet``) or raise
    is_bet: bool
    min_to: int  # 0 when raising is not allowed
    max_to: int
    stack: int
    bet: int  # what the player already has in front of them on this street


@dataclass(frozen=True, slots=True)
class ShowdownTurn:
    """The player whose turn it is to show or muck."""

    player: int
    can_muck: bool


def raise_denial(s: HandState, p: int) -> tuple[str, str] | None:
    """Why ``p`` may not bet or raise now (code, message), or None if they may."""
    current = s.current_bet
    bets = s.bets
    owed = current - bets[p]
    stacks = s.stacks
    if stacks[p] <= owed:
        return E.CANNOT_RAISE, "you do not have chips beyond the call"
    config = s.config
    if config.structure is BettingStructure.FIXED_LIMIT and (
        s.raise_count >= FIXED_LIMIT_BETS_PER_ROUND
    ):
        return E.CAP_REACHED, "betting is capped (one bet and three raises): call or fold"
    if s.acted[p] and owed < max(s.increment, config.street_bet(s.street)):
        return (
            E.ACTION_NOT_REOPENED,
            "an all-in for less than a full raise does not reopen the betting: call or fold",
        )
    folded = s.folded
    for j in range(len(stacks)):
        if j != p and not folded[j] and stacks[j] + bets[j] > current:
            return None
    return E.CANNOT_RAISE, "every other player is all-in or has folded: call or fold"


def raise_bounds(s: HandState, p: int) -> tuple[int, int]:
    all_in = s.stacks[p] + s.bets[p]
    config = s.config
    structure = config.structure
    current = s.current_bet
    street_bet = config.street_bet(s.street)
    increment = s.increment
    min_to = min(all_in, current + (increment if increment > street_bet else street_bet))
    if structure is BettingStructure.NO_LIMIT:
        return min_to, all_in
    if structure is BettingStructure.FIXED_LIMIT:
        return min_to, min_to
    pot_after_call = s.pot + sum(s.bets) + (current - s.bets[p])
    return min_to, min(all_in, max(min_to, current + pot_after_call))


def legal_actions(s: HandState) -> LegalActions | None:
    """Exactly what the player to act may do, with amount bounds; None outside betting."""
    d = s.__dict__
    cached: LegalActions | None = d.get("_legal")
    if cached is not None:
        return cached
    actors = s.actors
    if s.phase is not Phase.BETTING or not actors:
        return None
    p = actors[0]
    bet = s.bets[p]
    stack = s.stacks[p]
    current = s.current_bet
    owed = current - bet
    if raise_denial(s, p) is None:
        min_to, max_to = raise_bounds(s, p)
        can_raise = True
    else:
        min_to = max_to = 0
        can_raise = False
    # States are never changed once built, so the answer is kept with the state: ``step`` then
    # reuses the bounds a client just asked for instead of computing them again.
    d["_legal"] = legal = LegalActions(
        p,  # player
        owed > 0,  # can_fold
        owed <= 0,  # can_check
        owed > 0,  # can_call
        (owed if owed < stack else stack) if owed > 0 else 0,  # call_amount
        can_raise,
        current == 0,  # is_bet
        min_to,
        max_to,
        stack,
        bet,
    )
    return legal


def showdown_turn(s: HandState) -> ShowdownTurn | None:
    """Whose turn it is to show or muck, else None."""
    if s.phase is not Phase.SHOWDOWN or not s.showdown_queue:
        return None
    p = s.showdown_queue[0]
    return ShowdownTurn(p, can_muck(s, p))


def contenders(s: HandState) -> list[bool]:
    return [not s.folded[i] and not s.mucked[i] for i in range(len(s.stacks))]


def pots_of(s: HandState) -> list[Pot]:
    """The pots' shape: who paid how much and did not fold. Mucking does not change it (each pot
    is still awarded separately), it only takes the mucked hand out of contention."""
    folded = s.folded
    return build_pots(s.committed, s.antes, [not f for f in folded], s.config.dead_antes, s.dead)


def can_muck(s: HandState, p: int) -> bool:
    """A player may muck unless they are the last one left in some pot (they win it unshown)."""
    return all(
        any(q != p and not s.mucked[q] for q in pot.eligible)
        for pot in pots_of(s)
        if p in pot.eligible
    )
