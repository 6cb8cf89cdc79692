"""Property tests: random hands of every variant and betting structure, played to the end.

A hand setup (variant, structure, 2-10 players, stacks - many of them short, so blinds and antes
are often posted all-in and many hands end in all-ins - optional straddle, antes and rake, and a
shuffled deck) is drawn by ``hand_setups``; ``play_hand`` then drives it with random but legal
decisions drawn from ``legal_actions`` (and ``showdown_turn`` at showdown) and records every step.
Each test checks one rule of /work/shared/RULES.md over the recorded steps.

The examples are derandomized (a fixed seed, no example database) so CI is deterministic. Engine
bugs the properties found have minimal reproductions at the end of the file.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any, TypeVar

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from libs.poker import (
    DECK,
    ActionKind,
    ActionTaken,
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
    HandVoided,
    LegalActions,
    Muck,
    Phase,
    PokerError,
    RakeRule,
    Show,
    Variant,
    VoidHand,
    evolve,
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
_PERCENT = st.integers(0, 99)
_ANY = st.integers(0, 2**32)


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
    if draw(_PERCENT) < 33:
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
    r = draw(_PERCENT)
    if r < 25 or span == 0:
        return 0
    if r < 45:
        return span
    value: int = draw(_ANY)
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
    r = draw(_PERCENT)
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
            r = draw(_PERCENT)
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


# --------------------------------------------------------------------------- properties


@hand_settings
@given(hand_setups(), st.data())
def test_chips_are_conserved_in_every_hand(setup: HandSetup, data: st.DataObject) -> None:
    hand = play_hand(data.draw, setup)
    total = sum(setup.stacks)
    # After every single event, not only after every command.
    state = replay(hand.first_events)
    assert chips_in_play(state) == total
    for s in hand.steps:
        for event in s.events:
            state = evolve(state, event)
            assert chips_in_play(state) == total, f"after {event}"
            assert min(state.stacks) >= 0, f"negative stack after {event}"
            assert min(state.bets) >= 0, f"negative bet after {event}"
            assert state.pot >= 0, f"negative pot after {event}"
        assert chips_in_play(s.after) == total
    final = hand.final
    assert final.is_complete
    assert sum(final.stacks) + final.rake == total
    assert final.pot == 0 and not any(final.bets)
    assert min(final.stacks) >= 0
    cap = setup.config.rake.cap
    if cap:
        assert final.rake <= cap


@hand_settings
@given(hand_setups(), st.data())
def test_every_offered_action_is_accepted(setup: HandSetup, data: st.DataObject) -> None:
    hand = play_hand(data.draw, setup)
    for state in hand.states:
        legal = legal_actions(state)
        if legal is None:
            continue
        p = legal.player
        offered: list[Command] = []
        if legal.can_fold:
            offered.append(Fold(p))
        if legal.can_check:
            offered.append(Check(p))
        if legal.can_call:
            offered.append(Call(p))
        if legal.can_raise:
            assert legal.min_to <= legal.max_to <= legal.stack + legal.bet
            assert legal.min_to > state.current_bet, "a raise must go above the current bet"
            middle = data.draw(st.integers(legal.min_to, legal.max_to))
            offered += [BetOrRaise(p, t) for t in {legal.min_to, legal.max_to, middle}]
        assert offered, "the player to act is offered nothing"
        assert legal.can_check != legal.can_call
        for command in offered:
            before = snapshot(state)
            new, _ = step(state, command)  # must not raise
            assert snapshot(state) == before
            assert chips_in_play(new) == sum(setup.stacks)


@hand_settings
@given(hand_setups(), st.data())
def test_amounts_outside_the_bounds_are_rejected(setup: HandSetup, data: st.DataObject) -> None:
    hand = play_hand(data.draw, setup)
    for state in hand.states:
        legal = legal_actions(state)
        if legal is None or not legal.can_raise:
            continue
        before = snapshot(state)
        p = legal.player
        call_level = legal.bet + legal.call_amount
        amounts = {legal.max_to + 1, legal.max_to + 1 + data.draw(_ANY) % 1000}
        if legal.min_to - 1 > call_level:
            amounts.add(legal.min_to - 1)
            amounts.add(call_level + 1 + data.draw(_ANY) % (legal.min_to - 1 - call_level))
        for to in amounts:
            rejected(state, BetOrRaise(p, to), before)


def _betting_commands(q: int, to: int) -> tuple[Command, ...]:
    return (Fold(q), Check(q), Call(q), AllIn(q), BetOrRaise(q, to))


@hand_settings
@given(hand_setups(), st.data())
def test_actions_not_offered_are_rejected(setup: HandSetup, data: st.DataObject) -> None:
    hand = play_hand(data.draw, setup)
    n = setup.config.player_count
    for k, state in enumerate(hand.states):
        before = snapshot(state)
        legal = legal_actions(state)
        if legal is None:
            # Nobody is to act: no betting command is accepted from anyone.
            for q in range(n):
                rejected(state, _betting_commands(q, 10**6)[(q + k) % 5], before)
            turn = showdown_turn(state)
            if turn is not None:
                if not turn.can_muck:
                    rejected(state, Muck(turn.player), before)
                for q in range(n):
                    if q != turn.player:
                        rejected(state, (Show(q), Muck(q))[(q + k) % 2], before)
            continue
        p = legal.player
        if not legal.can_check:
            assert rejected(state, Check(p), before)
        if not legal.can_fold:
            assert rejected(state, Fold(p), before)
        if not legal.can_call:
            assert rejected(state, Call(p), before)
        if not legal.can_raise:
            for to in {
                legal.stack + legal.bet,
                state.current_bet + setup.config.street_bet(state.street),
                state.current_bet + 1,
            }:
                rejected(state, BetOrRaise(p, to), before)
        # Out of turn: every other player, one kind of command each (a different one each step).
        to = legal.min_to or state.current_bet + setup.config.street_bet(state.street)
        for q in range(n):
            if q != p:
                code = rejected(state, _betting_commands(q, to)[(q + k) % 5], before)
                assert code == "NOT_YOUR_TURN"
        # Dealer and showdown commands are not accepted while a player is to act.
        rejected(state, DealBoard(tuple(setup.deck[-3:])), before)
        rejected(state, Show(p), before)
        rejected(state, Muck(p), before)
    # Nothing is accepted once the hand is over, except a voluntary show.
    final = hand.final
    for q in range(n):
        for command in (Fold(q), Check(q), Call(q), Muck(q)):
            rejected(final, command)
    rejected(final, VoidHand("too late"))


@hand_settings
@given(hand_setups(), st.data())
def test_replaying_the_events_rebuilds_the_state(setup: HandSetup, data: st.DataObject) -> None:
    hand = play_hand(data.draw, setup)
    # Folding each step's events with ``evolve`` gives the state ``step`` returned, every time.
    state = replay(hand.first_events)
    for s in hand.steps:
        assert snapshot(state) == snapshot(s.before)
        for event in s.events:
            state = evolve(state, event)
        assert snapshot(state) == snapshot(s.after), f"after {s.command}"
    rebuilt = replay(hand.events)
    final = hand.final
    assert rebuilt.stacks == final.stacks
    assert rebuilt.board == final.board
    assert rebuilt.phase is final.phase
    assert rebuilt.pot == final.pot
    assert snapshot(rebuilt) == snapshot(final)


@hand_settings
@given(hand_setups(structures=(BettingStructure.FIXED_LIMIT,), straddles=False), st.data())
def test_fixed_limit_raises_are_one_street_bet_and_capped(
    setup: HandSetup, data: st.DataObject
) -> None:
    hand = play_hand(data.draw, setup)
    config = setup.config
    for state in hand.states:
        legal = legal_actions(state)
        if legal is None or not legal.can_raise:
            continue
        full = state.current_bet + config.street_bet(state.street)
        all_in = legal.stack + legal.bet
        assert legal.min_to == legal.max_to == min(full, all_in)
    # Count bets and raises per round from the events; preflop the big blind is the first bet.
    counts = {0: 1}
    for s in hand.steps:
        for event in s.events:
            if isinstance(event, ActionTaken) and event.kind in (ActionKind.BET, ActionKind.RAISE):
                street = s.before.street
                counts[street] = counts.get(street, 0) + 1
                assert counts[street] <= FIXED_LIMIT_BETS_PER_ROUND, (
                    f"bet number {counts[street]} on street {street}"
                )
                bet_before = s.before.current_bet
                assert event.to == bet_before + config.street_bet(street) or event.all_in


@hand_settings
@given(hand_setups(structures=(BettingStructure.POT_LIMIT,)), st.data())
def test_pot_limit_max_never_exceeds_the_pot(setup: HandSetup, data: st.DataObject) -> None:
    hand = play_hand(data.draw, setup)
    for state in hand.states:
        legal = legal_actions(state)
        if legal is None or not legal.can_raise:
            continue
        owed = state.current_bet - legal.bet
        pot_after_call = state.pot + sum(state.bets) + owed
        limit = state.current_bet + pot_after_call
        # The minimum bet or raise is always allowed, even when it is more than the pot.
        assert legal.max_to <= max(limit, legal.min_to)
        assert legal.max_to == min(legal.stack + legal.bet, max(limit, legal.min_to))


@hand_settings
@given(hand_setups(), st.data())
def test_voiding_a_hand_returns_every_starting_stack(setup: HandSetup, data: st.DataObject) -> None:
    hand = play_hand(data.draw, setup)
    start = setup.stacks
    replayed = replay(hand.first_events)
    for k, state in enumerate(hand.states[:-1]):
        new, events = step(state, VoidHand("server fault"))
        assert new.stacks == list(start)
        assert new.is_complete and new.pot == 0 and not any(new.bets)
        assert len(events) == 1 and isinstance(events[0], HandVoided)
        assert events[0].stacks == start
        # The void is an event like any other: folding it into the replayed hand agrees.
        assert evolve(replayed, events[0]).stacks == list(start)
        for event in hand.steps[k].events:
            replayed = evolve(replayed, event)
    rejected(hand.final, VoidHand("after the end"))


def _round_start_positions(hand: PlayedHand) -> list[tuple[HandState, list[int]]]:
    """For every betting round with a decision: its opening state and who acted, in order."""
    rounds: list[tuple[HandState, list[int]]] = []
    current: tuple[HandState, list[int]] | None = None
    for s in hand.steps:
        if isinstance(s.command, (Fold, Check, Call, BetOrRaise, AllIn)):
            if current is None or current[0].street != s.before.street:
                current = (s.before, [])
                rounds.append(current)
            current[1].append(s.command.player)
    return rounds


@hand_settings
@given(hand_setups(), st.data())
def test_action_starts_left_of_the_big_blind_then_left_of_the_button(
    setup: HandSetup, data: st.DataObject
) -> None:
    """Preflop left of the big blind (of the straddle); heads-up the button (the small blind)
    acts first preflop and last after the flop; later streets from the first seat left of the
    button (position 0)."""
    hand = play_hand(data.draw, setup)
    n = setup.config.player_count
    blinds = setup.config.blinds
    # Heads-up the button (position 1) posts the small blind and position 0 the big blind.
    big_blind = 0 if n == 2 else 2 if blinds[2] > blinds[1] else 1
    for opening, actors in _round_start_positions(hand):
        start = (big_blind + 1) % n if opening.street == 0 else 0
        first = min(actors, key=lambda q: (q - start) % n)
        assert actors[0] == first, (
            f"street {opening.street}: {actors[0]} acted first, but {first} (nearer to "
            f"position {start}) acted in the same round"
        )


@hand_settings
@given(hand_setups(structures=(BettingStructure.NO_LIMIT, BettingStructure.POT_LIMIT)), st.data())
def test_a_short_all_in_does_not_reopen_the_betting(setup: HandSetup, data: st.DataObject) -> None:
    """A player who already acted may raise again only when the bet they face has gone up by at
    least a full raise since (several short all-ins may add up to one); a player still to act may
    always raise. The full raise is the largest bet or raise of the round, at least the minimum
    bet (preflop: the largest blind, i.e. the straddle if any)."""
    hand = play_hand(data.draw, setup)
    config = setup.config
    level: dict[int, int] = {}  # what the bet was when each player last acted this round
    full_at: dict[int, int] = {}  # the full raise size then
    current = full = 0
    street = -1
    for s in hand.steps:
        state = s.before
        if state.phase is not Phase.BETTING:
            continue
        if state.street != street:
            street = state.street
            level.clear()
            full_at.clear()
            full = max(config.street_bet(street), max(config.blinds) if street == 0 else 0)
            current = max(config.blinds) if street == 0 else 0
        legal = legal_actions(state)
        assert legal is not None
        p = legal.player
        owed = current - legal.bet
        others_can_call = any(
            j != p and not state.folded[j] and state.stacks[j] + state.bets[j] > current
            for j in range(config.player_count)
        )
        if legal.stack > owed and others_can_call:
            if p not in level:
                assert legal.can_raise, f"position {p} has not acted yet and may raise"
            elif current - level[p] >= full_at[p]:
                assert legal.can_raise, (
                    f"position {p} acted at {level[p]} and now faces {current}: reopened"
                )
            elif level[p] > 0:
                assert not legal.can_raise, (
                    f"position {p} acted at {level[p]} and faces {current}, less than a full "
                    f"raise ({full_at[p]}) more: the betting is not reopened for them"
                )
        for event in s.events:
            if isinstance(event, ActionTaken) and event.kind in (ActionKind.BET, ActionKind.RAISE):
                if event.to - current >= full:
                    full = event.to - current
                current = event.to
        level[p] = current
        full_at[p] = full


# ------------------------------------------------------------------ found by the properties
# Minimal reproductions of engine bugs the properties above found (now fixed).


def _deal_all(state: HandState, deck: list[Card]) -> HandState:
    count = state.config.variant.hole_card_count
    for player in range(state.config.player_count):
        state, _ = step(state, DealHoleCards(player, tuple(deck[:count])))
        del deck[:count]
    return state


def test_heads_up_with_equal_blinds_the_button_acts_first_preflop() -> None:
    # Fixed-limit with a small bet of 1: fixed_limit_blinds(1) == (1, 1).
    sb, bb = fixed_limit_blinds(1)
    config = HandConfig(
        Variant.HOLDEM, BettingStructure.FIXED_LIMIT, position_blinds(2, sb, bb), min_bet=bb
    )
    state = _deal_all(replay(start_hand(config, (40, 40))), list(DECK))
    assert state.actor == 1  # the button (small blind) acts first preflop


def test_a_short_all_in_over_a_short_bet_does_not_reopen_the_betting() -> None:
    # 4 players, blinds 1/2 (minimum bet 2). Everyone limps; on the flop position 0 has 1 chip
    # left and position 2 has 2 chips left.
    config = HandConfig(Variant.HOLDEM, BettingStructure.NO_LIMIT, position_blinds(4, 1, 2))
    state = _deal_all(replay(start_hand(config, (3, 100, 4, 100))), list(DECK))
    for limp in (Call(2), Call(3), Call(0), Check(1)):
        state, _ = step(state, limp)
    state, _ = step(state, DealBoard((DECK[40], DECK[44], DECK[48]), burn=DECK[39]))
    command: Command
    for command in (
        BetOrRaise(0, 1),  # all-in for less than the minimum bet
        Call(1),  # position 1 acts: calls 1 (a full raise would be to 3)
        AllIn(2),  # all-in to 2: up by 1, less than a full raise
        Call(3),
    ):
        state, _ = step(state, command)
    legal = legal_actions(state)
    assert legal is not None and legal.player == 1
    assert not legal.can_raise  # faces only 1 more than when they acted: call or fold
