"""Evaluator use cases: rank hands, split pots at showdown, estimate equity within a budget.

Plain Python over libs/poker (the fast evaluator and ``libs.poker.equity``); the servicer only
translates protobuf to these types and back. Invalid requests raise ``InvalidArgument``.

Only well-formed hands are ranked: hold'em 2 hole cards, Omaha 4, on a board of 3 to 5 cards
(a showdown: exactly 5; equity: 0, 3, 4 or 5), no card twice in one hand (in a showdown or an
equity request: in the whole request). A showdown names each seat once, and every seat a pot
pays holds a hand. Each call's cost is capped by :class:`Limits` (HOLDEM_EVALUATOR_* settings):
holdings per batch, and the samples and time of a Monte Carlo equity estimate, which stops at
its budget and reports its standard error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from libs.errors import InvalidArgument
from libs.poker.config import Variant
from libs.poker.equity import EquityResult, equity
from libs.poker.errors import BAD_CARDS, DUPLICATE_CARD
from libs.poker.fast import FastEvaluator, tables
from libs.poker.fast.tables import omaha_tables
from libs.poker.hand_values import describe_high, describe_low, omaha_low_value
from libs.poker.pots import split_evenly
from services.evaluator.config import DEFAULT_LIMITS, Limits

# Error codes (cards that are not a valid hand use the engine's: BAD_CARDS, DUPLICATE_CARD).
INVALID_VARIANT = "INVALID_VARIANT"
INVALID_CONTENDERS = "INVALID_CONTENDERS"
INVALID_ODD_CHIP_ORDER = "INVALID_ODD_CHIP_ORDER"
INVALID_POT = "INVALID_POT"
INVALID_EQUITY_REQUEST = "INVALID_EQUITY_REQUEST"
BATCH_TOO_LARGE = "BATCH_TOO_LARGE"

EVALUATOR = FastEvaluator()
DEFAULT_MAX_SAMPLES = 200_000
DEFAULT_TIME_BUDGET_MS = 1_000
DECK_SIZE = 52
BOARD_SIZES = (0, 3, 4, 5)


def warm_up() -> None:
    """Build the lookup tables now rather than on the first request."""
    tables()
    omaha_tables()
    EVALUATOR.high([0, 5, 10, 15, 20])


@dataclass(frozen=True)
class HighResult:
    value: int
    best_five: tuple[int, ...]
    description: str


@dataclass(frozen=True)
class LowResult:
    value: int
    best_five: tuple[int, ...]
    description: str


@dataclass(frozen=True)
class HandResult:
    high: HighResult
    low: LowResult | None


def _check_cards(cards: Sequence[int], where: str = "the hand") -> None:
    if len(set(cards)) != len(cards):
        raise InvalidArgument(DUPLICATE_CARD, f"a card appears more than once in {where}")


def _check_hole(variant: Variant, hole: Sequence[int], whose: str) -> None:
    count = variant.hole_card_count
    if len(hole) != count:
        raise InvalidArgument(
            BAD_CARDS, f"{whose} has {len(hole)} hole cards; {_name(variant)} needs {count}"
        )


def _name(variant: Variant) -> str:
    return "hold'em" if variant is Variant.HOLDEM else "Omaha"


def check_batch(limits: Limits, count: int) -> None:
    if count > limits.max_batch:
        raise InvalidArgument(
            BATCH_TOO_LARGE, f"at most {limits.max_batch} holdings per call, not {count}"
        )


def evaluate(variant: Variant, hole: Sequence[int], board: Sequence[int]) -> HandResult:
    """Best high (and, in hi-lo, the best qualifying low) of one holding: the variant's number of
    hole cards on a board of 3 to 5 cards."""
    _check_hole(variant, hole, "the hand")
    if not 3 <= len(board) <= 5:
        raise InvalidArgument(
            BAD_CARDS, f"a hand is ranked on 3 to 5 board cards, not {len(board)}"
        )
    _check_cards([*hole, *board])
    if variant is Variant.HOLDEM:
        cards = [*hole, *board]
        value = EVALUATOR.high(cards)
        best = next(c for c in combinations(cards, 5) if EVALUATOR.high(c) == value)
        return HandResult(HighResult(value, best, describe_high(value)), None)
    value = EVALUATOR.omaha_high(hole, board)
    best = next(
        p + t
        for p in combinations(hole, 2)
        for t in combinations(board, 3)
        if EVALUATOR.high(p + t) == value
    )
    high = HighResult(value, best, describe_high(value))
    if variant is not Variant.OMAHA_HI_LO:
        return HandResult(high, None)
    low_value = EVALUATOR.omaha_low(hole, board)
    if low_value is None:
        return HandResult(high, None)
    low_best = next(
        p + t
        for p in combinations(hole, 2)
        for t in combinations(board, 3)
        if omaha_low_value(p, t) == low_value
    )
    return HandResult(high, LowResult(low_value, low_best, describe_low(low_value)))


@dataclass(frozen=True)
class PotToSplit:
    amount: int
    eligible: tuple[int, ...]  # seats


@dataclass(frozen=True)
class Award:
    pot_index: int
    seat: int
    amount: int
    share: str  # "whole", "high" or "low"
    description: str


def resolve_showdown(
    variant: Variant,
    board: Sequence[int],
    hands: Sequence[tuple[int, Sequence[int]]],
    pots: Sequence[PotToSplit],
    odd_chip_order: Sequence[int],
) -> tuple[list[Award], dict[int, HandResult]]:
    """Split every pot among its eligible contenders (``hands``: (seat, hole cards), each seat
    once); odd chips one at a time in ``odd_chip_order`` (seats from the button's left; default:
    ascending seats). In hi-lo the odd chip of the high/low split goes to the high half."""
    if len(board) != 5:
        raise InvalidArgument(BAD_CARDS, f"a showdown needs a 5-card board, got {len(board)}")
    contenders: dict[int, Sequence[int]] = {}
    for seat, hole in hands:
        if seat in contenders:
            raise InvalidArgument(INVALID_CONTENDERS, f"seat {seat} shows a hand twice")
        _check_hole(variant, hole, f"seat {seat}")
        contenders[seat] = hole
    _check_cards([*board, *(c for hole in contenders.values() for c in hole)], "the showdown")
    order = list(odd_chip_order) or sorted(contenders)
    position = {seat: i for i, seat in enumerate(order)}
    if len(position) != len(order) or not set(contenders) <= set(position):
        raise InvalidArgument(
            INVALID_ODD_CHIP_ORDER, "odd_chip_order must list every contender's seat once"
        )
    for index, pot in enumerate(pots):
        if pot.amount < 0:
            raise InvalidArgument(INVALID_POT, f"pot {index} has a negative amount")
        if len(set(pot.eligible)) != len(pot.eligible):
            raise InvalidArgument(INVALID_POT, f"pot {index} names a seat twice among its eligible")
        if not pot.eligible or not set(pot.eligible) <= set(contenders):
            raise InvalidArgument(
                INVALID_POT, f"pot {index} must be eligible to contenders only, and to at least one"
            )
    results = {seat: evaluate(variant, hole, board) for seat, hole in contenders.items()}
    awards: list[Award] = []
    for index, pot in enumerate(pots):
        high_best = max(results[s].high.value for s in pot.eligible)
        high_winners = [s for s in pot.eligible if results[s].high.value == high_best]
        lows = {s: low.value for s in pot.eligible if (low := results[s].low) is not None}
        if not lows:
            awards += _split(index, pot.amount, high_winners, position, "whole", results, False)
            continue
        low_best = min(lows.values())
        low_winners = [s for s, v in lows.items() if v == low_best]
        low_half = pot.amount // 2
        awards += _split(
            index, pot.amount - low_half, high_winners, position, "high", results, False
        )
        awards += _split(index, low_half, low_winners, position, "low", results, True)
    return awards, results


def _split(
    pot_index: int,
    amount: int,
    winners: Sequence[int],
    position: Mapping[int, int],
    share: str,
    results: Mapping[int, HandResult],
    low: bool,
) -> list[Award]:
    seat_at = {position[s]: s for s in winners}
    out = []
    for pos, chips in split_evenly(amount, [position[s] for s in winners]):
        seat = seat_at[pos]
        hand = results[seat]
        text = hand.low.description if low and hand.low else hand.high.description
        out.append(Award(pot_index, seat, chips, share, text))
    return out


def estimate_equity(
    variant: Variant,
    players: Sequence[Sequence[int]],
    board: Sequence[int],
    dead: Sequence[int],
    max_samples: int,
    time_budget_ms: int,
    seed: int,
    target_std_error: float,
    limits: Limits = DEFAULT_LIMITS,
    stop: Callable[[], bool] | None = None,
) -> EquityResult:
    """Equity within the budget (0 = the service default); samples and time are capped by
    ``limits``. Monte Carlo stops at whichever comes first and reports its standard error;
    exact enumeration (every hand known, few enough runouts: ``libs.poker.equity.EXACT_LIMIT``)
    is bounded by that limit instead (about a second at most). ``stop``: see
    ``libs.poker.equity.equity``."""
    if not 2 <= len(players) <= 10:
        raise InvalidArgument(
            INVALID_EQUITY_REQUEST, f"equity needs 2 to 10 players, not {len(players)}"
        )
    if len(board) not in BOARD_SIZES:
        raise InvalidArgument(BAD_CARDS, f"a board has 0, 3, 4 or 5 cards, not {len(board)}")
    hole_count = variant.hole_card_count
    for index, hole in enumerate(players):
        if len(hole) > hole_count:
            raise InvalidArgument(
                BAD_CARDS,
                f"player {index} has {len(hole)} hole cards; {_name(variant)} has {hole_count}",
            )
    known = [*board, *dead, *(c for hole in players for c in hole)]
    _check_cards(known, "the request")
    to_deal = (5 - len(board)) + sum(hole_count - len(hole) for hole in players)
    if len(known) + to_deal > DECK_SIZE:
        raise InvalidArgument(
            INVALID_EQUITY_REQUEST,
            f"{len(known)} known cards leave too few in the deck to deal {to_deal} more",
        )
    if max_samples == 0 and time_budget_ms == 0:
        max_samples, time_budget_ms = DEFAULT_MAX_SAMPLES, DEFAULT_TIME_BUDGET_MS
    try:
        return equity(
            variant,
            players,
            board,
            dead,
            max_samples=min(max_samples or limits.max_equity_samples, limits.max_equity_samples),
            time_budget=min(time_budget_ms or limits.max_equity_ms, limits.max_equity_ms) / 1000,
            target_std_error=target_std_error or None,
            seed=seed or None,
            stop=stop,
        )
    except ValueError as error:
        raise InvalidArgument(INVALID_EQUITY_REQUEST, str(error)) from error
