"""Betting rules from RULES.md, one test per rule, given-when-then on events."""

from __future__ import annotations

import pytest

from libs.poker import (
    ActionKind,
    ActionTaken,
    AllIn,
    AntePosted,
    BetOrRaise,
    BettingStructure,
    BlindPosted,
    Call,
    Check,
    Fold,
    IllegalAction,
    UncalledBetReturned,
    fixed_limit_blinds,
    legal_actions,
    step,
)
from libs.poker import errors as E
from tests.poker.hand_helpers import board, deal, events_of, holdem, play

FL = BettingStructure.FIXED_LIMIT
PL = BettingStructure.POT_LIMIT

HOLES6 = ("AsKs", "QdQh", "2c7d", "JhTh", "9c9d", "5s4s")


def test_small_blind_left_of_button_then_big_blind() -> None:
    s = holdem([100] * 4)
    assert s.bets == [1, 2, 0, 0]


def test_heads_up_button_posts_small_blind_acts_first_preflop_and_last_after() -> None:
    s = deal(holdem([100, 100]), "AsKs", "QdQh")
    # Position 1 is the button: it posted the small blind and acts first preflop.
    assert s.bets == [2, 1]
    assert s.actor == 1
    s, _ = play(s, Call(1), Check(0))
    s = board(s, "2c3d4h")
    assert s.actor == 0  # the big blind acts first after the flop, the button last


def test_preflop_action_starts_left_of_big_blind() -> None:
    s = deal(holdem([100] * 6), *HOLES6)
    assert s.actor == 2


def test_postflop_action_starts_with_first_active_seat_left_of_button() -> None:
    s = deal(holdem([100] * 4), "AsKs", "QdQh", "2c7d", "JhTh")
    s, _ = play(s, Call(2), Call(3), Fold(0), Check(1))
    s = board(s, "2h3h4c")
    assert s.actor == 1  # position 0 folded


def test_big_blind_keeps_the_option_when_the_pot_is_only_called() -> None:
    s = deal(holdem([100] * 3), "AsKs", "QdQh", "2c7d")
    s, _ = play(s, Call(2), Call(0))
    options = legal_actions(s)
    assert options is not None and options.player == 1
    assert options.can_check and options.can_raise and options.min_to == 4


def test_no_limit_minimum_bet_is_the_big_blind() -> None:
    s = deal(holdem([100] * 2), "AsKs", "QdQh")
    s, _ = play(s, Call(1), Check(0))
    s = board(s, "2c3d4h")
    options = legal_actions(s)
    assert options is not None and options.is_bet and options.min_to == 2
    with pytest.raises(IllegalAction) as err:
        step(s, BetOrRaise(0, 1))
    assert err.value.code == E.BELOW_MINIMUM


def test_no_limit_raise_must_be_at_least_the_largest_previous_raise() -> None:
    s = deal(holdem([500] * 3), "AsKs", "QdQh", "2c7d")
    s, _ = play(s, BetOrRaise(2, 10))  # raise by 8
    options = legal_actions(s)
    assert options is not None and options.min_to == 18 and options.max_to == 500


def test_pot_limit_maximum_is_bet_plus_pot_after_calling() -> None:
    s = deal(holdem([500] * 3, structure=PL), "AsKs", "QdQh", "2c7d")
    options = legal_actions(s)
    # pot 3, call 2 -> pot after calling 5 -> raise to 2 + 5 = 7
    assert options is not None and (options.min_to, options.max_to) == (4, 7)
    s, _ = play(s, BetOrRaise(2, 7))
    options = legal_actions(s)
    # small blind: pot 10, call 6 -> 16, raise to 7 + 16 = 23
    assert options is not None and options.max_to == 23


def test_fixed_limit_small_blind_is_half_the_small_bet_rounded_down() -> None:
    assert fixed_limit_blinds(5) == (2, 5)
    assert fixed_limit_blinds(10) == (5, 10)
    assert fixed_limit_blinds(1) == (1, 1)


def test_fixed_limit_bets_are_the_small_bet_then_the_big_bet() -> None:
    s = deal(holdem([500] * 2, sb=2, bb=5, structure=FL, min_bet=5), "AsKs", "QdQh")
    options = legal_actions(s)
    assert options is not None and (options.min_to, options.max_to) == (10, 10)
    s, _ = play(s, Call(1), Check(0))
    s = board(s, "2c3d4h")
    options = legal_actions(s)
    assert options is not None and (options.min_to, options.max_to) == (5, 5)
    s, _ = play(s, Check(0), Check(1))
    s = board(s, "9s")
    options = legal_actions(s)
    assert options is not None and (options.min_to, options.max_to) == (10, 10)


