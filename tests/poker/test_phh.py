"""PHH: conformance on real hand histories, writing then reading, and the CLI.

The conformance tests read 10,088 real hands in the Poker Hand History format kept beside the
project at ``../shared/phh`` (never copied into it): 10,000 Pluribus no-limit hold'em hands, 83
hands of a 2023 WSOP mixed-game final table and a few famous hands, from the history of the
PokerKit repository (uoftcprg, MIT licence; dataset DOI 10.5281/zenodo.10796885). Without that
folder they are skipped with a message saying where it was looked for; the other tests here need
nothing outside the project.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from libs.cli.main import main as holdem_main
from libs.poker import (
    BettingStructure,
    Call,
    Check,
    DealBoard,
    DealHoleCards,
    HandConfig,
    Show,
    Variant,
    legal_actions,
    position_blinds,
    showdown_turn,
    start_hand,
    step,
)
from libs.poker.cards import DECK
from libs.poker.evolve import replay
from libs.poker.phh import dumps, hand_from_events, loads, replay_hand, replay_text, stacks_match
from libs.poker.state import Phase

PHH_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "phh"
needs_phh = pytest.mark.skipif(
    not PHH_DIR.is_dir(),
    reason=f"the shared hand histories (PokerKit's PHH dataset) are not at {PHH_DIR}",
)


@needs_phh
@pytest.mark.slow
def test_every_in_scope_shared_hand_replays_and_matches(capsys: pytest.CaptureFixture[str]) -> None:
    status = holdem_main(["replay", "--json", str(PHH_DIR)])
    summary = json.loads(capsys.readouterr().out)
    assert summary["failures"] == []
    assert status == 0
    assert summary["total"] == 10088
    assert summary["mismatched"] == 0 and summary["illegal"] == 0
    # stud, razz and draw games are reported as unsupported, not failed
    assert summary["unsupported"] == 47
    assert summary["matched"] + summary["no_expectation"] == 10088 - 47
    assert summary["matched"] >= 10039


@needs_phh
def test_half_chip_splits_give_the_odd_chip_left_of_the_button() -> None:
    halves = [
        p
        for p in sorted((PHH_DIR / "pluribus").rglob("*.phh"))
        if ".5" in p.read_text().split("finishing_stacks", 1)[-1]
    ]
    assert len(halves) == 8
    for path in halves:
        assert replay_text(path.read_text()).status == "matched", path


def test_half_chip_comparison_rule() -> None:
    assert stacks_match([101, 99, 100], [100.5, 99.5, 100])
    assert not stacks_match([100, 100, 100], [100.5, 99.5, 100])
    # the odd chip must go to the first winner left of the button (the lower position)
    assert not stacks_match([99, 101, 100], [99.5, 100.5, 100])


def test_a_wrong_finishing_stack_is_a_mismatch() -> None:
    text = """
variant = 'NT'
ante_trimming_status = true
antes = [0, 0]
blinds_or_straddles = [1, 2]
min_bet = 2
starting_stacks = [100, 100]
actions = ['d dh p1 AsKs', 'd dh p2 QdQh', 'p2 f']
finishing_stacks = [101, 99]
"""
    assert replay_text(text).status == "matched"
    assert replay_text(text.replace("[101, 99]", "[102, 98]")).status == "mismatched"


def test_an_illegal_action_is_reported_with_the_reason() -> None:
    text = """
variant = 'NT'
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [100, 100, 100]
actions = ['d dh p1 AsKs', 'd dh p2 QdQh', 'd dh p3 2c7d', 'p3 cbr 3']
"""
    outcome = replay_text(text)
    assert outcome.status == "illegal"
    assert "action 4" in outcome.reason and "minimum is 4" in outcome.reason


def test_variants_we_do_not_play_are_unsupported() -> None:
    assert replay_text("variant = 'FR'\nstarting_stacks=[1,1]\nactions=[]\n").status == (
        "unsupported"
    )


def _random_hand(seed: int, variant: Variant, structure: BettingStructure) -> list[object]:
    rng = random.Random(seed)
    n = rng.randint(2, 6)
    config = HandConfig(variant, structure, position_blinds(n, 1, 2), min_bet=2)
    events = start_hand(config, [rng.randint(5, 80) for _ in range(n)])
    state = replay(events)
    deck = list(DECK)
    rng.shuffle(deck)
    for p in range(n):
        k = variant.hole_card_count
        state, new = step(state, DealHoleCards(p, tuple(deck[:k])))
        del deck[:k]
        events += new
    while not state.is_complete:
        if state.phase is Phase.DEALING_BOARD:
            k = 3 if state.street == 0 else 1
            state, new = step(state, DealBoard(tuple(deck[:k])))
            del deck[:k]
        elif state.phase is Phase.SHOWDOWN:
            turn = showdown_turn(state)
            assert turn is not None
            state, new = step(state, Show(turn.player))
        else:
            options = legal_actions(state)
            assert options is not None
            from libs.poker import BetOrRaise, Fold

            roll = rng.random()
            if options.can_raise and roll < 0.3:
                command: object = BetOrRaise(
                    options.player, rng.randint(options.min_to, options.max_to)
                )
            elif options.can_fold and roll < 0.45:
                command = Fold(options.player)
            elif options.can_call:
                command = Call(options.player)
            else:
                command = Check(options.player)
            state, new = step(state, command)  # type: ignore[arg-type]
        events += new
    return events  # type: ignore[return-value]


@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("structure", list(BettingStructure))
def test_writing_then_reading_a_hand_gives_the_same_hand(
    variant: Variant, structure: BettingStructure
) -> None:
    for seed in range(15):
        events = _random_hand(seed, variant, structure)
        names = [f"player {i}" for i in range(len(events[0].stacks))]  # type: ignore[attr-defined]
        hand = hand_from_events(events, players=names)  # type: ignore[arg-type]
        text = dumps(hand)
        again = loads(text)
        assert again.config == hand.config
        assert again.starting_stacks == hand.starting_stacks
        assert again.actions == hand.actions
        assert again.finishing_stacks == hand.finishing_stacks
        assert dumps(again) == text
        outcome = replay_hand(again)
        assert outcome.status == "matched", (seed, outcome.reason, text)
        assert outcome.events == events[len(events) - len(outcome.events) :]


def test_cli_replay_exit_status_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "a" / "good.phh"
    good.parent.mkdir()
    good.write_text(
        "variant = 'NT'\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\n"
        "starting_stacks = [100, 100]\nactions = ['d dh p1 AsKs', 'd dh p2 QdQh', 'p2 f']\n"
        "finishing_stacks = [101, 99]\n"
    )
    assert holdem_main(["replay", "--json", str(tmp_path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary == {
        "total": 1,
        "matched": 1,
        "mismatched": 0,
        "illegal": 0,
        "unsupported": 0,
        "no_expectation": 0,
        "failures": [],
    }
    bad = tmp_path / "bad.phh"
    bad.write_text(good.read_text().replace("[101, 99]", "[100, 100]"))
    assert holdem_main(["replay", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "MISMATCHED" in out and "bad.phh" in out
