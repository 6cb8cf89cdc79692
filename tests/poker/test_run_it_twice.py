"""Running the board two or three times (libs.poker.runs), given-when-then on events: when it is
offered, how answers decide it, which deck positions each run takes, and how every pot is split
across the runs (odd chips to the first run, side pots, hi-lo) with chips exact."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from libs.poker import (
    AllIn,
    Call,
    DealBoard,
    Event,
    Fold,
    HandState,
    IllegalAction,
    InvalidCommand,
    Phase,
    PotAwarded,
    Variant,
    parse_cards,
    step,
)
from libs.poker import errors as E
from libs.poker.cards import DECK
from libs.poker.commands import AnswerRunIt, DealRun
from libs.poker.dealing import DealLayout
from libs.poker.events import RunDealt, RunItDecided, RunItOffered
from libs.poker.runs import BOARD_CARDS, run_shares
from tests.poker.hand_helpers import deal, events_of, holdem, play


def _board(s: HandState, cards: str, burn: str) -> HandState:
    s, _ = step(s, DealBoard(parse_cards(cards), parse_cards(burn)[0]))
    return s


def _run(s: HandState, cards: str, burns: str = "") -> tuple[HandState, list[Event]]:
    s, events = step(s, DealRun(parse_cards(cards), parse_cards(burns) if burns else ()))
    return s, list(events)


def _odd_pot_all_in(run_it_max: int = 3) -> HandState:
    """Three players, blinds 1/2: the button shoves 51, the small blind folds, the big blind
    calls all in: a pot of 103 between positions 1 (KK) and 2 (AA)."""
    s = deal(holdem([50, 51, 51], run_it_max=run_it_max), "2c3d", "KsKh", "AsAh")
    s, _ = play(s, AllIn(2), Fold(0), Call(1))
    return s


def test_offered_when_no_betting_is_left_before_the_river() -> None:
    s = _odd_pot_all_in()
    assert s.phase is Phase.AGREEING_RUNS
    assert s.run_asked == (1, 2)
    assert s.run_most == 3
    assert s.shown[1] is not None and s.shown[2] is not None  # hands are face up first


def test_not_offered_when_the_table_does_not_offer_it() -> None:
    s = _odd_pot_all_in(run_it_max=1)
    assert s.phase is Phase.DEALING_BOARD
    assert not s.run_asked


def test_everyone_agreeing_runs_the_board_the_smallest_answer() -> None:
    s = _odd_pot_all_in()
    s, first = step(s, AnswerRunIt(1, 3))
    assert not events_of(first, RunItDecided) and s.phase is Phase.AGREEING_RUNS
    s, events = step(s, AnswerRunIt(2, 2))
    assert events_of(events, RunItDecided) == [RunItDecided(2)]
    assert s.runs == 2 and s.phase is Phase.DEALING_BOARD


def test_one_player_declining_deals_the_board_once() -> None:
    s = _odd_pot_all_in()
    s, _ = play(s, AnswerRunIt(1, 1), AnswerRunIt(2, 3))
    assert s.runs == 1
    s = _board(s, "7c8c9d", "Qs")
    s = _board(s, "Td", "Qd")
    s = _board(s, "2h", "Jd")
    assert s.is_complete
    assert s.stacks == [49, 0, 103]  # AA holds on the one board


def test_two_runs_split_an_odd_pot_with_the_odd_chip_to_the_first_run() -> None:
    s = _odd_pot_all_in()
    s, _ = play(s, AnswerRunIt(1, 2), AnswerRunIt(2, 2))
    s = _board(s, "7c8c9d", "Qs")
    s = _board(s, "Td", "Qd")
    s = _board(s, "2h", "Jd")
    assert s.phase is Phase.DEALING_RUN
    s, events = _run(s, "Kd4s5h6h3c", "JcJhQc")
    assert events_of(events, RunDealt)[0].run == 2
    awards = events_of(events, PotAwarded)
    assert [(a.run, a.amount, a.winners) for a in awards] == [
        (0, 52, ((2, 52),)),  # the first run: AA, with the odd chip
        (1, 51, ((1, 51),)),  # the second: a third king
    ]
    assert s.is_complete and s.stacks == [49, 51, 52]
    assert sum(s.stacks) == 152


def test_three_runs_share_a_pot_of_103_as_35_34_34() -> None:
    assert run_shares(103, 3) == [35, 34, 34]
    assert run_shares(104, 3) == [36, 34, 34]  # both odd chips to the first run
    s = _odd_pot_all_in()
    s, _ = play(s, AnswerRunIt(1, 3), AnswerRunIt(2, 3))
    s = _board(s, "7c8c9d", "Qs")
    s = _board(s, "Td", "Qd")
    s = _board(s, "2h", "Jd")
    s, _ = _run(s, "Kd4s5h6h3c", "JcJhQc")
    assert s.phase is Phase.DEALING_RUN  # a third run is due
    s, events = _run(s, "4h5c6c7h8h", "9c9h9s")
    awards = events_of(events, PotAwarded)
    assert [(a.run, a.winners) for a in awards] == [
        (0, ((2, 35),)),
        (1, ((1, 34),)),
        (2, ((1, 17), (2, 17))),  # a straight on the board: that run's share is split
    ]
    assert s.stacks == [49, 51, 52]


def test_a_run_split_between_equal_hands_splits_its_share() -> None:
    s = _odd_pot_all_in()
    s, _ = play(s, AnswerRunIt(1, 2), AnswerRunIt(2, 2))
    s = _board(s, "7c8c9d", "Qs")
    s = _board(s, "Td", "Qd")
    s = _board(s, "2h", "Jd")
    # the second board is a straight for both: its 51 split 26/25, the odd chip by position
    s, events = _run(s, "4h5c6c7h8h", "JcJhQc")
    awards = events_of(events, PotAwarded)
    assert [(a.run, a.winners) for a in awards] == [(0, ((2, 52),)), (1, ((1, 26), (2, 25)))]
    assert s.stacks == [49, 26, 77]


def test_side_pots_are_each_split_across_the_runs() -> None:
    # positions 0 (SB) 30, 1 (BB) 60, 2 (button) 100: all in, all called
    s = deal(holdem([30, 60, 100], run_it_max=2), "AsAh", "KsKh", "QsQh")
    s, _ = play(s, AllIn(2), AllIn(0), AllIn(1))
    assert s.phase is Phase.AGREEING_RUNS and s.run_asked == (0, 1, 2)
    s, _ = play(s, AnswerRunIt(0, 2), AnswerRunIt(1, 2), AnswerRunIt(2, 2))
    s = _board(s, "2c7d9h", "3c")
    s = _board(s, "4d", "5c")
    s = _board(s, "8s", "6c")
    # run 2: a queen for QQ
    s, events = _run(s, "Qd2d3h4h6d", "JdJs9s")
    awards = events_of(events, PotAwarded)
    # the button's uncalled 40 came back; main pot 90 (45 + 45), side pot 60 (30 + 30)
    by_pot = {(a.pot, a.run): a.winners for a in awards}
    assert by_pot[(1, 0)] == ((1, 30),)  # side pot, run 1: KK beats QQ
    assert by_pot[(1, 1)] == ((2, 30),)  # side pot, run 2: QQQ
    assert by_pot[(0, 0)] == ((0, 45),)  # main pot, run 1: AA
    assert by_pot[(0, 1)] == ((2, 45),)  # main pot, run 2: QQQ
    assert s.stacks == [45, 30, 115]
    assert sum(s.stacks) == 190


def test_hi_lo_splits_each_run_high_and_low() -> None:
    s = deal(
        holdem([100, 100], variant=Variant.OMAHA_HI_LO, run_it_max=2),
        "AsKsQdJd",  # position 0 (big blind): high only
        "Ah2h3c4c",  # position 1 (button): lows
    )
    s, _ = play(s, AllIn(1), Call(0))
    s, _ = play(s, AnswerRunIt(0, 2), AnswerRunIt(1, 2))
    s = _board(s, "5d6d7s", "9c")  # a low board, 6-high straight for the button too
    s = _board(s, "Kc", "9d")
    s = _board(s, "Kh", "9h")
    s, events = _run(s, "KdQcJsTs8d", "2s3s4s")  # no low on run 2: high takes it
    awards = events_of(events, PotAwarded)
    run_one = [(a.share, a.amount) for a in awards if a.run == 0]
    run_two = [(a.share, a.amount) for a in awards if a.run == 1]
    assert run_one == [("high", 50), ("low", 50)]
    assert run_two == [("whole", 100)]
    assert sum(a.amount for a in awards) == 200
    assert sum(s.stacks) == 200


def test_bad_answers_are_refused_and_change_nothing() -> None:
    s = _odd_pot_all_in()
    with pytest.raises(InvalidCommand) as bad:
        step(s, AnswerRunIt(1, 4))
    assert bad.value.code == E.BAD_RUN_COUNT
    with pytest.raises(InvalidCommand):
        step(s, AnswerRunIt(1, 0))
    with pytest.raises(IllegalAction) as folded:
        step(s, AnswerRunIt(0, 2))  # folded: not asked
    assert folded.value.code == E.NOT_ASKED
    assert s.phase is Phase.AGREEING_RUNS and s.run_answers == (0, 0, 0)


def test_answering_when_players_can_still_bet_is_refused() -> None:
    s = deal(holdem([100, 100, 100], run_it_max=3), "2c3d", "KsKh", "AsAh")
    with pytest.raises(IllegalAction) as refused:
        step(s, AnswerRunIt(2, 2))
    assert refused.value.code == E.RUN_IT_NOT_OFFERED


def test_a_run_before_it_is_due_is_refused() -> None:
    s = _odd_pot_all_in()
    with pytest.raises(IllegalAction):
        step(s, DealRun(parse_cards("Kd4s5h6h3c")))


def test_a_run_reusing_a_dealt_card_is_refused() -> None:
    s = _odd_pot_all_in()
    s, _ = play(s, AnswerRunIt(1, 2), AnswerRunIt(2, 2))
    s = _board(s, "7c8c9d", "Qs")
    s = _board(s, "Td", "Qd")
    s = _board(s, "2h", "Jd")
    with pytest.raises(InvalidCommand) as dup:
        step(s, DealRun(parse_cards("7c4s5h6h3c")))
    assert dup.value.code == E.DUPLICATE_CARD


def test_offered_after_the_flop_with_only_turn_and_river_to_run() -> None:
    s = deal(holdem([100, 100], run_it_max=2), "AsAh", "KsKh")
    s, _ = play(s, Call(1))
    from libs.poker import Check

    s, _ = play(s, Check(0))
    s = _board(s, "2c7d9h", "3c")
    s, events = play(s, AllIn(0), Call(1))
    assert events_of(events, RunItOffered) == [RunItOffered((0, 1), 2)]
    s, _ = play(s, AnswerRunIt(0, 2), AnswerRunIt(1, 2))
    s = _board(s, "4d", "5c")
    s = _board(s, "8s", "6c")
    with pytest.raises(InvalidCommand):
        step(s, DealRun(parse_cards("Kd4s5h")))  # a run here is turn and river: 2 cards
    s, events = _run(s, "KdQc", "JdJs")
    assert s.run_boards == (parse_cards("2c7d9hKdQc"),)
    assert s.stacks == [100, 100]  # AA wins the first run, KKK the second


def test_each_run_takes_the_deck_positions_after_a_single_runs_river() -> None:
    layout = DealLayout(players=2, hole_cards=2)  # hole cards at 0..3, one run: 4..11
    assert layout.single_run_end() == 12
    assert layout.run_streets(2, 0) == ((12, (13, 14, 15)), (16, (17,)), (18, (19,)))
    assert layout.run_streets(3, 0) == ((20, (21, 22, 23)), (24, (25,)), (26, (27,)))
    assert layout.run_streets(2, 1) == ((12, (13,)), (14, (15,)))
    assert layout.run_streets(3, 2) == ((14, (15,)),)
    assert layout.most_runs(0) == 6
    # ten players of Omaha leave four cards after one run: no second run is possible
    assert DealLayout(players=10, hole_cards=4).most_runs(0) == 1
    assert DealLayout(players=10, hole_cards=4).most_runs(2) == 3


def test_ten_omaha_players_are_not_offered_a_run_the_deck_cannot_hold() -> None:
    stacks = [50] * 10
    s = holdem(stacks, variant=Variant.OMAHA, run_it_max=3)
    cards = [c for c in range(52)]
    from libs.poker import DealHands

    holes = tuple(tuple(cards[4 * p : 4 * p + 4]) for p in range(10))
    s, _ = step(s, DealHands(holes))  # type: ignore[arg-type]
    s, _ = play(s, *(AllIn(p) for p in (2, 3, 4, 5, 6, 7, 8, 9, 0, 1)))
    assert s.phase is Phase.DEALING_BOARD and not s.run_asked


#: The runs each example of the property ran (checked by hand: 150 examples run the board once,
#: twice and three times).
RUNS_SEEN: set[int] = set()


@given(
    st.lists(st.integers(1, 300), min_size=2, max_size=6),
    st.sampled_from(list(Variant)),
    st.permutations(range(52)),
    st.data(),
)
@settings(max_examples=150, deadline=None)
def test_chips_are_exact_whatever_the_runs_and_answers(
    stacks: list[int], variant: Variant, deck: list[int], data: st.DataObject
) -> None:
    """Players shove or call (or check) at random, answer at random, cards by deck position:
    every chip put in is paid out, nothing created, and every card dealt once."""
    from libs.poker import Check, DealHands, Phase, Show, legal_actions

    s = holdem(stacks, variant=variant, run_it_max=3)
    layout = DealLayout(len(stacks), variant.hole_card_count)
    holes = tuple(
        tuple(parse_cards("".join(str(DECK[deck[i]]) for i in layout.hole(p))))
        for p in range(len(stacks))
    )
    s, _ = step(s, DealHands(holes))
    while not s.is_complete:
        options = legal_actions(s)
        if options is not None:
            p = options.player
            if options.can_raise and data.draw(st.booleans()):
                s, _ = step(s, AllIn(p))
            else:
                s, _ = step(s, Call(p) if options.can_call else Check(p))
        elif s.phase is Phase.AGREEING_RUNS:
            p = next(q for q in s.run_asked if not s.run_answers[q])
            s, _ = step(s, AnswerRunIt(p, data.draw(st.integers(1, 3))))
        elif s.phase is Phase.DEALING_BOARD:
            street = s.street + 1
            cards = tuple(DECK[deck[i]] for i in layout.board(street))
            s, _ = step(s, DealBoard(cards, DECK[deck[layout.burn(street)]]))
        elif s.phase is Phase.DEALING_RUN:
            streets = layout.run_streets(len(s.run_boards) + 2, s.run_from)
            burns = tuple(DECK[deck[b]] for b, _ in streets)
            cards = tuple(DECK[deck[i]] for _, board in streets for i in board)
            s, _ = step(s, DealRun(cards, burns))
        elif s.phase is Phase.SHOWDOWN and s.showdown_queue:
            s, _ = step(s, Show(s.showdown_queue[0]))
        else:
            raise AssertionError(f"stuck in {s.phase}")
    assert sum(s.stacks) == sum(stacks)
    assert s.pot == 0
    RUNS_SEEN.add(s.runs)
    assert len(s.run_boards) == s.runs - 1
    common = BOARD_CARDS[s.run_from] if s.runs > 1 else 5
    dealt = [*s.board, *(c for board in s.run_boards for c in board[common:]), *s.burns]
    dealt += [c for hole in s.hole for c in hole]
    assert len(set(dealt)) == len(dealt)
    assert all(board[:common] == s.board[:common] for board in s.run_boards)
