"""Decisions for bot seats until the ai service answers (a later issue): a plain, seeded policy
that only looks at what a seated player would see (its legal actions)."""

from __future__ import annotations

import random

from libs.poker.engine import LegalActions


def simple_bot_action(options: LegalActions, rng: random.Random) -> tuple[str, int]:
    """Mostly check or call, sometimes the minimum bet or raise, sometimes fold."""
    roll = rng.random()
    if options.can_raise and roll < 0.15:
        return ("bet" if options.is_bet else "raise"), options.min_to
    if options.can_check:
        return "check", 0
    if roll < 0.25:
        return "fold", 0
    return "call", 0
