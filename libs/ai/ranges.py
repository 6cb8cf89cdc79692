"""Ranges narrowed from the public action, and Monte Carlo equity against them (the Hard level).

A range is a set of candidate holdings with a weight each. Hold'em uses every combination the
seat's own cards and the board leave possible; Omaha a random subset of a fixed pool of random
hands (``preflop.omaha_pool``). Every opponent starts from the same candidates, uniformly
weighted; each of its voluntary actions in the history multiplies each candidate's weight by how
likely that action was with it under a simple model of a reasonable player: the stronger the
holding, the likelier it bets or raises and the less likely it folds, with thresholds that move
with the price, the number of raises and the position, and floors so no holding is ever ruled
out (bluffs and slow plays exist). Strength is the starting-hand percentile before the flop and,
on a later street, the holding's average share of the pot against the other candidates over a
few runouts from the board of that street (hi-lo: half high, half low, so scoops count).

``equity_vs_ranges`` then samples each opponent's holding from its weights, completes the board
and reads everyone's share of the pot from ``showdown_shares``, in chunks, until its sample cap
or its deadline.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations

import numpy as np
import numpy.typing as npt

from libs.poker.config import Variant
from libs.poker.equity import showdown_shares
from libs.poker.fast import NO_LOW, high_batch, omaha_high_batch, omaha_low_batch

from .preflop import holdem_percentile, omaha_pool
from .strength import Cards, Floats, card_masks, complete_boards, remaining_deck
from .view import BOARD_SIZE_BY_STREET, PREFLOP, Move, PublicAction, SeatView

Masks = npt.NDArray[np.uint64]


@dataclass(frozen=True)
class Candidates:
    """Possible holdings of an opponent: ``holes`` [M, k], their card masks, and each one's
    starting-hand percentile."""

    holes: Cards
    masks: Masks
    preflop: Floats

    def __len__(self) -> int:
        return len(self.holes)


@cache
def _pool(variant: Variant) -> Candidates:
    if variant is Variant.HOLDEM:
        holes = np.array(list(combinations(range(52), 2)), dtype=np.uint8)
        preflop = np.array([holdem_percentile(h) for h in holes.tolist()])
    else:
        holes, _, preflop = omaha_pool(variant is Variant.OMAHA_HI_LO)
    return Candidates(holes, card_masks(holes), preflop)


def warm_up() -> None:
    for variant in Variant:
        _pool(variant)


def candidates(
    variant: Variant, known: Sequence[int], rng: np.random.Generator, limit: int
) -> Candidates:
    """Holdings without any of the ``known`` cards; at most ``limit`` of them (a random
    subset when there are more)."""
    pool = _pool(variant)
    known_mask = np.uint64(0)
    for card in known:
        known_mask |= np.uint64(1) << np.uint64(card)
    index = np.flatnonzero((pool.masks & known_mask) == 0)
    if len(index) > limit:
        index = np.sort(rng.choice(index, size=limit, replace=False))
    return Candidates(pool.holes[index], pool.masks[index], pool.preflop[index])


# ---------------------------------------------------------------------------- the history


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


# ---------------------------------------------------------------------------- the model

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


def _column_percentiles(values: npt.NDArray[np.float64], valid: npt.NDArray[np.bool_]) -> Floats:
    """Per column, each valid entry's share of the valid entries it beats (ties half)."""
    out = np.zeros(values.shape)
    for k in range(values.shape[1]):
        rows = np.flatnonzero(valid[:, k])
        if len(rows) == 0:
            continue
        v = values[rows, k]
        s = np.sort(v)
        below = np.searchsorted(s, v, side="left")
        upto = np.searchsorted(s, v, side="right")
        out[rows, k] = (below + upto) / 2 / len(s)
    return out


def street_strength(
    variant: Variant,
    cands: Candidates,
    board: Sequence[int],
    dead: Sequence[int],
    rng: np.random.Generator,
    runouts: int,
) -> Floats:
    """Each candidate's average share of the pot against the candidates, over ``runouts``
    completions of ``board`` (3 to 5 cards) that avoid ``dead``."""
    m = len(cands)
    deck = remaining_deck([*board, *dead])
    missing = 5 - len(board)
    k = 1 if missing == 0 else runouts
    boards = complete_boards(rng, board, deck, k)
    ok = (cands.masks[:, None] & card_masks(boards)[None, :]) == 0
    mi, ki = np.nonzero(ok)
    rows = boards[ki]
    holes = cands.holes[mi]
    if variant is Variant.HOLDEM:
        high = high_batch(np.hstack([holes, rows]))
    else:
        high = omaha_high_batch(holes, rows)
    values = np.full((m, k), -1.0)
    values[mi, ki] = high
    share = _column_percentiles(values, ok)
    if variant is Variant.OMAHA_HI_LO:
        low = omaha_low_batch(holes, rows)
        lows = np.zeros((m, k))
        lows[mi, ki] = NO_LOW - low  # 0 without a low, larger for a better low
        any_low = ((lows > 0) & ok).any(axis=0)
        low_share = _column_percentiles(lows, ok)
        share = np.where(any_low[None, :], 0.5 * share + 0.5 * low_share, share)
    counts = ok.sum(axis=1)
    return np.asarray(
        np.where(counts > 0, (share * ok).sum(axis=1) / np.maximum(counts, 1), 0.5),
        dtype=np.float64,
    )


