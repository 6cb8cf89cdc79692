"""The arena: duplicate seating, chip accounting, all-in EV, the command line, and a short ladder
whose gaps are many standard errors wide (the full ladder is ``make ladder``, docs/ai.md)."""

from __future__ import annotations

import json

import pytest

from libs.ai import Decision, Level, SeatView, legal
from libs.ai.arena import (
    LevelPlayer,
    MatchConfig,
    Player,
    Scoring,
    Tally,
    deck,
    play_hand,
    run_match,
)
from libs.ai.ladder import LADDER
from libs.ai.shortstack.charts import Antes
from libs.ai.shortstack.play import antes_of
from libs.cli.main import main
from libs.poker import ActionKind, BettingStructure, Card, Variant, parse_cards
from libs.poker.equity import equity

GENEROUS = 30.0  # seconds per Hard decision: its sample cap binds, so a seed repeats exactly


class Shover:
    name = "shover"

    def act(self, view: SeatView, seed: int) -> Decision:
        return legal(view, ActionKind.RAISE, view.options.max_to)


def test_identical_players_break_exactly_even_in_every_duplicate_group() -> None:
    for seats in (2, 3, 6):
        result = run_match(
            LevelPlayer(Level.CALL), LevelPlayer(Level.CALL), 60, MatchConfig(seats=seats)
        )
        assert all(group.mean == 0 for group in result.groups)
        assert result.summary().mean == 0


@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("structure", list(BettingStructure))
@pytest.mark.parametrize("scoring", list(Scoring))
def test_every_hand_conserves_chips(
    variant: Variant, structure: BettingStructure, scoring: Scoring
) -> None:
    config = MatchConfig(variant, structure, seats=6, scoring=scoring, stack_bb=30)
    players: list[Player] = [LevelPlayer(Level.RANDOM), Shover(), LevelPlayer(Level.NORMAL)] * 2
    tallies = {"a": Tally(), "b": Tally()}
    for group in range(6):
        seated = [(p, "a" if i == 0 else "b") for i, p in enumerate(players)]
        nets, _ = play_hand(config, deck(3, group), seated, group, tallies)
        assert sum(nets) == pytest.approx(0, abs=1e-6)
        if scoring is Scoring.CHIPS:
            assert all(float(n).is_integer() for n in nets)
    assert tallies["a"].illegal == tallies["b"].illegal == 0


def test_all_in_ev_scores_the_equity_not_the_runout() -> None:
    cards = list(parse_cards("AsAhKsKh")) + [Card(c) for c in range(52)]
    stacked = tuple(dict.fromkeys(cards))  # AA to position 0, KK to position 1, then the rest
    nets = {}
    for scoring in Scoring:
        config = MatchConfig(scoring=scoring, stack_bb=50)
        seated = [(Shover(), "a"), (Shover(), "b")]
        nets[scoring], used = play_hand(config, stacked, seated, 1, {"a": Tally(), "b": Tally()})
        assert used == (scoring is Scoring.ALLIN_EV)
    pot = 2 * config.stack
    share = (
        equity(
            Variant.HOLDEM, [parse_cards("AsAh"), parse_cards("KsKh")], max_samples=3_000, seed=1
        )
        .players[0]
        .equity
    )
    assert nets[Scoring.ALLIN_EV][0] == pytest.approx(share * pot - config.stack, rel=0.05)
    assert nets[Scoring.CHIPS][0] in (config.stack, -config.stack, 0)


def test_the_ladder_covers_every_required_gap() -> None:
    settings = {(r.variant, r.structure, r.seats) for r in LADDER}
    assert settings == {
        (Variant.HOLDEM, BettingStructure.NO_LIMIT, 2),
        (Variant.HOLDEM, BettingStructure.NO_LIMIT, 6),
        (Variant.OMAHA_HI_LO, BettingStructure.POT_LIMIT, 2),
        (Variant.OMAHA_HI_LO, BettingStructure.POT_LIMIT, 6),
    }
    for setting in settings:
        pairs = {(r.a, r.b) for r in LADDER if (r.variant, r.structure, r.seats) == setting}
        assert pairs == {
            (Level.HARD, Level.NORMAL),
            (Level.NORMAL, Level.EASY),
            (Level.EASY, Level.CALL),
            (Level.EASY, Level.RANDOM),
        }


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["arena", *args])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_the_command_line_reports_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(capsys, "--a", "easy", "--b", "call", "--hands", "40", "--json")
    assert status == 0
    result = json.loads(out)
    assert {"a", "b", "hands", "mbb_per_hand", "ci95", "method", "scoring", "sd"} <= set(result)
    assert result["hands"] == 40 and result["method"] == "duplicate"
    low, high = result["ci95"]
    assert low <= result["mbb_per_hand"] <= high


