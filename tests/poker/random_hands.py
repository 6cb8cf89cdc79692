"""Random hands of every variant and betting structure, played to the end, for the property
tests: ``hand_setups`` draws a hand (variant, structure, 2-10 players, stacks - many of them
short, so blinds and antes are often posted all-in and many hands end in all-ins - optional
straddle, antes and rake, and a shuffled deck); ``play_hand`` drives it with random but legal
decisions drawn from ``legal_actions`` (and ``showdown_turn`` at showdown) and records every
step. The examples are derandomized (a fixed seed, no example database) so CI is deterministic.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any, TypeVar

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from libs.poker import (
    DECK,
    AllIn,
    BetOrRaise,
    BettingStructure,
    Call,
    Card,
    Check,
    Command,
    DealBoard,
    DealHoleCards,
    Event,
    Fold,
    HandConfig,
    HandStarted,
    HandState,
    LegalActions,
    Muck,
    Phase,
    PokerError,
    RakeRule,
    Show,
    Variant,
    fixed_limit_blinds,
    legal_actions,
    position_blinds,
    replay,
    showdown_turn,
    start_hand,
    step,
)

T = TypeVar("T")

# 200 hands per property keeps the file well under a minute; HOLDEM_PROPERTY_EXAMPLES=5000 for
# a deeper (still deterministic) run.
EXAMPLES = int(os.environ.get("HOLDEM_PROPERTY_EXAMPLES", "200"))
BOARD_SIZES = {1: 3, 2: 1, 3: 1}
FIXED_LIMIT_BETS_PER_ROUND = 4  # RULES.md: one bet and three raises; preflop the blind is the bet

hand_settings = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# --------------------------------------------------------------------------- hand setups

# Built once: making a strategy per decision costs more than the engine step itself.
PERCENT = st.integers(0, 99)
ANY_INT = st.integers(0, 2**32)


@dataclass(frozen=True)
class HandSetup:
    config: HandConfig
    stacks: tuple[int, ...]
    deck: tuple[Card, ...]


@st.composite
def hand_setups(
    draw: st.DrawFn,
    structures: tuple[BettingStructure, ...] = tuple(BettingStructure),
    straddles: bool = True,
) -> HandSetup:
    variant = draw(st.sampled_from(Variant))
    structure = draw(st.sampled_from(structures))
    n = draw(st.integers(2, 10))
    if structure is BettingStructure.FIXED_LIMIT:
        small_bet = draw(st.integers(1, 20))
        sb, bb = fixed_limit_blinds(small_bet)
    else:
        bb = draw(st.integers(1, 20))
        sb = draw(st.integers(max(bb // 2, 1), bb))
    straddle = 2 * bb if straddles and n >= 3 and draw(st.booleans()) else 0
    blinds = position_blinds(n, sb, bb, straddle)
    ante_style = draw(st.sampled_from(("none", "none", "everyone", "big_blind")))
    dead_antes = False
    if ante_style == "everyone":
        antes = (draw(st.integers(1, max(bb // 2, 1))),) * n
    elif ante_style == "big_blind":
        big_blind_position = 0 if n == 2 else 1
        antes = tuple(bb if i == big_blind_position else 0 for i in range(n))
        dead_antes = True
    else:
        antes = ()
    rake = RakeRule()
    if draw(st.booleans()):
        rake = RakeRule(
            percent=draw(st.sampled_from((1.0, 2.5, 5.0, 10.0))),
            cap=draw(st.sampled_from((0, 1, 3, 10))),
            no_flop_no_drop=draw(st.booleans()),
        )
    # The table layer passes the big blind (fixed-limit: the small bet) as the minimum bet; the
    # HandConfig default would be the largest blind, i.e. the straddle when there is one.
    config = HandConfig(
        variant, structure, blinds, antes, min_bet=bb, rake=rake, dead_antes=dead_antes
    )
    # Many short stacks: all-in blinds and antes, all-ins on every street, side pots.
    # A third of the hands deep-stacked, where hands more often end before the river.
    if draw(PERCENT) < 33:
        stack = st.integers(40 * bb, 200 * bb)
    else:
        stack = st.one_of(
            st.integers(1, 3 * bb),
            st.integers(3 * bb, 25 * bb),
            st.integers(25 * bb, 150 * bb),
        )
    stacks = tuple(draw(st.lists(stack, min_size=n, max_size=n)))
    deck = tuple(draw(st.permutations(DECK)))
    return HandSetup(config, stacks, deck)


# --------------------------------------------------------------------------- playing a hand


@dataclass(frozen=True)
class Step:
    before: HandState
    command: Command
    after: HandState
    events: list[Event]


@dataclass
class PlayedHand:
    setup: HandSetup
    first_events: list[Event]  # HandStarted, antes, blinds
    steps: list[Step]

    @property
    def states(self) -> list[HandState]:
        """Every state of the hand, from the one waiting for hole cards to the final one."""
        return [self.steps[0].before] + [s.after for s in self.steps]

    @property
    def events(self) -> list[Event]:
        out = list(self.first_events)
        for s in self.steps:
            out.extend(s.events)
        return out

    @property
    def final(self) -> HandState:
        return self.steps[-1].after


_STATE_FIELDS = attrgetter(*(f.name for f in fields(HandState)))


def snapshot(state: HandState) -> tuple[Any, ...]:
    """Every field of ``state`` by value (independent of ``HandState.copy``)."""
    return tuple([tuple(v) if type(v) is list else v for v in _STATE_FIELDS(state)])


Draw = Callable[[st.SearchStrategy[T]], T]


def pick(draw: Draw[Any], span: int) -> int:
    """A number in ``[0, span]``: the bounds often, anything between otherwise."""
    r = draw(PERCENT)
    if r < 25 or span == 0:
        return 0
    if r < 45:
        return span
    value: int = draw(ANY_INT)
    return value % (span + 1)


@dataclass(frozen=True)
class Policy:
    """How often a player folds and bets or raises (percent), when offered; else check/call."""

    fold: int
    raise_: int


POLICIES = st.sampled_from([Policy(15, 35), Policy(35, 20), Policy(50, 10), Policy(5, 60)])


def choose_action(draw: Draw[Any], legal: LegalActions, policy: Policy) -> Command:
    """A random decision among the offered ones (raises to a random amount within the bounds)."""
    p = legal.player
    r = draw(PERCENT)
    if legal.can_raise and (r >= 100 - policy.raise_ or (not legal.can_fold and r < policy.fold)):
        to = legal.min_to + pick(draw, legal.max_to - legal.min_to)
        if to == legal.stack + legal.bet and r % 2:
            return AllIn(p)
        return BetOrRaise(p, to)
    if legal.can_fold and r < policy.fold:
        return Fold(p)
    if legal.can_check:
        return Check(p)
    return AllIn(p) if legal.call_amount == legal.stack and r % 2 else Call(p)


def play_hand(draw: Draw[Any], setup: HandSetup) -> PlayedHand:
    first_events = start_hand(setup.config, setup.stacks)
    started = first_events[0]
    assert isinstance(started, HandStarted)
    state = replay(first_events)
    deck = list(setup.deck)
    steps: list[Step] = []
    policy = draw(POLICIES)
    n = setup.config.player_count
    hole_count = setup.config.variant.hole_card_count
    for _ in range(1000):
        command: Command
        if state.phase is Phase.COMPLETE:
            break
        if state.phase is Phase.DEALING_HOLE:
            player = next(i for i in range(n) if not state.hole[i])
            command = DealHoleCards(player, tuple(deck[:hole_count]))
            del deck[:hole_count]
        elif state.phase is Phase.DEALING_BOARD:
            size = BOARD_SIZES[state.street + 1]
            command = DealBoard(tuple(deck[1 : 1 + size]), burn=deck[0])
            del deck[: 1 + size]
        elif state.phase is Phase.BETTING:
            legal = legal_actions(state)
            assert legal is not None, "a betting phase that waits for nobody"
            command = choose_action(draw, legal, policy)
        elif state.phase is Phase.SHOWDOWN:
            turn = showdown_turn(state)
            assert turn is not None, "a showdown that waits for nobody"
            r = draw(PERCENT)
            if turn.can_muck and r < 50:
                command = Muck(turn.player)
            else:
                shown = state.hole[turn.player] if r % 2 else None
                command = Show(turn.player, shown)
        else:
            raise AssertionError(f"the hand stopped in phase {state.phase}")
        before = snapshot(state)
        new, events = step(state, command)
        assert snapshot(state) == before, f"step({command}) changed its input state"
        steps.append(Step(state, command, new, events))
        state = new
    else:
        raise AssertionError("the hand did not finish in 1000 steps")
    return PlayedHand(setup, first_events, steps)


def chips_in_play(state: HandState) -> int:
    return sum(state.stacks) + sum(state.bets) + state.pot + state.rake


def rejected(state: HandState, command: Command, before: tuple[Any, ...] | None = None) -> str:
    """Assert ``command`` raises a PokerError and leaves ``state`` as it was; return the code.

    ``before`` is ``snapshot(state)`` when the caller already has it.
    """
    if before is None:
        before = snapshot(state)
    try:
        step(state, command)
    except PokerError as error:
        assert snapshot(state) == before, f"rejected {command} changed the state"
        assert error.code
        return error.code
    raise AssertionError(f"{command} was accepted in {state.phase.value}: {legal_actions(state)}")
