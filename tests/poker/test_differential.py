"""Differential tests: our engine against PokerKit 0.7.7 on seeded random hands.

The harness is ``tests/poker/pokerkit_bridge.py``: it deals the same cards to both engines,
compares every decision (actor, fold/check/call, call amount, raise allowed, raise-to bounds,
one chip outside the bounds rejected) and the finishing stacks, and translates only the
divergences listed in RULES.md ("Choices where references disagree") and the few more this
harness found (see its docstring), each narrowly and counted.

The slow tests play 2,300 hands for each of the nine variant x structure combinations (20,700 in
all), on as many processes as there are cores (at most 4); a failure names the seed and the
command that replays the hand step by step.
"""

from __future__ import annotations

import dataclasses
import itertools
import multiprocessing
import os
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace

import pokerkit as pk
import pytest

from libs.poker import (
    DECK,
    BetOrRaise,
    BettingStructure,
    Call,
    Check,
    Command,
    DealBoard,
    DealHoleCards,
    Fold,
    HandConfig,
    Muck,
    Phase,
    Show,
    Variant,
    engine,
    legal,
    new_hand,
    parse_cards,
    position_blinds,
    showdown_turn,
    step,
)
from libs.poker.state import HandState
from tests.poker import pokerkit_bridge as bridge
from tests.poker import pokerkit_hands, pokerkit_tables
from tests.poker.pokerkit_bridge import play_random_hand
from tests.poker.pokerkit_duel import HandResult, Options

COMBINATIONS = list(itertools.product(Variant, BettingStructure))
IDS = [f"{variant.value}-{structure.value}" for variant, structure in COMBINATIONS]
HANDS_PER_COMBINATION = 2_300  # x 9 = 20,700 hands
QUICK_HANDS = 40
QUICK_SEED_BASE = 1_000_000  # the quick test plays other hands than the slow one
CHUNK = 100


def players(seed: int) -> int:
    """2 to 10 players, evenly."""
    return 2 + seed % 9


@dataclass
class Summary:
    hands: int = 0
    decisions: int = 0
    showdowns: int = 0
    all_ins: int = 0
    by_street: Counter[int] = field(default_factory=Counter)
    translations: Counter[str] = field(default_factory=Counter)
    failure: str | None = None  # the first mismatch (lowest seed), with its reproduction

    def add(self, result: HandResult) -> None:
        self.hands += 1
        self.decisions += result.decisions
        self.showdowns += result.showdown
        self.all_ins += result.all_in
        self.by_street[result.street_reached] += 1
        self.translations.update(result.translations)

    def merge(self, other: Summary) -> None:
        self.hands += other.hands
        self.decisions += other.decisions
        self.showdowns += other.showdowns
        self.all_ins += other.all_ins
        self.by_street.update(other.by_street)
        self.translations.update(other.translations)
        if self.failure is None:
            self.failure = other.failure

    def line(self) -> str:
        counts = " ".join(f"{name}={self.translations[name]}" for name in bridge.TRANSLATIONS)
        return (
            f"{self.hands} hands, {self.decisions} decisions, {self.showdowns} showdowns, "
            f"{self.all_ins} with an all-in; translations: {counts}"
        )


def play_seeds(variant: Variant, structure: BettingStructure, seeds: Sequence[int]) -> Summary:
    summary = Summary()
    for seed in seeds:
        try:
            summary.add(play_random_hand(seed, variant, structure, players(seed)))
        except AssertionError as exc:
            summary.failure = str(exc)
            break
    return summary


def _chunks(seeds: Sequence[int]) -> Iterator[Sequence[int]]:
    for start in range(0, len(seeds), CHUNK):
        yield seeds[start : start + CHUNK]


def play_many(variant: Variant, structure: BettingStructure, seeds: Sequence[int]) -> Summary:
    """Play ``seeds`` on up to four processes; the first failure (in seed order) is kept."""
    workers = min(4, os.cpu_count() or 1)
    chunks = list(_chunks(seeds))
    total = Summary()
    if workers <= 1 or len(chunks) <= 1:
        for chunk in chunks:
            total.merge(play_seeds(variant, structure, chunk))
        return total
    # Fresh interpreters: a forked child would inherit whatever earlier tests left in this
    # process (gRPC threads, caches); one such child once spun for minutes in CI.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        parts = pool.map(play_seeds, itertools.repeat(variant), itertools.repeat(structure), chunks)
        for part in parts:
            total.merge(part)
    return total


def report(capsys: pytest.CaptureFixture[str], title: str, summary: Summary) -> None:
    with capsys.disabled():
        print(f"\n[differential] {title}: {summary.line()}")


# --------------------------------------------------------------------------- quick


