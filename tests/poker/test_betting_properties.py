"""Property tests of the betting rules over random hands (``random_hands``): fixed-limit raises
are one street bet and capped, a pot-limit maximum never exceeds the pot, action starts left of
the big blind preflop and left of the button after, and a short all-in does not reopen the
betting; then minimal reproductions of the engine bugs these properties found (now fixed).
"""

from __future__ import annotations

from hypothesis import given
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
    Fold,
    HandConfig,
    HandState,
    Phase,
    Variant,
    fixed_limit_blinds,
    legal_actions,
    position_blinds,
    replay,
    start_hand,
    step,
)
from tests.poker.random_hands import (
    FIXED_LIMIT_BETS_PER_ROUND,
    HandSetup,
    PlayedHand,
    hand_settings,
    hand_setups,
    play_hand,
)


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