def test_fixed_limit_cap_is_one_bet_and_three_raises() -> None:
    s = deal(holdem([500] * 2, sb=2, bb=5, structure=FL, min_bet=5), "AsKs", "QdQh")
    s, _ = play(s, Call(1), Check(0))
    s = board(s, "2c3d4h")
    s, _ = play(s, BetOrRaise(0, 5), BetOrRaise(1, 10), BetOrRaise(0, 15), BetOrRaise(1, 20))
    options = legal_actions(s)
    assert options is not None and not options.can_raise and options.can_call
    with pytest.raises(IllegalAction) as err:
        step(s, BetOrRaise(0, 25))
    assert err.value.code == E.CAP_REACHED


def test_fixed_limit_preflop_big_blind_counts_as_the_bet() -> None:
    s = deal(holdem([500] * 3, sb=2, bb=5, structure=FL, min_bet=5), "AsKs", "QdQh", "2c7d")
    s, _ = play(s, BetOrRaise(2, 10), BetOrRaise(0, 15), BetOrRaise(1, 20))
    options = legal_actions(s)
    assert options is not None and options.player == 2 and not options.can_raise


def test_straddle_is_the_bet_and_the_minimum_raise() -> None:
    s = deal(holdem([500] * 4, straddle=4), "AsKs", "QdQh", "2c7d", "JhTh")
    assert s.bets == [1, 2, 4, 0]
    options = legal_actions(s)
    assert options is not None and options.player == 3
    assert options.call_amount == 4 and options.min_to == 8
    s, _ = play(s, Call(3), Call(0), Call(1))
    options = legal_actions(s)
    assert options is not None and options.player == 2 and options.can_check  # acts last


def test_antes_are_posted_before_the_blinds() -> None:
    s = holdem([100] * 3, antes=(1, 1, 1))
    assert s.pot == 3 and s.bets == [1, 2, 0] and s.stacks == [98, 97, 99]


def test_short_all_in_does_not_reopen_the_betting() -> None:
    s = deal(holdem([1000, 1000, 1000, 130]), "AsKs", "QdQh", "2c7d", "JhTh")
    s, _ = play(s, Call(2), Call(3), Call(0), Check(1))
    s = board(s, "2h3h4c")
    s, _ = play(s, BetOrRaise(0, 100), Call(1), Call(2), AllIn(3))  # all-in 128: +28 < 100
    options = legal_actions(s)
    assert options is not None and options.player == 0
    assert options.can_call and not options.can_raise
    with pytest.raises(IllegalAction) as err:
        step(s, BetOrRaise(0, 300))
    assert err.value.code == E.ACTION_NOT_REOPENED


def test_short_all_ins_that_together_stay_below_a_full_raise_do_not_reopen() -> None:
    s = deal(holdem([1000, 1000, 152, 172]), "AsKs", "QdQh", "2c7d", "JhTh")
    s, _ = play(s, Call(2), Call(3), Call(0), Check(1))
    s = board(s, "2h3h4c")
    # 100, then all-in 150 (+50), then all-in 170 (+20): together +70 < 100: no reopen
    s, _ = play(s, BetOrRaise(0, 100), Call(1), AllIn(2), AllIn(3))
    options = legal_actions(s)
    assert options is not None and options.player == 0 and not options.can_raise


def test_short_all_ins_adding_to_a_full_raise_do_reopen() -> None:
    s = deal(holdem([1000, 1000, 162, 214]), "AsKs", "QdQh", "2c7d", "JhTh")
    s, _ = play(s, Call(2), Call(3), Call(0), Check(1))
    s = board(s, "2h3h4c")
    # 100, all-in 160 (+60), all-in 212 (+52): +112 over what position 0 faced -> reopened
    s, _ = play(s, BetOrRaise(0, 100), Call(1), AllIn(2), AllIn(3))
    options = legal_actions(s)
    assert options is not None and options.player == 0 and options.can_raise
    assert options.min_to == 312  # the last full raise (100) over 212


def test_player_yet_to_act_may_raise_after_a_short_all_in() -> None:
    s = deal(holdem([1000, 1000, 1000, 130]), "AsKs", "QdQh", "2c7d", "JhTh")
    s, _ = play(s, Call(2), Call(3), Call(0), Check(1))
    s = board(s, "2h3h4c")
    s, _ = play(s, Check(0), Check(1), BetOrRaise(2, 100), AllIn(3))
    options = legal_actions(s)
    # position 0 checked before the bet; facing a full bet it may raise
    assert options is not None and options.player == 0 and options.can_raise
    assert options.min_to == 228


def test_fixed_limit_short_all_in_counts_toward_the_cap_and_raise_is_one_bet_above() -> None:
    s = deal(
        holdem([500, 500, 13, 500], sb=2, bb=5, structure=FL, min_bet=5),
        "AsKs",
        "QdQh",
        "2c7d",
        "JhTh",
    )
    s, _ = play(s, Call(2), Call(3), Call(0), Check(1))
    s = board(s, "2h3h4c")
    s, _events = play(s, BetOrRaise(0, 5), Call(1), AllIn(2))  # all-in to 8
    options = legal_actions(s)
    assert options is not None and options.player == 3
    assert (options.min_to, options.max_to) == (13, 13)
    assert s.raise_count == 2