@pytest.mark.parametrize(("variant", "structure"), COMBINATIONS, ids=IDS)
def test_quick_differential(
    variant: Variant, structure: BettingStructure, capsys: pytest.CaptureFixture[str]
) -> None:
    seeds = range(QUICK_SEED_BASE, QUICK_SEED_BASE + QUICK_HANDS)
    summary = play_seeds(variant, structure, list(seeds))
    assert summary.failure is None, summary.failure
    assert summary.hands == QUICK_HANDS
    assert summary.showdowns > 0


# --------------------------------------------------------------------------- slow


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "structure"), COMBINATIONS, ids=IDS)
def test_differential(
    variant: Variant, structure: BettingStructure, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = play_many(variant, structure, list(range(HANDS_PER_COMBINATION)))
    report(capsys, f"{variant.value} {structure.value}", summary)
    assert summary.failure is None, summary.failure
    assert summary.hands == HANDS_PER_COMBINATION

    # The generator must produce the situations the comparison is about.
    hands = summary.hands
    assert summary.showdowns > hands * 0.3, summary.line()
    assert summary.all_ins > hands * 0.3, summary.line()
    assert summary.by_street[3] > hands * 0.3, summary.line()
    assert summary.decisions > hands * 5, summary.line()

    # Each translation fires where it should, and only there.
    fired = summary.translations
    fixed = structure is BettingStructure.FIXED_LIMIT
    if fixed:  # choice 1 is hit whenever a fourth preflop raise is tried
        assert fired["cap_preflop"] > hands * 0.05, summary.line()
    else:
        assert fired["cap_preflop"] == 0, summary.line()
    # (a count is per decision or per hand, so these are loose bounds, not exact numbers)
    assert fired["short_all_in_preflop"] > 0, summary.line()
    assert fired["short_all_in_preflop"] < hands * 0.1, summary.line()
    assert fired["short_all_in_bet"] < hands * 0.15, summary.line()
    assert fired["short_all_in_sum_reset"] < hands * 0.01, summary.line()
    if variant is not Variant.OMAHA_HI_LO:
        assert fired["hi_lo_side_pot"] == 0, summary.line()
    assert fired["odd_chips"] < hands * 0.02, summary.line()
    assert fired["hi_lo_side_pot"] < hands * 0.05, summary.line()
    assert fired["pot_merging"] < hands * 0.15, summary.line()


# --------------------------------------------------------------------------- the harness itself


@pytest.mark.parametrize(
    ("game", "variant", "structure"),
    [
        (pk.NoLimitTexasHoldem, Variant.HOLDEM, BettingStructure.NO_LIMIT),
        (pk.FixedLimitTexasHoldem, Variant.HOLDEM, BettingStructure.FIXED_LIMIT),
        (pk.PotLimitOmahaHoldem, Variant.OMAHA, BettingStructure.POT_LIMIT),
        (
            pk.FixedLimitOmahaHoldemHighLowSplitEightOrBetter,
            Variant.OMAHA_HI_LO,
            BettingStructure.FIXED_LIMIT,
        ),
    ],
)
def test_our_pokerkit_states_match_its_presets(
    game: type[pk.Poker], variant: Variant, structure: BettingStructure
) -> None:
    """Where PokerKit has a preset, our generic construction is the same game (except the
    fixed-limit Omaha hi-lo preset, whose betting is pot-limit in PokerKit 0.7.7)."""
    blinds = position_blinds(6, 1, 2)
    config = HandConfig(variant, structure, blinds, min_bet=2)
    ours = pokerkit_tables.pokerkit_state(config, [200] * 6)
    automations = pokerkit_tables.AUTOMATIONS
    if structure is BettingStructure.FIXED_LIMIT:
        preset = game.create_state(  # type: ignore[attr-defined]
            automations, True, 0, (1, 2), 2, 4, [200] * 6, 6
        )
    else:
        preset = game.create_state(  # type: ignore[attr-defined]
            automations, True, 0, (1, 2), 2, [200] * 6, 6
        )
    assert ours.deck == preset.deck
    assert [t.__mro__[1] for t in ours.hand_types] == list(preset.hand_types)
    assert ours.blinds_or_straddles == preset.blinds_or_straddles
    if game is pk.FixedLimitOmahaHoldemHighLowSplitEightOrBetter:
        # PokerKit 0.7.7's preset: pot-limit betting, no cap. Ours: fixed limit, cap 4.
        assert preset.betting_structure is pk.BettingStructure.POT_LIMIT
        assert ours.betting_structure is pk.BettingStructure.FIXED_LIMIT
        assert all(s.max_completion_betting_or_raising_count is None for s in preset.streets)
        assert all(s.max_completion_betting_or_raising_count == 4 for s in ours.streets)
        uncapped = tuple(
            replace(s, max_completion_betting_or_raising_count=None) for s in ours.streets
        )
        assert uncapped == preset.streets
    else:
        assert ours.betting_structure == preset.betting_structure
        assert ours.streets == preset.streets


@pytest.mark.parametrize("variant", list(Variant))
def test_memoized_hands_equal_pokerkits(variant: Variant) -> None:
    """The harness's faster hand classes give exactly PokerKit's hands."""
    rng = random.Random(7)
    originals: dict[Variant, tuple[type[pk.Hand], ...]] = {
        Variant.HOLDEM: (pk.StandardHighHand,),
        Variant.OMAHA: (pk.OmahaHoldemHand,),
        Variant.OMAHA_HI_LO: (pk.OmahaHoldemHand, pk.OmahaEightOrBetterLowHand),
    }
    fast_types = pokerkit_hands.HAND_TYPES[variant]
    for _ in range(300):
        cards = rng.sample(range(52), variant.hole_card_count + 5)
        hole = [pokerkit_hands.PK_CARDS[c] for c in cards[:-5]]
        board = [pokerkit_hands.PK_CARDS[c] for c in cards[-5:]]
        for fast, original in zip(fast_types, originals[variant], strict=True):
            expected = original.from_game_or_none(hole, board)
            got = fast.from_game_or_none(hole, board)
            if expected is None:
                assert got is None
            else:
                assert got is not None
                assert got.entry == expected.entry
                assert sorted(map(repr, got.cards)) == sorted(map(repr, expected.cards))
    assert len(DECK) == len(pokerkit_hands.PK_CARDS) == 52


def test_a_mismatch_names_the_seed_and_the_command_to_replay_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A difference fails with the seed and a one-line reproduction."""
    real = bridge._Duel._pk_options

    def off_by_one(duel: bridge._Duel) -> Options:
        options = real(duel)
        if options.can_raise:
            options.min_to += 1
        return options

    monkeypatch.setattr(bridge._Duel, "_pk_options", off_by_one)
    with pytest.raises(AssertionError) as failure:
        for seed in range(50):
            play_random_hand(seed, Variant.HOLDEM, BettingStructure.NO_LIMIT, 6)
    message = str(failure.value)
    assert "legal actions of p" in message
    assert "seed=" in message
    assert "python -m tests.poker.pokerkit_bridge" in message


def test_mucking_a_losing_hand_does_not_change_the_payout() -> None:
    """p2 is all-in for 4 and loses; p1 and p3 split a 17-chip main pot (odd chip to p1) and a
    53-chip side pot (odd chip to p1) whether p2 shows or mucks: RULES.md pays each pot
    separately. The differential tests show every hand, so they cannot see this."""

    def finish(p2_mucks: bool) -> list[int]:
        config = HandConfig(Variant.HOLDEM, BettingStructure.NO_LIMIT, position_blinds(5, 1, 2))
        state = new_hand(config, (100, 100, 4, 100, 100))
        for p, cards in enumerate(["5d6d", "Th3c", "7h7d", "Td4c", "8c9c"]):
            state, _ = step(state, DealHoleCards(p, parse_cards(cards)))
        commands: list[Command] = [
            BetOrRaise(2, 4),
            Call(3),
            Call(4),
            Fold(0),
            Call(1),
            DealBoard(parse_cards("AsKsQd")),
            Check(1),
            BetOrRaise(3, 11),
            Call(4),
            Call(1),
            DealBoard(parse_cards("Jc")),
            Check(1),
            BetOrRaise(3, 10),
            Fold(4),
            Call(1),
            DealBoard(parse_cards("2h")),
            Check(1),
            Check(3),
        ]
        for command in commands:
            state, _ = step(state, command)
        while state.phase is Phase.SHOWDOWN:
            turn = showdown_turn(state)
            assert turn is not None
            mucks = p2_mucks and turn.player == 2
            state, _ = step(state, Muck(2) if mucks else Show(turn.player))
        return list(state.stacks)

    assert finish(p2_mucks=False) == [99, 111, 0, 109, 85]
    assert finish(p2_mucks=True) == [99, 111, 0, 109, 85]


def test_an_engine_that_agrees_with_pokerkits_quirk_is_still_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The harness holds our engine to the rules computed from the actions, not only to
    PokerKit: an engine whose reopening rule forgets the minimum bet (so, after an all-in bet
    below it, lets everyone raise again, as PokerKit does) fails although PokerKit agrees."""
    real = legal.raise_denial

    def forgets_the_minimum_bet(s: HandState, p: int) -> tuple[str, str] | None:
        owed = s.current_bet - s.bets[p]
        if s.acted[p] and owed >= s.increment and s.stacks[p] > owed:
            return real(dataclasses.replace(s, acted=[False] * len(s.acted)), p)
        return real(s, p)

    # The offer (legal_actions) and the check (the engine's) ask the same rule: patch both.
    monkeypatch.setattr(legal, "raise_denial", forgets_the_minimum_bet)
    monkeypatch.setattr(engine, "raise_denial", forgets_the_minimum_bet)
    with pytest.raises(AssertionError) as failure:
        for seed in range(60):
            play_random_hand(seed, Variant.HOLDEM, BettingStructure.FIXED_LIMIT, 2 + seed % 9)
    assert "only short all-ins" in str(failure.value)
