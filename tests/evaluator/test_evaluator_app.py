"""Evaluator use cases on well-formed and malformed hands, showdowns and equity requests, and the
cost caps of one call (services/evaluator/app.py, in process)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from libs.errors import InvalidArgument
from libs.poker.cards import parse_cards
from libs.poker.config import Variant
from services.evaluator.app import PotToSplit, check_batch, estimate_equity, evaluate
from services.evaluator.app import resolve_showdown as resolve
from services.evaluator.config import DEFAULT_LIMITS, Limits


def cards(text: str) -> list[int]:
    return list(parse_cards(text))


class _Code:
    """``with _Code("X"):`` expects InvalidArgument with code X."""

    def __init__(self, code: str) -> None:
        self.code = code

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, error: object, trace: object) -> bool:
        assert isinstance(error, InvalidArgument), f"expected InvalidArgument, got {error!r}"
        assert error.code == self.code, error.message
        return True


def test_evaluator_refuses_to_rank_a_holdem_hand_of_7_hole_cards() -> None:
    """Issue 9: the evaluator ranked a hold'em hand of 7 hole cards."""
    with _Code("BAD_CARDS"):
        evaluate(Variant.HOLDEM, cards("AhKhQhJhTh2c3d"), [])
    with _Code("BAD_CARDS"):
        evaluate(Variant.HOLDEM, cards("AhKhQh"), cards("JhTh2c3d"))
    assert evaluate(Variant.HOLDEM, cards("AhKh"), cards("QhJhTh2c3d")).high.value > 0


@pytest.mark.parametrize(
    ("variant", "hole", "board", "code"),
    [
        (Variant.HOLDEM, "Ah", "KhQhJhTh2c", "BAD_CARDS"),
        (Variant.HOLDEM, "AhKh", "QhJh", "BAD_CARDS"),  # a board of 2 ranks nothing
        (Variant.HOLDEM, "AhKh", "", "BAD_CARDS"),
        (Variant.HOLDEM, "AhKh", "QhJhTh2c3d4d", "BAD_CARDS"),
        (Variant.OMAHA, "AhKhQh", "JhTh2c", "BAD_CARDS"),
        (Variant.OMAHA, "AhKhQhJhTh", "2c3c4c", "BAD_CARDS"),
        (Variant.OMAHA_HI_LO, "AhKh", "QhJhTh", "BAD_CARDS"),
        (Variant.HOLDEM, "AhAh", "QhJhTh", "DUPLICATE_CARD"),
        (Variant.OMAHA, "AhKh2c3c", "AhJhTh", "DUPLICATE_CARD"),
    ],
)
def test_only_well_formed_hands_are_ranked(
    variant: Variant, hole: str, board: str, code: str
) -> None:
    with _Code(code):
        evaluate(variant, cards(hole), cards(board))


def test_each_variant_ranks_its_own_hand_on_every_board_size() -> None:
    for board in ("QhJhTh", "QhJhTh2c", "QhJhTh2c3d"):
        assert evaluate(Variant.HOLDEM, cards("AhKh"), cards(board)).high.value > 0
        assert evaluate(Variant.OMAHA, cards("AhKh4c5c"), cards(board)).high.value > 0


def showdown(
    eligible: Sequence[int],
    hands: Sequence[tuple[int, str]] = ((0, "AhAd"), (1, "KhKd")),
    order: Sequence[int] = (),
) -> dict[int, int]:
    awards, _ = resolve(
        Variant.HOLDEM,
        cards("2c7d9hJsQc"),
        [(seat, cards(hole)) for seat, hole in hands],
        [PotToSplit(100, tuple(eligible))],
        order,
    )
    paid: dict[int, int] = {}
    for award in awards:
        paid[award.seat] = paid.get(award.seat, 0) + award.amount
    return paid


def test_resolve_showdown_with_eligible_seats_0_0_1_pays_nobody_twice() -> None:
    """Issue 9: ResolveShowdown with eligible seats [0,0,1] paid seat 0 twice."""
    with _Code("INVALID_POT"):
        showdown([0, 0, 1])
    assert showdown([0, 1]) == {0: 100}


def test_a_pot_may_pay_only_seats_that_show_a_hand() -> None:
    with _Code("INVALID_POT"):
        showdown([0, 1, 5])
    with _Code("INVALID_POT"):
        showdown([])


def test_a_seat_shows_one_hand() -> None:
    with _Code("INVALID_CONTENDERS"):
        showdown([0, 1], hands=[(0, "AhAd"), (1, "KhKd"), (0, "3s3c")])


