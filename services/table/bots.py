"""Decisions for bot seats until the ai service answers (a later issue): a plain, seeded policy
that only looks at what a seated player would see (its legal actions)."""

from __future__ import annotations

import random

from libs.poker.engine import LegalActions
from libs.table.commands import PlayerAction


def simple_bot_action(options: LegalActions, rng: random.Random) -> tuple[PlayerAction, int]:
    """Mostly check or call, sometimes the minimum bet or raise, sometimes fold."""
    roll = rng.random()
    if options.can_raise and roll < 0.15:
        return (PlayerAction.BET if options.is_bet else PlayerAction.RAISE), options.min_to
    if options.can_check:
        return PlayerAction.CHECK, 0
    if roll < 0.25:
        return PlayerAction.FOLD, 0
    return PlayerAction.CALL, 0