def contesting(view: SeatView) -> tuple[int, ...]:
    """The opponents to reckon with: every live one after the flop; before it, those who put
    chips in voluntarily (the players still to act mostly fold), else every live one."""
    if view.street != PREFLOP:
        return view.opponents
    entered = {a.position for a in view.street_actions(PREFLOP) if a.move is not Move.FOLD}
    entered &= {a.position for a in view.street_actions(PREFLOP) if a.amount > 0}
    chosen = tuple(p for p in view.opponents if p in entered)
    return chosen or view.opponents


@dataclass(frozen=True)
class Ranges:
    """Each opponent's weights over the candidates, and how likely its actions so far made it
    a random player rather than a reasonable one (the model's two types)."""

    weights: dict[int, Floats]
    random_share: dict[int, float]
    strengths: dict[int, Floats]  # candidates' strength by street, as rated so far

    def strength(
        self, view: SeatView, cands: Candidates, rng: np.random.Generator, runouts: int
    ) -> Floats:
        """The candidates' strength on the current street (rated now if not yet)."""
        if view.street not in self.strengths:
            board = view.board[: BOARD_SIZE_BY_STREET[view.street]]
            self.strengths[view.street] = street_strength(
                view.variant, cands, board, view.hole, rng, runouts
            )
        return self.strengths[view.street]


def narrowed_weights(
    view: SeatView,
    cands: Candidates,
    rng: np.random.Generator,
    runouts: int,
    opponents: Sequence[int] | None = None,
    in_time: Callable[[], bool] = lambda: True,
) -> Ranges:
    """Weights of the candidates for each opponent (default: every live one) after its
    actions in the history: P(actions | holding) under a mixture of the reasonable model
    (prior 1 - RANDOM_PRIOR) and a uniformly random player (prior RANDOM_PRIOR). Rating the
    candidates on a new street costs a few milliseconds: when ``in_time()`` says no more,
    the later actions are left out."""
    chosen = view.opponents if opponents is None else opponents
    reasonable = {p: np.zeros(len(cands)) for p in chosen}  # log-likelihoods
    random_ = dict.fromkeys(chosen, 0.0)
    strengths: dict[int, Floats] = {PREFLOP: cands.preflop}
    for spot in spots(view):
        p = spot.action.position
        if p not in reasonable:
            continue
        street = spot.action.street
        if street not in strengths:
            if not in_time():
                break
            board = view.board[: BOARD_SIZE_BY_STREET[street]]
            strengths[street] = street_strength(view.variant, cands, board, view.hole, rng, runouts)
        reasonable[p] += np.log(likelihood(spot, strengths[street]))
        random_[p] -= math.log(3 if spot.to_call > 0 else 2)  # fold / call / raise, or two
    weights: dict[int, Floats] = {}
    random_share: dict[int, float] = {}
    log_m, log_r = math.log(RANDOM_PRIOR), math.log(1 - RANDOM_PRIOR)
    for p, log_l in reasonable.items():
        top = max(float(log_l.max()) + log_r, random_[p] + log_m)
        part_reasonable = np.exp(log_l + log_r - top)
        part_random = math.exp(random_[p] + log_m - top)
        w = part_reasonable + part_random
        total = float(w.sum())
        weights[p] = w / total
        random_share[p] = part_random * len(w) / total
    return Ranges(weights, random_share, strengths)


def uniform_ranges(cands: Candidates, opponents: Sequence[int]) -> Ranges:
    flat = np.full(len(cands), 1.0 / len(cands))
    return Ranges(dict.fromkeys(opponents, flat), dict.fromkeys(opponents, 0.0), {})


def fold_chance(strength: Floats, price: float, random_share: float, street: int = 1) -> Floats:
    """P(an opponent folds | its strength) to a bet or raise that gives it ``price`` (the
    share of the final pot its call would be), under the same mixture as the narrowing; later
    streets' bets are answered more tightly (``FOLD_PRICE``)."""
    fold = min(0.9, max(0.1, FOLD_PRICE[street] * price))
    reasonable = _FLOOR + (1 - 2 * _FLOOR) * _sigmoid((fold - strength) / _TAU)
    return np.asarray((1 - random_share) * reasonable + random_share / 3, dtype=np.float64)