@pytest.mark.parametrize(
    "args",
    [
        ("--hands", "1"),
        ("--hands", "13", "--seats", "6", "--variant", "omaha_hi_lo", "--structure", "fixed_limit"),
        ("--hands", "3", "--seats", "3", "--variant", "omaha", "--structure", "pot_limit"),
        ("--hands", "2", "--stack-bb", "1", "--scoring", "chips"),
    ],
)
def test_the_command_line_plays_any_size(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...]
) -> None:
    status, out, _ = run_cli(capsys, "--a", "hard", "--b", "random", "--json", *args)
    assert status == 0
    result = json.loads(out)
    seats = int(args[args.index("--seats") + 1]) if "--seats" in args else 2
    assert result["hands"] % seats == 0 and result["hands"] >= int(args[1])
    if result["groups"] < 2:
        assert result["ci95"] is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--a", "hard", "--b", "call", "--hands", "0"), "--hands must be 1 to"),
        (("--a", "hard", "--b", "call", "--hands", "x"), "whole number"),
        (("--a", "hard", "--b", "call", "--hands", "2", "--seats", "7"), "--seats must be 2 to 6"),
        (("--a", "hard", "--b", "call", "--hands", "2", "--variant", "stud"), "invalid choice"),
        (("--a", "wizard", "--b", "call", "--hands", "2"), "unknown player 'wizard'"),
        (("--a", "grpc://nohost", "--b", "call", "--hands", "2"), "grpc://HOST:PORT"),
        (("--a", "hard", "--hands", "2"), "--a, --b and --hands are required"),
        (("--a", "hard", "--b", "call", "--hands", "2", "--stack-bb", "0"), "--stack-bb"),
    ],
)
def test_bad_arguments_are_refused_clearly(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    try:
        status = main(["arena", *args])
    except SystemExit as exit_:
        status = int(exit_.code or 0)
    assert status == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("a", "b", "variant", "structure", "seats", "hands"),
    [
        (Level.HARD, Level.RANDOM, Variant.HOLDEM, BettingStructure.NO_LIMIT, 2, 600),
        (Level.HARD, Level.CALL, Variant.HOLDEM, BettingStructure.NO_LIMIT, 2, 600),
        (Level.HARD, Level.FOLD, Variant.HOLDEM, BettingStructure.NO_LIMIT, 2, 200),
        (Level.NORMAL, Level.CALL, Variant.HOLDEM, BettingStructure.NO_LIMIT, 2, 600),
        (Level.EASY, Level.RANDOM, Variant.HOLDEM, BettingStructure.NO_LIMIT, 2, 2000),
        (Level.HARD, Level.RANDOM, Variant.OMAHA_HI_LO, BettingStructure.POT_LIMIT, 6, 900),
    ],
)
def test_short_ladder(
    a: Level, b: Level, variant: Variant, structure: BettingStructure, seats: int, hands: int
) -> None:
    """Gaps many standard errors wide at these sizes; seeded, so the run repeats exactly."""
    config = MatchConfig(variant, structure, seats=seats, seed=2024)
    result = run_match(LevelPlayer(a, GENEROUS), LevelPlayer(b, GENEROUS), hands, config)
    s = result.summary()
    assert s.ci95 is not None and s.ci95[0] > 0, result.to_json()


def test_the_ladder_command_plays_every_rung(capsys: pytest.CaptureFixture[str]) -> None:
    # One duplicate group per rung: no interval yet, so the command says the ladder fails.
    status, out, err = run_cli(capsys, "--ladder", "--scale", "0.00001", "--json", "--quiet")
    rows = json.loads(out)
    assert len(rows) == len(LADDER) and all(r["ci95"] is None for r in rows)
    assert status == 1 and "interval not above zero" in err


class AnteReader:
    """Folds, noting which kept ante structure each view reads."""

    name = "ante reader"

    def __init__(self) -> None:
        self.seen: set[Antes] = set()

    def act(self, view: SeatView, seed: int) -> Decision:
        self.seen.add(antes_of(view))
        return legal(view, ActionKind.FOLD if view.options.can_fold else ActionKind.CHECK)


@pytest.mark.parametrize("seats", [2, 6])
def test_antes_are_posted_seen_and_conserve_chips(seats: int) -> None:
    for config, expected in (
        (MatchConfig(seats=seats, stack_bb=10, ante_bb=0.1), Antes.TENTH),
        (MatchConfig(seats=seats, stack_bb=10, big_blind_ante_bb=1), Antes.BIG_BLIND_ANTE),
    ):
        reader = AnteReader()
        seated: list[tuple[Player, str]] = [(reader, "a")] + [(Shover(), "b")] * (seats - 1)
        nets, _ = play_hand(config, deck(5, 0), seated, 0, {"a": Tally(), "b": Tally()})
        assert sum(nets) == pytest.approx(0, abs=1e-6)
        assert reader.seen == {expected}
        posted = config.hand_config().antes
        assert sum(posted) == (10 * seats if config.ante_bb else 100)


def test_bad_antes_are_refused() -> None:
    with pytest.raises(ValueError, match="not both"):
        MatchConfig(ante_bb=0.1, big_blind_ante_bb=1)
    with pytest.raises(ValueError, match="one chip"):
        MatchConfig(ante_bb=0.001)
    assert (
        main(
            [
                "arena",
                "--a",
                "call",
                "--b",
                "call",
                "--hands",
                "2",
                "--ante",
                "0.1",
                "--bb-ante",
                "1",
            ]
        )
        == 2
    )
