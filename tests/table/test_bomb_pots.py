"""Bomb pots at the table (libs.table.bombplan, bombpots): every Nth hand and by vote, every
player antes, no blinds, the hand starts on the flop; a short stack is all in for less; chips
are conserved; the vote agreed, refused and timed out; bad input changes nothing."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import pytest

from libs.fairdeck.audit import outcomes_from_stream
from libs.poker import IllegalAction, Phase
from libs.poker.config import BettingStructure, RakeRule, Variant
from libs.poker.events import (
    ActionTaken,
    AntePosted,
    BlindPosted,
    PotAwarded,
    RakeTaken,
    RunDealt,
    StreetDealt,
)
from libs.poker.legal import legal_actions, pots_of
from libs.table import TableConfig
from libs.table import commands as tc
from libs.table import errors as TE
from libs.table.automation import BombPotClockDue, HandDue, next_due
from libs.table.config import BOMB_POT_VOTE_SECONDS, TableConfigError
from libs.table.events import BombPotProposed, BombPotVoteClosed, BombPotVoted, HandBegan
from libs.table.timing import wake_at
from tests.table.seeded_table import BombTable

T = TypeVar("T")
EVERY_THIRD = TableConfig(seats=6, bomb_pot_ante=5, bomb_pot_every=3)
BY_VOTE = TableConfig(seats=6, bomb_pot_ante=4, bomb_pot_vote=True)


def _of(events: Sequence[object], kind: type[T]) -> list[T]:
    return [e for e in events if isinstance(e, kind)]


def test_every_third_hand_is_a_bomb_pot() -> None:
    t = BombTable(EVERY_THIRD, 3)
    kinds = []
    for _ in range(6):
        start = len(t.events)
        started = t.start()
        kinds.append(started.config.bomb_pot)
        hand_events = t.events[start:]
        if started.config.bomb_pot:
            assert not _of(hand_events, BlindPosted)
            assert [e.amount for e in _of(hand_events, AntePosted)] == [5, 5, 5]
        t.check_down()
        assert t.chips() == t.granted
    assert kinds == [False, False, True, False, False, True]


def test_a_bomb_pot_starts_on_the_flop_left_of_the_button() -> None:
    t = BombTable(TableConfig(seats=6, bomb_pot_ante=5, bomb_pot_every=1), 4)
    t.start()
    hand = t.state.hand
    assert hand is not None
    assert hand.street == 1 and len(hand.board) == 3  # the flop is out, nobody acted
    assert not _of(t.events, ActionTaken)
    assert hand.pot == 20
    options = legal_actions(hand)
    assert options is not None and options.player == 0  # first left of the button
    assert options.can_check and options.min_to == 2  # a bet is at least the big blind
    began = _of(t.events, HandBegan)[0]
    assert t.state.acting_seat() == began.seats[0]
    t.check_down()
    assert t.chips() == t.granted
    assert sum(a.amount for a in _of(t.events, PotAwarded)) == 20


def test_heads_up_bomb_pot_the_non_button_acts_first() -> None:
    t = BombTable(TableConfig(seats=2, bomb_pot_ante=3, bomb_pot_every=1), 2)
    t.start()
    hand = t.state.hand
    assert hand is not None and hand.street == 1 and hand.actor == 0
    assert t.state.acting_seat() != t.state.button
    t.check_down()
    assert t.chips() == t.granted


def test_a_short_stack_is_all_in_for_less_than_the_ante_with_exact_side_pots() -> None:
    t = BombTable(TableConfig(seats=6, bomb_pot_ante=10, bomb_pot_every=1), 3)
    t.state.seats[1].stack = 4  # lost chips earlier (the test sets it directly)
    t.granted -= 96
    t.start()
    hand = t.state.hand
    assert hand is not None
    antes = {e.player: e.amount for e in _of(t.events, AntePosted)}
    short = t.state.hand_seats.index(1)
    assert antes[short] == 4 and hand.stacks[short] == 0
    pots = pots_of(hand)
    assert [p.amount for p in pots] == [12, 12]
    assert short in pots[0].eligible and short not in pots[1].eligible
    t.check_down()
    assert t.chips() == t.granted
    won = sum(
        amount
        for award in _of(t.events, PotAwarded)
        for position, amount in award.winners
        if position == short
    )
    assert won <= 12


def test_everyone_all_in_from_the_antes_may_run_it_twice_from_the_flop() -> None:
    config = TableConfig(seats=6, bomb_pot_ante=40, bomb_pot_every=1, run_it_max=2)
    t = BombTable(config, 2, 40)
    t.start()
    hand = t.state.hand
    assert hand is not None and hand.phase is Phase.AGREEING_RUNS and hand.street == 0
    t.run(tc.AnswerRunIt("p0", 2, 1.0))
    t.run(tc.AnswerRunIt("p1", 2, 1.0))
    t.check_down()
    assert not t.state.hand_in_progress
    assert len(_of(t.events, StreetDealt)) == 3 and len(_of(t.events, RunDealt)) == 1
    assert t.chips() == t.granted
    [outcome] = outcomes_from_stream(t.events)  # the deck, both runs, checks against the seed
    assert outcome.ok, outcome.failures


def test_a_bomb_pot_is_raked_even_with_no_flop_no_drop() -> None:
    rake = RakeRule(percent=10.0, cap=0, no_flop_no_drop=True)
    t = BombTable(TableConfig(seats=6, bomb_pot_ante=10, bomb_pot_every=1, rake=rake), 3)
    t.start()
    t.check_down()
    assert [e.amount for e in _of(t.events, RakeTaken)] == [3]
    assert t.chips() == t.granted - 3


@pytest.mark.parametrize(
    "variant", [Variant.HOLDEM, Variant.OMAHA, Variant.OMAHA_HI_LO], ids=lambda v: v.value
)
def test_bomb_pots_in_every_variant_and_fixed_limit(variant: Variant) -> None:
    config = TableConfig.fixed_limit(4, variant=variant, bomb_pot_ante=4, bomb_pot_every=1)
    t = BombTable(config, 3, 80)
    t.start()
    hand = t.state.hand
    assert hand is not None and hand.config.structure is BettingStructure.FIXED_LIMIT
    options = legal_actions(hand)
    assert options is not None and options.min_to == options.max_to == 4  # the small bet
    t.run(tc.Act(t.acting(), tc.PlayerAction.BET, 4, now=1.0))
    t.check_down()
    assert t.chips() == t.granted


def test_newcomers_owing_an_entry_bet_ante_in_and_owe_nothing_after() -> None:
    t = BombTable(EVERY_THIRD, 3)
    t.start()
    t.check_down()
    t.run(tc.SitDown("late", 4, 100, post_entry_bet=True))
    t.granted += 100
    t.start()
    t.check_down()
    started = t.start()  # hand 3: a bomb pot
    assert started.config.bomb_pot and len(started.stacks) == 4
    assert not t.state.seats[4].entry_due
    t.check_down()
    assert t.chips() == t.granted


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"bomb_pot_ante": 5}, "bomb_pot_ante"),  # never dealt
        ({"bomb_pot_every": 3}, "bomb_pot_ante"),  # no ante
        ({"bomb_pot_vote": True}, "bomb_pot_ante"),
        ({"bomb_pot_ante": 41, "bomb_pot_every": 3}, "bomb_pot_ante"),  # above min_buy_in
        ({"bomb_pot_ante": -1, "bomb_pot_every": 3}, "bomb_pot_ante"),
        ({"bomb_pot_ante": 5, "bomb_pot_every": 1001}, "bomb_pot_every"),
        ({"bomb_pot_ante": 5, "bomb_pot_every": -2}, "bomb_pot_every"),
        ({"bomb_pot_ante": 5, "bomb_pot_every": 2, "tournament": True}, "bomb_pot_ante"),
    ],
)
def test_bomb_pot_settings_out_of_range_are_refused(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(TableConfigError) as refused:
        TableConfig(**kwargs)  # type: ignore[arg-type]
    assert refused.value.field == field


# --------------------------------------------------------------------------- the vote


def test_a_vote_everyone_agrees_to_makes_the_next_hand_a_bomb_pot() -> None:
    t = BombTable(BY_VOTE, 3)
    t.start()
    t.run(tc.VoteBombPot("p0", True, now=2.0))  # during a hand, for the next
    assert _of(t.events, BombPotProposed) == [
        BombPotProposed(0, "p0", ("p0", "p1", "p2"), 2.0 + BOMB_POT_VOTE_SECONDS)
    ]
    t.check_down()
    with pytest.raises(IllegalAction) as waiting:  # the next hand waits for the vote
        t.run(tc.StartHand("h2", "c", 3.0))
    assert waiting.value.code == TE.BOMB_POT_VOTE_OPEN
    assert next_due(t.state, 3.0) is None
    assert wake_at(t.state) == 2.0 + BOMB_POT_VOTE_SECONDS
    t.run(tc.VoteBombPot("p1", True, now=3.0))
    assert t.run(tc.VoteBombPot("p2", True, now=3.0)) == [
        BombPotVoted(2, "p2"),
        BombPotVoteClosed(True, "agreed"),
    ]
    assert isinstance(next_due(t.state, 3.0), HandDue)
    assert t.start(4.0).config.bomb_pot
    t.check_down(4.0)
    assert not t.start(5.0).config.bomb_pot  # the vote is spent
    t.check_down(5.0)
    assert t.chips() == t.granted


def test_one_refusal_closes_the_vote() -> None:
    t = BombTable(BY_VOTE, 3)
    t.run(tc.VoteBombPot("p1", True, now=1.0))
    assert t.run(tc.VoteBombPot("p2", False, now=1.5)) == [
        BombPotVoteClosed(False, "refused by seat 3")
    ]
    assert not t.start(2.0).config.bomb_pot


def test_a_vote_not_answered_in_time_is_refused_by_the_clock() -> None:
    t = BombTable(BY_VOTE, 3)
    t.run(tc.VoteBombPot("p0", True, now=1.0))
    t.run(tc.VoteBombPot("p1", True, now=1.0))
    due_at = 1.0 + BOMB_POT_VOTE_SECONDS
    assert next_due(t.state, due_at - 0.1) is None
    assert next_due(t.state, due_at) == BombPotClockDue()
    assert t.run(tc.Tick(due_at)) == [BombPotVoteClosed(False, "not everyone agreed in time")]
    assert not t.start(due_at).config.bomb_pot


def test_a_hand_started_after_the_deadline_closes_the_vote_first() -> None:
    t = BombTable(BY_VOTE, 2)
    t.run(tc.VoteBombPot("p0", True, now=1.0))
    new = t.run(tc.StartHand("h1", "c", 1.0 + BOMB_POT_VOTE_SECONDS))
    assert isinstance(new[0], BombPotVoteClosed) and not new[0].agreed
    assert isinstance(new[1], HandBegan)


def test_bots_agree_at_once() -> None:
    t = BombTable(BY_VOTE, 3, bots=(1, 2))
    new = t.run(tc.VoteBombPot("p0", True, now=1.0))
    assert new[-1] == BombPotVoteClosed(True, "agreed")
    assert t.start(2.0).config.bomb_pot


def test_a_player_seated_after_the_vote_did_not_agree_the_hand_is_a_usual_one() -> None:
    t = BombTable(BY_VOTE, 2)
    t.run(tc.VoteBombPot("p0", True, now=1.0))
    t.run(tc.VoteBombPot("p1", True, now=1.0))
    t.run(tc.SitDown("late", 3, 100))  # no hand yet: dealt in at once
    assert not t.start(2.0).config.bomb_pot


@pytest.mark.parametrize(
    ("config", "player", "agree", "code"),
    [
        (TableConfig(seats=6), "p0", True, TE.BOMB_POT_OFF),
        (EVERY_THIRD, "p0", True, TE.BOMB_POT_OFF),  # scheduled only: no vote
        (BY_VOTE, "p0", False, TE.BOMB_POT_NO_VOTE),  # nothing to refuse
        (BY_VOTE, "stranger", True, TE.NOT_SEATED),
        (BY_VOTE, "p2", True, TE.BOMB_POT_NOT_ASKED),  # sitting out
    ],
)
def test_bad_votes_are_refused_and_change_nothing(
    config: TableConfig, player: str, agree: bool, code: str
) -> None:
    t = BombTable(config, 3)
    t.run(tc.SitOut("p2"))
    before = t.state
    with pytest.raises(IllegalAction) as refused:
        t.run(tc.VoteBombPot(player, agree, now=1.0))
    assert refused.value.code == code
    assert t.state is before


def test_an_answer_from_a_player_the_vote_did_not_ask_is_refused() -> None:
    t = BombTable(BY_VOTE, 3)
    t.run(tc.SitOut("p2"))
    t.run(tc.VoteBombPot("p0", True, now=1.0))
    with pytest.raises(IllegalAction) as refused:
        t.run(tc.VoteBombPot("p2", False, now=1.0))
    assert refused.value.code == TE.BOMB_POT_NOT_ASKED
    assert t.state.bomb_vote.deadline  # still open


def test_blind_settings_ask_nothing_of_a_bomb_pot_which_has_no_blinds() -> None:
    """A bomb pot has no big blind to sit out before and no blind to ask for: a seat set to sit
    out at its big blind, or not to post blinds unasked, antes in like the others."""
    t = BombTable(TableConfig(seats=6, bomb_pot_ante=5, bomb_pot_every=1), 4)
    t.run(tc.SetSeatOptions("p1", sit_out_next_big_blind=True, now=1.0))
    t.run(tc.SetSeatOptions("p2", auto_post_blinds=False, now=1.0))
    for hand in range(2):
        assert isinstance(next_due(t.state, 2.0), HandDue)
        started = t.start()
        assert started.config.bomb_pot
        assert len(_of(t.events, AntePosted)) == 4 * (hand + 1)
        t.check_down()
        assert t.chips() == t.granted
    assert not any(seat.sitting_out for seat in t.state.seats.values())
