"""Property tests of the engine's soundness over random hands of every variant and betting
structure (``random_hands``): chips are conserved, every offered action is accepted and nothing
else is, amounts outside the bounds are refused and change nothing, replaying the events rebuilds
the state, and voiding returns every starting stack. Each checks one rule of
/work/shared/RULES.md over the recorded steps; the betting rules' own properties are in
test_betting_properties.py.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from libs.poker import (
    AllIn,
    BetOrRaise,
    Call,
    Check,
    Command,
    DealBoard,
    Fold,
    HandVoided,
    Muck,
    Show,
    VoidHand,
    evolve,
    legal_actions,
    replay,
    showdown_turn,
    step,
)
from tests.poker.random_hands import (
    ANY_INT,
    HandSetup,
    chips_in_play,
    hand_settings,
    hand_setups,
    play_hand,
    rejected,
    snapshot,
)

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
        amounts = {legal.max_to + 1, legal.max_to + 1 + data.draw(ANY_INT) % 1000}
        if legal.min_to - 1 > call_level:
            amounts.add(legal.min_to - 1)
            amounts.add(call_level + 1 + data.draw(ANY_INT) % (legal.min_to - 1 - call_level))
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
