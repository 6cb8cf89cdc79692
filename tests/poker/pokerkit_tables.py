"""The tables of the differential play: ``random_table`` draws blinds, antes and stacks from a
seed (short, medium and deep stacks mixed, so all-ins are common), and ``pokerkit_state`` sets the
same hand up in PokerKit (PokerKit player i is our position i).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pokerkit as pk

from libs.poker import (
    BettingStructure,
    HandConfig,
    Variant,
    fixed_limit_blinds,
    position_blinds,
)
from tests.poker.pokerkit_hands import HAND_TYPES

# PokerKit posts forced bets, collects bets, kills hopeless hands and pulls chips; we deal every
# card, burn, show (everybody shows: see ``_finish``) and push chips ourselves.
AUTOMATIONS = (
    pk.Automation.ANTE_POSTING,
    pk.Automation.BET_COLLECTION,
    pk.Automation.BLIND_OR_STRADDLE_POSTING,
    pk.Automation.HAND_KILLING,
    pk.Automation.CHIPS_PULLING,
)


PK_STRUCTURES = {
    BettingStructure.NO_LIMIT: pk.BettingStructure.NO_LIMIT,
    BettingStructure.POT_LIMIT: pk.BettingStructure.POT_LIMIT,
    BettingStructure.FIXED_LIMIT: pk.BettingStructure.FIXED_LIMIT,
}


def by_role(values: Sequence[int]) -> tuple[int, ...]:
    """Our per-position forced bets in PokerKit's order (heads-up reversed, as PHH does)."""
    return tuple(reversed(values)) if len(values) == 2 else tuple(values)


def pokerkit_streets(config: HandConfig) -> tuple[pk.Street, ...]:
    """Hold'em / Omaha streets, exactly as PokerKit's ``Holdem`` games define them."""
    fixed = config.structure is BettingStructure.FIXED_LIMIT
    cap = 4 if fixed else None
    small = config.min_bet
    big = config.big_bet if fixed else config.min_bet
    hole = (False,) * config.variant.hole_card_count
    position = pk.Opening.POSITION
    return (
        pk.Street(False, hole, 0, False, position, small, cap),
        pk.Street(True, (), 3, False, position, small, cap),
        pk.Street(True, (), 1, False, position, big, cap),
        pk.Street(True, (), 1, False, position, big, cap),
    )


def pokerkit_state(config: HandConfig, stacks: Sequence[int]) -> pk.State:
    """A PokerKit state for the same hand: PokerKit player i is our position i.

    Built from the generic ``pokerkit.State`` for all nine games (the presets are the same
    construction; fixed-limit Omaha hi-lo is built with fixed-limit betting and a cap of four,
    unlike PokerKit 0.7.7's preset, which uses pot-limit betting).
    """
    return pk.State(
        AUTOMATIONS,
        pk.Deck.STANDARD,
        HAND_TYPES[config.variant],
        pokerkit_streets(config),
        PK_STRUCTURES[config.structure],
        not config.dead_antes,
        by_role(config.antes),
        by_role(config.blinds),
        0,
        tuple(stacks),
        config.player_count,
        mode=pk.Mode.TOURNAMENT,
    )


def random_table(
    rng: random.Random, variant: Variant, structure: BettingStructure, n: int
) -> tuple[HandConfig, tuple[int, ...]]:
    """Blinds, antes and stacks: short, medium and deep stacks mixed, so all-ins are common.

    Every stack is larger than its ante plus blind (no blind is posted short: choice 3).
    Heads-up the blinds differ: with equal blinds PokerKit lets the big blind act first preflop
    (it breaks the tie by player index), while the button acts first by RULES.md.
    """
    if structure is BettingStructure.FIXED_LIMIT:
        small_bets = (2, 2, 4, 5, 10, 10, 20, 25, 50, 3) + (() if n == 2 else (1,))
        small_bet = rng.choice(small_bets)
        sb, bb = fixed_limit_blinds(small_bet)
        min_bet = small_bet
    else:
        bb = rng.choice((2, 2, 4, 5, 10, 10, 20, 25, 50, 100, 3))
        sb = rng.choice((bb // 2, bb // 2, bb // 2, max(1, bb // 3), rng.randint(1, bb)))
        sb = max(sb, 1)
        if n == 2 and sb == bb:
            sb = bb - 1
        min_bet = bb
    blinds = position_blinds(n, sb, bb)
    antes: tuple[int, ...] = ()
    dead = False
    roll = rng.random()
    if roll < 0.25:  # the same ante for everybody, live or dead
        ante = rng.randint(1, max(1, bb // 2))
        antes = (ante,) * n
        dead = rng.random() < 0.4
    elif roll < 0.35:  # big-blind ante (dead)
        big_blind_position = 0 if n == 2 else 1
        antes = tuple(bb if i == big_blind_position else 0 for i in range(n))
        dead = True
    config = HandConfig(
        variant=variant,
        structure=structure,
        blinds=blinds,
        antes=antes,
        min_bet=min_bet,
        dead_antes=dead,
    )
    unit = max(bb, 1)
    depth = rng.random()
    stacks = []
    for i in range(n):
        floor = config.blinds[i] + config.antes[i] + 1
        kind = rng.random()
        if kind < 0.15 + 0.3 * depth:
            stack = rng.randint(floor, floor + 6 * unit)
        elif kind < 0.75:
            stack = rng.randint(8 * unit, 60 * unit)
        else:
            stack = rng.randint(60 * unit, 300 * unit)
        stacks.append(max(stack, floor))
    return config, tuple(stacks)
