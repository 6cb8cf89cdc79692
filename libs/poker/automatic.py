"""The steps of a hand that no player decides, run after every command until the hand waits for
a decision (``advance``): returning an uncalled bet and closing a betting round, showing the
hands of an all-in runout, and at the end taking the rake and awarding each pot (high and low
shares, odd chips) with ``HandEnded``.
"""

from __future__ import annotations

from collections.abc import Callable

from .config import Variant
from .evaluation import HandEvaluator
from .events import (
    BettingRoundEnded,
    Event,
    HandEnded,
    HandShown,
    PotAwarded,
    RakeTaken,
    UncalledBetReturned,
)
from .hand_values import describe_high, describe_low
from .legal import contenders, pots_of
from .pots import Pot, rake_amount, split_evenly, take_rake
from .runs import run_board, run_offer, run_shares, runs_decided
from .state import HandState, Phase

Emit = Callable[[Event], None]


def advance(s: HandState, emit: Emit, evaluator: HandEvaluator) -> None:
    """Run every step that needs no decision, until the hand waits for one (or is over)."""
    while True:
        phase = s.phase
        if phase is Phase.BETTING:
            if s.actors and s.folded.count(False) > 1:  # mucking happens only later
                return
            _close_round(s, emit)
        elif phase is Phase.DEALING_BOARD:
            if s.runout:
                hidden = [i for i in _reveal_order(s) if s.shown[i] is None]
                if hidden:
                    for i in hidden:
                        emit(HandShown(i, s.hole[i]))
                offer = run_offer(s)
                if offer is not None:
                    emit(offer)  # the players answer (libs.poker.runs)
            return
        elif phase is Phase.AGREEING_RUNS:
            decided = runs_decided(s)
            if decided is None:
                return
            emit(decided)
        elif phase is Phase.SHOWDOWN:
            if s.showdown_queue and sum(contenders(s)) > 1:
                return
            _award(s, emit, evaluator)
        elif phase is Phase.AWARDING:
            _award(s, emit, evaluator)
        else:
            return


def _reveal_order(s: HandState) -> list[int]:
    n = len(s.stacks)
    start = s.last_aggressor if s.last_aggressor is not None else 0
    return [(start + k) % n for k in range(n) if not s.folded[(start + k) % n]]


def _close_round(s: HandState, emit: Emit) -> None:
    bets = s.bets
    top = max(bets)
    if top:
        leader = bets.index(top)
        second = max(b for i, b in enumerate(bets) if i != leader)
        if top > second:
            emit(UncalledBetReturned(leader, top - second))
    emit(BettingRoundEnded(s.street, s.pot + sum(s.bets)))


def _award(s: HandState, emit: Emit, evaluator: HandEvaluator) -> None:
    pots = pots_of(s)
    rake = rake_amount(sum(p.amount for p in pots), s.config.rake, s.flop_seen)
    if rake:
        emit(RakeTaken(rake))
        pots = take_rake(pots, rake)
    for index in range(len(pots) - 1, -1, -1):
        pot = pots[index]
        contested = sum(1 for p in pot.eligible if not s.mucked[p]) > 1
        if s.runs > 1 and contested:  # one share per run of the board, odd chips to the first
            for run, share in enumerate(run_shares(pot.amount, s.runs)):
                if share:
                    part = Pot(share, pot.eligible)
                    for award in _pot_awards(s, index, part, evaluator, run_board(s, run), run):
                        emit(award)
            continue
        for award in _pot_awards(s, index, pot, evaluator, s.board):
            emit(award)
    emit(HandEnded(tuple(s.stacks)))


def _pot_awards(
    s: HandState,
    index: int,
    pot: Pot,
    evaluator: HandEvaluator,
    board: tuple[int, ...],
    run: int = 0,
) -> list[PotAwarded]:
    """The awards of ``pot`` on ``board`` (run ``run`` of the board)."""
    eligible = tuple(p for p in pot.eligible if not s.mucked[p])
    if len(eligible) == 1:
        return [PotAwarded(index, pot.amount, "whole", ((eligible[0], pot.amount),), eligible)]
    variant = s.config.variant
    if variant is Variant.HOLDEM:
        highs = {p: evaluator.high(s.hole[p] + tuple(board)) for p in eligible}
    else:
        highs = {p: evaluator.omaha_high(s.hole[p], board) for p in eligible}
    best_high = max(highs.values())
    high_winners = [p for p in eligible if highs[p] == best_high]
    lows: dict[int, int] = {}
    if variant is Variant.OMAHA_HI_LO:
        for p in eligible:
            low = evaluator.omaha_low(s.hole[p], board)
            if low is not None:
                lows[p] = low
    if not lows:
        return [
            PotAwarded(
                index,
                pot.amount,
                "whole",
                tuple(split_evenly(pot.amount, high_winners)),
                eligible,
                describe_high(best_high),
                run,
            )
        ]
    best_low = min(lows.values())
    low_winners = [p for p in eligible if lows.get(p) == best_low]
    low_amount = pot.amount // 2
    high_amount = pot.amount - low_amount  # the odd chip of the split goes high
    return [
        PotAwarded(
            index,
            high_amount,
            "high",
            tuple(split_evenly(high_amount, high_winners)),
            eligible,
            describe_high(best_high),
            run,
        ),
        PotAwarded(
            index,
            low_amount,
            "low",
            tuple(split_evenly(low_amount, low_winners)),
            eligible,
            describe_low(best_low),
            run,
        ),
    ]
