"""The model of a reasonable opponent that Hard reads the action with: what each voluntary action
of the hand faced (``spots``: the price, the pot, the raises before it, who acts behind), how
likely that action was with a holding of each strength (``likelihood``: the stronger, the likelier
it bets or raises and the less likely it folds, with thresholds that move with the price, the
number of raises and the position, and floors so no holding is ever ruled out), and how likely it
folds to a bet (``fold_chance``). Strengths are shares in 0..1 (``ranges`` rates them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .strength import Floats
from .view import PREFLOP, Move, PublicAction, SeatView


@dataclass(frozen=True, slots=True)
class Spot:
    """One voluntary action with what its player faced when taking it."""

    action: PublicAction
    to_call: int  # chips needed to call before acting
    pot: int  # every chip in the middle before acting
    raises: int  # voluntary bets and raises before it on its street
    raise_size: int  # for a bet or raise: how much it raised the bet to call
    behind: int  # players still in who act after it on its street
    players: int  # players still in when it acted
    cbet: bool = False  # the flop's first bet, by the last preflop raiser


def _big_blind_position(actions: Sequence[PublicAction], players: int) -> int:
    best, position = -1, players - 1
    for action in actions:
        if action.move is Move.BLIND and action.amount >= best:
            best, position = action.amount, action.position
    return position


def spots(view: SeatView) -> list[Spot]:
    """Replay the public history: what each voluntary action faced."""
    n = view.players
    bets = [0] * n
    folded = [False] * n
    pot = 0
    current = 0
    street = PREFLOP
    raises = 0
    bb = _big_blind_position(view.actions, n)
    preflop_order = [(bb + 1 + k) % n for k in range(n)]
    out: list[Spot] = []
    preflop_raiser: int | None = None
    for action in view.actions:
        if action.street != street:
            street, bets, current, raises = action.street, [0] * n, 0, 0
        p = action.position
        if not action.move.voluntary:
            pot += action.amount
            if action.move is Move.BLIND:
                bets[p] += action.amount
                current = max(current, bets[p])
            continue
        order = preflop_order if street == PREFLOP else list(range(n))
        later = order[order.index(p) + 1 :]
        out.append(
            Spot(
                action=action,
                to_call=max(0, current - bets[p]),
                pot=pot,
                raises=raises,
                raise_size=max(0, action.to - current) if action.move.aggressive else 0,
                behind=sum(1 for q in later if not folded[q]),
                players=n - sum(folded),
                cbet=street == 1 and raises == 0 and p == preflop_raiser,
            )
        )
        if street == PREFLOP and action.move.aggressive:
            preflop_raiser = p
        pot += action.amount
        if action.move is Move.FOLD:
            folded[p] = True
        else:
            bets[p] = action.to if action.move is not Move.CHECK else bets[p]
        if action.move.aggressive:
            raises += 1
            current = max(current, action.to)
    return out


_FLOOR = 0.05  # no action is ever impossible with any holding
_TOP = 0.9  # nor certain: strong hands also check and call
_TAU = 0.07
_PASSIVE_FLOOR = 0.05
#: Prior probability that an opponent acts at random (uniformly over its options): a
#: reasonable-player model alone would read every raise of a maniac as strength.
RANDOM_PRIOR = 0.1
#: Strength above which a reasonable player bets (no bet to call) or raises, by street (flop,
#: turn and river; index 0 unused): later bets mean stronger hands.
BET_THRESHOLD = (0.0, 0.55, 0.55, 0.55)
RAISE_THRESHOLD = (0.0, 0.75, 0.75, 0.75)
#: A reasonable player folds the hands below this multiple of the price it is given, by street.
FOLD_PRICE = (1.3, 1.3, 1.6, 2.0)
#: Heads-up, the preflop raiser's first bet on the flop (a continuation bet) is made with most
#: of its range.
CBET_THRESHOLD = 0.3


def _sigmoid(z: Floats) -> Floats:
    return np.asarray(1.0 / (1.0 + np.exp(-z)), dtype=np.float64)


def open_width(behind: int) -> float:
    """Share of starting hands a reasonable player opens with ``behind`` players left to act."""
    return float(min(0.8, max(0.2, 0.85 - 0.13 * behind)))


def likelihood(spot: Spot, strength: Floats) -> Floats:
    """P(this action | each candidate's strength) under the model."""
    price = spot.to_call / (spot.pot + spot.to_call) if spot.to_call else 0.0
    if spot.action.street == PREFLOP:
        if spot.raises == 0:
            agg = 1.0 - open_width(spot.behind)
            fold = 1.0 - 1.3 * open_width(spot.behind)
        else:
            agg = min(0.97, 0.86 + 0.05 * (spot.raises - 1))
            fold = min(0.9, 0.25 + 0.9 * price + 0.05 * spot.raises)
    else:
        size = spot.raise_size / spot.pot if spot.pot else 1.0
        street = spot.action.street
        if spot.to_call == 0 and spot.cbet and spot.players == 2:
            agg = CBET_THRESHOLD + 0.1 * min(size, 1.5)
        elif spot.to_call == 0:
            agg = BET_THRESHOLD[street] + 0.1 * min(size, 1.5)
        else:
            agg = RAISE_THRESHOLD[street] + 0.05 * min(spot.raises, 3) + 0.05 * min(size, 1.5)
        fold = min(0.85, max(0.1, 1.3 * price))
    p_agg = _FLOOR + (_TOP - _FLOOR) * _sigmoid((strength - agg) / _TAU)
    if spot.to_call > 0:
        p_fold = _FLOOR + (1 - 2 * _FLOOR) * _sigmoid((fold - strength) / _TAU)
    else:
        p_fold = np.zeros_like(strength)
    move = spot.action.move
    if move.aggressive:
        return p_agg
    if move is Move.FOLD:
        return p_fold
    return np.maximum(_PASSIVE_FLOOR, 1.0 - p_agg - p_fold)


def fold_chance(strength: Floats, price: float, random_share: float, street: int = 1) -> Floats:
    """P(an opponent folds | its strength) to a bet or raise that gives it ``price`` (the
    share of the final pot its call would be), under the same mixture as the narrowing; later
    streets' bets are answered more tightly (``FOLD_PRICE``)."""
    fold = min(0.9, max(0.1, FOLD_PRICE[street] * price))
    reasonable = _FLOOR + (1 - 2 * _FLOOR) * _sigmoid((fold - strength) / _TAU)
    return np.asarray((1 - random_share) * reasonable + random_share / 3, dtype=np.float64)