def preflop_ranges(view: SeatView, cands: Candidates) -> dict[int, Floats]:
    """Simplified starting-hand ranges (the Normal level): each live opponent holds the top
    share of hands its strongest voluntary preflop action suggests (re-raise 8%, raise 20%,
    call a raise 40%, limp 60%, blinds and checks anything); holdings outside keep a small
    weight."""
    share = {p: 1.0 for p in view.opponents}
    for spot in spots(view):
        p = spot.action.position
        if spot.action.street != PREFLOP or p not in share:
            continue
        move = spot.action.move
        if move.aggressive:
            top = 0.08 if spot.raises >= 1 else 0.2
        elif move is Move.CALL:
            top = 0.4 if spot.raises >= 1 else 0.6
        else:
            continue
        share[p] = min(share[p], top)
    weights: dict[int, Floats] = {}
    for p, top in share.items():
        w = np.where(cands.preflop >= 1.0 - top, 1.0, 0.03)
        weights[p] = w / w.sum()
    return weights


# ---------------------------------------------------------------------------- equity


@dataclass(frozen=True)
class EquityEstimate:
    """My share of the pot on each sample and which candidate each opponent held there."""

    shares: Floats  # [S]
    picks: dict[int, npt.NDArray[np.intp]]  # opponent -> candidate index per sample [S]

    @property
    def samples(self) -> int:
        return len(self.shares)

    @property
    def equity(self) -> float:
        return float(self.shares.mean()) if len(self.shares) else 0.5


def equity_vs_ranges(
    view: SeatView,
    cands: Candidates,
    weights: dict[int, Floats],
    rng: np.random.Generator,
    max_samples: int,
    deadline: float,
    clock: Callable[[], float],
    chunk: int = 400,
) -> EquityEstimate:
    """Monte Carlo share of the pot against every live opponent's weighted range, in chunks of
    ``chunk`` samples until ``max_samples`` or until the next chunk would end past
    ``deadline`` (then a smaller last chunk, if at least 50 samples fit). The first chunk is
    always run: pass a small ``chunk`` when little time is left."""
    variant = view.variant
    hole = np.array([view.hole], dtype=np.uint8)
    deck = remaining_deck([*view.hole, *view.board])
    opponents = list(weights)
    shares: list[Floats] = []
    kept: dict[int, list[npt.NDArray[np.intp]]] = {p: [] for p in opponents}
    cdfs = [np.cumsum(weights[p]) for p in opponents]
    top = len(cands) - 1

    def draw(j: int, size: int) -> npt.NDArray[np.intp]:
        cdf = cdfs[j]
        picked = np.searchsorted(cdf, rng.random(size) * cdf[-1], side="right")
        return np.asarray(np.minimum(picked, top), dtype=np.intp)

    done = 0
    size = chunk
    while done < max_samples:
        n = min(size, max_samples - done)
        started = clock()
        picks = [draw(j, n) for j in range(len(opponents))]
        keep = np.ones(n, dtype=bool)
        for j in range(1, len(picks)):
            for _ in range(4):  # redraw holdings that share a card with an earlier opponent's
                used = np.zeros(n, dtype=np.uint64)
                for i in range(j):
                    used |= cands.masks[picks[i]]
                clash = np.flatnonzero((cands.masks[picks[j]] & used) != 0)
                if len(clash) == 0:
                    break
                picks[j][clash] = draw(j, len(clash))
            used = np.zeros(n, dtype=np.uint64)
            for i in range(j):
                used |= cands.masks[picks[i]]
            keep &= (cands.masks[picks[j]] & used) == 0
        rows = np.flatnonzero(keep)
        if len(rows):
            theirs = [np.ascontiguousarray(cands.holes[pick[rows]]) for pick in picks]
            avoid = np.hstack(theirs)
            boards = complete_boards(rng, view.board, deck, len(rows), avoid)
            shares.append(showdown_shares(variant, [hole, *theirs], boards)[0])
            for p, pick in zip(opponents, picks, strict=True):
                kept[p].append(pick[rows])
            done += len(rows)
        if len(rows) == 0:
            break
        now = clock()
        per_sample = (now - started) / n
        size = chunk
        if now + per_sample * min(chunk, max_samples - done) > deadline:
            # The next whole chunk would end late: a smaller one if it still fits.
            size = int(min(chunk, (deadline - now) / per_sample))
            if size < min(50, max_samples - done):
                break
    return EquityEstimate(
        np.concatenate(shares) if shares else np.zeros(0),
        {p: np.concatenate(k) if k else np.zeros(0, dtype=np.intp) for p, k in kept.items()},
    )