def test_short_big_blind_keeps_the_full_blind_as_the_amount_to_call() -> None:
    s = deal(holdem([100, 1, 100]), "AsKs", "QdQh", "2c7d")
    assert s.bets == [1, 1, 0]
    options = legal_actions(s)
    assert options is not None and options.player == 2 and options.call_amount == 2
    assert options.min_to == 4


def test_uncalled_bet_is_returned() -> None:
    s = deal(holdem([100, 100]), "AsKs", "QdQh")
    s, events = play(s, BetOrRaise(1, 30), Fold(0))
    returned = events_of(events, UncalledBetReturned)
    assert returned == [UncalledBetReturned(1, 28)]
    assert s.stacks == [98, 102] and s.is_complete


def test_nobody_bets_more_than_their_stack() -> None:
    s = deal(holdem([100, 50]), "AsKs", "QdQh")
    with pytest.raises(IllegalAction) as err:
        step(s, BetOrRaise(1, 60))
    assert err.value.code == E.ABOVE_STACK


def test_fold_is_refused_when_checking_is_free() -> None:
    s = deal(holdem([100, 100]), "AsKs", "QdQh")
    s, _ = play(s, Call(1))
    with pytest.raises(IllegalAction) as err:
        step(s, Fold(0))
    assert err.value.code == E.CANNOT_FOLD


def test_out_of_turn_is_refused_and_changes_nothing() -> None:
    s = deal(holdem([100] * 3), "AsKs", "QdQh", "2c7d")
    before = s.copy()
    with pytest.raises(IllegalAction) as err:
        step(s, Call(0))
    assert err.value.code == E.NOT_YOUR_TURN
    assert s == before


def test_command_for_another_hand_is_refused() -> None:
    s = deal(holdem([100] * 2), "AsKs", "QdQh")
    with pytest.raises(IllegalAction) as err:
        step(s, Call(1), hand_id="other")
    assert err.value.code == E.WRONG_HAND


def test_actions_after_the_hand_are_refused() -> None:
    s = deal(holdem([100] * 2), "AsKs", "QdQh")
    s, _ = play(s, Fold(1))
    with pytest.raises(IllegalAction) as err:
        step(s, Check(0))
    assert err.value.code == E.HAND_OVER


def test_blinds_and_antes_are_events() -> None:
    from libs.poker import HandConfig, Variant, position_blinds, start_hand

    events = start_hand(
        HandConfig(Variant.HOLDEM, BettingStructure.NO_LIMIT, position_blinds(3, 1, 2), (1, 1, 1)),
        [100, 100, 100],
    )
    assert events[1:] == [
        AntePosted(0, 1),
        AntePosted(1, 1),
        AntePosted(2, 1),
        BlindPosted(0, 1, 1),
        BlindPosted(1, 2, 2),
    ]


def test_all_in_action_is_a_call_when_the_stack_does_not_cover() -> None:
    s = deal(holdem([100, 100, 30]), "AsKs", "QdQh", "2c7d")
    s, _ = play(s, BetOrRaise(2, 10), BetOrRaise(0, 50))
    s, events = play(s, Fold(1), AllIn(2))
    taken = events_of(events, ActionTaken)
    assert taken[-1] == ActionTaken(2, ActionKind.CALL, 20, 30, True)


def test_an_entry_bet_is_live_but_the_big_blind_closes_the_action() -> None:
    from libs.poker import HandConfig, Variant, new_hand

    # position 3 posts an entry bet the size of the big blind; action starts left of the BB
    config = HandConfig(
        Variant.HOLDEM, BettingStructure.NO_LIMIT, (1, 2, 0, 2, 0), big_blind_position=1
    )
    s = deal(new_hand(config, [100] * 5), "AsKs", "QdQh", "2c7d", "JhTh", "9c9d")
    assert s.actor == 2
    s, _ = play(s, Call(2))
    options = legal_actions(s)
    assert options is not None and options.player == 3 and options.can_check
    s, _ = play(s, Check(3), Call(4), Call(0))
    options = legal_actions(s)
    assert options is not None and options.player == 1 and options.can_raise


def test_legal_actions_follow_a_state_that_events_change_in_place() -> None:
    from libs.poker.evolve import apply

    s = deal(holdem([100] * 3), "AsKs", "QdQh", "2c7d")
    first = legal_actions(s)
    assert first is not None and first.player == 2
    apply(s, ActionTaken(2, ActionKind.CALL, 2, 2, False))
    again = legal_actions(s)
    assert again is not None and again.player == 0 and again.call_amount == 1