def test_no_card_twice_in_a_showdown() -> None:
    with _Code("DUPLICATE_CARD"):
        showdown([0, 1], hands=[(0, "AhAd"), (1, "AhKd")])
    with _Code("DUPLICATE_CARD"):
        showdown([0, 1], hands=[(0, "AhAd"), (1, "2cKd")])  # 2c is on the board


def test_the_odd_chip_order_lists_each_contender_once() -> None:
    with _Code("INVALID_ODD_CHIP_ORDER"):
        showdown([0, 1], order=[0, 0, 1])
    with _Code("INVALID_ODD_CHIP_ORDER"):
        showdown([0, 1], order=[1])


def test_a_showdown_conserves_every_pot() -> None:
    awards, _ = resolve(
        Variant.OMAHA_HI_LO,
        cards("2c3d4hKcKd"),
        [(0, cards("As5s9d9c")), (3, cards("Ah5h9h9s")), (7, cards("KhKsJcJd"))],
        [PotToSplit(103, (0, 3, 7)), PotToSplit(11, (3, 7))],
        [3, 7, 0],
    )
    assert sum(a.amount for a in awards if a.pot_index == 0) == 103
    assert sum(a.amount for a in awards if a.pot_index == 1) == 11


def equity_of(
    players: Sequence[str],
    board: str = "",
    dead: str = "",
    variant: Variant = Variant.HOLDEM,
    limits: Limits = DEFAULT_LIMITS,
    max_samples: int = 0,
    time_budget_ms: int = 0,
) -> tuple[int, bool, list[float]]:
    result = estimate_equity(
        variant,
        [cards(p) for p in players],
        cards(board),
        cards(dead),
        max_samples,
        time_budget_ms,
        seed=7,
        target_std_error=0.0,
        limits=limits,
    )
    return result.samples, result.exact, [p.std_error for p in result.players]


@pytest.mark.parametrize(
    ("players", "board", "dead", "code"),
    [
        (["AhKh"], "", "", "INVALID_EQUITY_REQUEST"),
        (["AhKh", "QsQd", "Tc9c"] * 4, "", "", "INVALID_EQUITY_REQUEST"),
        (["AhKh", "QsQd"], "2c3c", "", "BAD_CARDS"),
        (["AhKh", "QsQd"], "2c3c4c5c6c7c", "", "BAD_CARDS"),
        (["AhKhQs", "2d2s"], "", "", "BAD_CARDS"),
        (["AhKh", "AhQd"], "", "", "DUPLICATE_CARD"),
        (["AhKh", "QsQd"], "2c3c4c", "2c", "DUPLICATE_CARD"),
    ],
)
def test_malformed_equity_requests_are_refused(
    players: list[str], board: str, dead: str, code: str
) -> None:
    with _Code(code):
        equity_of(players, board, dead)


def test_an_equity_request_needing_more_cards_than_the_deck_has_is_refused() -> None:
    everything_else = "".join(
        r + s for r in "23456789TJQKA" for s in "cdhs" if r + s not in ("Ah", "Kh")
    )
    with _Code("INVALID_EQUITY_REQUEST"):
        equity_of(["AhKh", ""], dead=everything_else[: 2 * 47])
    with _Code("INVALID_EQUITY_REQUEST"):
        equity_of(
            ["", "", "", "", "", "", "", "", "", ""], variant=Variant.OMAHA, dead="2c2d2h2s3c3d3h3s"
        )


def test_equity_samples_are_capped_and_the_estimate_reports_its_error() -> None:
    samples, exact, errors = equity_of(
        ["AhKh", ""], limits=Limits(max_equity_samples=2_000), max_samples=10_000_000
    )
    assert not exact and samples <= 2_000
    assert all(0 < e < 0.05 for e in errors)


def test_equity_time_is_capped_by_the_limit() -> None:
    """A budget far above the cap is cut to it: the call ends (the sample cap, far away, is not
    what stops it), with an estimate and its standard error."""
    samples, exact, errors = equity_of(
        ["AhKh", "", ""],
        limits=Limits(max_equity_ms=20, max_equity_samples=100_000_000),
        time_budget_ms=3_600_000,
    )
    assert not exact and 0 < samples < 100_000_000
    assert all(0 < e < 1 for e in errors)


def test_batches_are_capped() -> None:
    check_batch(Limits(max_batch=3), 3)
    with _Code("BATCH_TOO_LARGE"):
        check_batch(Limits(max_batch=3), 4)
