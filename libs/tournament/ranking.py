"""Final places and prizes. Busts ranked together take the worst places still free: a later bust
ranks above an earlier one; busts of one hand (or of one hand-for-hand round) rank by their
stacks at the start of that hand, the bigger stack higher; equal stacks tie and share the places
they cover. Prizes are paid at the end: each place's prize from the payout table, tied players
splitting the prizes of the places they share, the odd chips one each in registration order.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

from .events import Payment, PaymentReason, Placing
from .payouts import prizes, split
from .state import Entrant, TournamentState


def _standing(entrant: Entrant) -> tuple[int, int]:
    """What ranks a bust: when (later is better), then the stack the hand began with."""
    assert entrant.bust is not None
    return (entrant.bust.order, entrant.bust.start_stack)


def rank(busts: Sequence[Entrant], players_left: int) -> tuple[Placing, ...]:
    """Places for ``busts``, eliminated at once while ``players_left`` were still in: the worst
    of them takes place ``players_left``. Ties share the best place of their range."""
    worst_first = sorted(busts, key=lambda e: (_standing(e), e.entry))
    placings: list[Placing] = []
    place = players_left
    for _, group in groupby(worst_first, key=_standing):
        tied = list(group)
        best = place - len(tied) + 1
        placings.extend(Placing(e.player_id, best, len(tied)) for e in tied)
        place = best - 1
    return tuple(placings)


def prize_key(tournament_id: str, player_id: str) -> str:
    return f"{tournament_id}:prize:{player_id}"


def refund_key(tournament_id: str, registration_key: str) -> str:
    return f"{tournament_id}:refund:{registration_key}"


def awards(s: TournamentState) -> tuple[Payment, ...]:
    """Every prize above 0 once each entrant has a place, best place first. They add up to the
    prize pool: the prizes by place do (remainder to first), and a tie splits exactly the prizes
    of the places it covers."""
    by_place = prizes(s.prize_pool, s.cfg.payouts.shares_for(len(s.entrants)))
    placed = sorted(s.entrants.values(), key=lambda e: (e.place, e.entry))
    payments = []
    for (place, tied), group in groupby(placed, key=lambda e: (e.place, e.tied)):
        players = list(group)
        total = sum(by_place[p - 1] for p in range(place, place + tied) if p <= len(by_place))
        for entrant, amount in zip(players, split(total, len(players)), strict=True):
            if amount > 0:
                payments.append(
                    Payment(
                        prize_key(s.tournament_id, entrant.player_id),
                        entrant.player_id,
                        amount,
                        PaymentReason.PRIZE,
                        place,
                    )
                )
    return tuple(payments)


def refunds(s: TournamentState) -> tuple[Payment, ...]:
    """What a cancellation owes: everything each entrant paid in, one payment each."""
    return tuple(
        Payment(refund_key(s.tournament_id, e.key), e.player_id, e.paid, PaymentReason.REFUND)
        for e in s.entrants.values()
        if e.paid > 0
    )
