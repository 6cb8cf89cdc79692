"""Property: over thousands of random spots from the engine (every variant and betting structure,
2 to 6 players, short and deep stacks, antes, straddles and bomb pots), every level answers a
legal action within the bounds, sees only its own hole cards and the board, and its view
survives the wire.

Hands are played by a random legal policy; at every decision point each level and baseline is
asked too (Hard with a small sample cap, to keep the run short). Derandomized: CI repeats it.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from libs.ai import Level, SeatView, decide, is_legal
from libs.ai.arena import command
from libs.ai.hard import HardSettings, hard
from libs.aiproto.reading import read_request
from libs.aiproto.requests import decide_request
from libs.poker import (
    DECK,
    BettingStructure,
    DealBoard,
    DealHands,
    HandConfig,
    Phase,
    Show,
    Variant,
    fixed_limit_blinds,
    position_blinds,
    showdown_turn,
    start_hand,
    step,
)
from libs.poker.evolve import replay
from tests.ai.test_view import cards_in

SPOTS = {"count": 0, "hard_max_seconds": 0.0}


@dataclass(frozen=True)
class Setup:
    variant: Variant
    structure: BettingStructure
    stacks: tuple[int, ...]
    ante: int
    straddle: bool
    seed: int
    bomb_pot: bool = False  # antes only, no preflop betting: the first decision is on the flop


@st.composite
def setups(draw: st.DrawFn) -> Setup:
    players = draw(st.integers(2, 6))
    stacks = tuple(draw(st.lists(st.integers(60, 40_000), min_size=players, max_size=players)))
    return Setup(
        variant=draw(st.sampled_from(Variant)),
        structure=draw(st.sampled_from(BettingStructure)),
        stacks=stacks,
        ante=draw(st.sampled_from((0, 0, 10))),
        straddle=players > 2 and draw(st.booleans()),
        seed=draw(st.integers(0, 2**32)),
        bomb_pot=draw(st.sampled_from((False, False, False, True))),
    )


def hand_config(s: Setup) -> HandConfig:
    n = len(s.stacks)
    if s.bomb_pot:
        return HandConfig(s.variant, s.structure, (0,) * n, (100,) * n, 100, bomb_pot=True)
    if s.structure is BettingStructure.FIXED_LIMIT:
        sb, bb = fixed_limit_blinds(100)
        blinds = position_blinds(n, sb, bb)
    else:
        blinds = position_blinds(n, 50, 100, 200 if s.straddle else 0)
    return HandConfig(s.variant, s.structure, blinds, (s.ante,) * n if s.ante else ())


def check_every_level(view: SeatView, seed: int) -> None:
    others = set(range(52)) - set(view.hole) - set(view.board)
    assert not cards_in(view) & others
    assert read_request(decide_request(view, Level.HARD, seed, 50)).view == view
    for level in Level:
        if level is Level.HARD:
            started = time.perf_counter()
            decision = hard(view, seed, 5.0, settings=HardSettings(max_samples=150))
            SPOTS["hard_max_seconds"] = max(
                SPOTS["hard_max_seconds"], time.perf_counter() - started
            )
            assert decision.samples <= 150
        else:
            decision = decide(view, level, seed)
        assert is_legal(view.options, decision), (level, view.options, decision)
    SPOTS["count"] += 1


@settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(setups())
def test_every_level_answers_legally_at_random_spots(setup: Setup) -> None:
    from libs.ai import public_action, seat_view
    from libs.poker import StreetDealt

    rng = random.Random(setup.seed)
    deck = list(DECK)
    rng.shuffle(deck)
    config = hand_config(setup)
    opening = start_hand(config, setup.stacks)
    state = replay(opening)
    street = 0
    actions = [a for a in (public_action(e, 0) for e in opening) if a is not None]
    k = setup.variant.hole_card_count
    n = len(setup.stacks)
    holes = tuple(tuple(deck[p * k : (p + 1) * k]) for p in range(n))
    rest = deck[n * k :]
    state, _ = step(state, DealHands(holes))
    while not state.is_complete:
        if state.phase is Phase.BETTING and state.actor is not None:
            view = seat_view(state, state.actor, actions)
            check_every_level(view, rng.randrange(1, 2**62))
            mover = rng.choice([Level.RANDOM, Level.RANDOM, Level.CALL, Level.NORMAL])
            command_ = command(state.actor, decide(view, mover, rng.randrange(1, 2**62)))
        elif state.phase is Phase.DEALING_BOARD:
            size = 3 if not state.board else 1
            command_ = DealBoard(tuple(rest[1 : 1 + size]), rest[0])
            rest = rest[1 + size :]
        else:
            turn = showdown_turn(state)
            assert turn is not None
            command_ = Show(turn.player)
        state, events = step(state, command_)
        for event in events:
            if isinstance(event, StreetDealt):
                street = event.street
            action = public_action(event, street)
            if action is not None:
                actions.append(action)
