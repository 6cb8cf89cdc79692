"""Normal: Easy's hand reading plus position, stack depth, pot odds, board texture and
simplified starting-hand ranges.

Before the flop it plays a range by position: it opens the top share of hands that the number
of players still to act allows (``model.open_width``), re-raises a narrow top range, calls a
raise with a range that tightens with the price and the number of raises, and with 12 big blinds
or fewer it moves all in or folds (the push-or-fold charts), at a table of three to six
from 6 big blinds also raising, folding or calling off from the six-handed raise charts
(``shortstack.tableraiseplay``); heads-up from 15 to 25 big blinds it raises, folds or calls off
from the raise charts (``shortstack.raiseplay``); every chart read at a depth off by up to a
third, from the charts of the nearest ante structure. After the flop it estimates its equity
against as many random hands as it has opponents (Monte Carlo, so draws count), bets for value
when that is well above its fair share, sizes bets up on coordinated boards, continues its
preflop raise on dry boards, calls when the equity beats the pot odds (with a margin out of
position) and commits its stack when the pot is already large against it. It does not read the
opponents' actions into their ranges: that is Hard's edge.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from libs.poker.cards import Card
from libs.poker.config import BettingStructure, Variant
from libs.poker.equity import showdown_shares
from libs.poker.events import ActionKind
from libs.poker.fast import draw_distinct

from .decision import Decision, legal
from .model import open_width
from .play import (
    all_in_to,
    behind,
    chips_in_bb,
    pot_odds,
    pot_raise_to,
    preflop_aggressor,
    preflop_raise_to,
    stack_to_pot,
    voluntarily_raised,
)
from .preflop import preflop_percentile
from .range_equity import equity_vs_ranges
from .ranges import candidates, preflop_ranges, preflop_tops, top_range
from .shortstack.play import push_or_fold
from .shortstack.raiseplay import raise_fold_or_call_off
from .shortstack.tableraiseplay import table_raise_or_fold
from .strength import card_masks, remaining_deck, texture
from .view import FLOP, PREFLOP, RIVER, SeatView

SAMPLES = 300
#: Facing a bet, the equity must beat the pot odds by this much, by street: later bets, bigger
#: bets and bets into more players mean stronger hands (the simplified reading of the action).
STREET_MARGIN = (0.0, 0.1, 0.25, 0.5)
SIZE_MARGIN = 0.3
MULTIWAY_MARGIN = 0.0
CANDIDATES = {Variant.HOLDEM: 1_326, Variant.OMAHA: 500, Variant.OMAHA_HI_LO: 500}


def _preflop(view: SeatView, rng: random.Random) -> Decision:
    pct = preflop_percentile(view.variant, view.hole)
    note = f"starting hand top {100 * (1 - pct):.0f}%"
    later = behind(view)
    depth = chips_in_bb(view, view.effective_stack)
    if depth <= 12 and view.structure is not BettingStructure.FIXED_LIMIT:
        wanted = 0.8 if voluntarily_raised(view) else 1.0 - min(0.45, open_width(later))
        if pct >= wanted:
            return legal(view, ActionKind.RAISE, all_in_to(view), f"{note}, short: all in")
        return legal(view, ActionKind.FOLD, rationale=f"{note}, short: fold")
    if not voluntarily_raised(view):
        if pct >= 1.0 - open_width(later):
            return legal(view, ActionKind.RAISE, preflop_raise_to(view), f"{note}: open")
        if view.options.can_check:
            return legal(view, ActionKind.CHECK, rationale=f"{note}: check the option")
        if view.players == 2 and pct >= 0.4:
            return legal(view, ActionKind.CALL, rationale=f"{note}: complete heads-up")
        return legal(view, ActionKind.FOLD, rationale=f"{note}: outside the opening range")
    raises = view.raises_this_street
    closing = later == 0
    reraise = min(0.985, 0.93 + 0.025 * (raises - 1))
    call = 0.5 + 0.08 * (raises - 1) + 0.6 * pot_odds(view) - (0.06 if closing else 0.0)
    if pct >= reraise:
        to = preflop_raise_to(view, 3.0)
        if to > 0.4 * (view.stacks[view.me] + view.bets[view.me]):
            to = all_in_to(view)
        return legal(view, ActionKind.RAISE, to, f"{note}: re-raise")
    if pct >= min(call, reraise):
        return legal(view, ActionKind.CALL, rationale=f"{note}: call the raise")
    return legal(view, ActionKind.FOLD, rationale=f"{note}: fold to the raise")


def normal(view: SeatView, seed: int) -> Decision:
    rng = random.Random(seed)
    if (early := _early(view, rng)) is not None:
        return early
    return _after_flop(view, _equity(view, seed), rng.random())


def _early(view: SeatView, rng: random.Random) -> Decision | None:
    """The short-stack charts and the play before the flop (None after the flop)."""
    # Short-stacked heads-up: the equilibrium charts, read at a depth off by up to a third.
    if (chart := table_raise_or_fold(view, rng, 12.0, misread=1 / 3)) is not None:
        return chart
    if (chart := push_or_fold(view, rng, max_stack=12.0, misread=1 / 3)) is not None:
        return chart
    if (chart := raise_fold_or_call_off(view, rng, misread=1 / 3)) is not None:
        return chart
    if view.street == PREFLOP:
        return _preflop(view, rng)
    return None


def _equity(view: SeatView, seed: int) -> float:
    """Monte Carlo equity against the opponents' simplified starting-hand ranges."""
    np_rng = np.random.default_rng(seed)
    cands = candidates(view.variant, [*view.hole, *view.board], np_rng, CANDIDATES[view.variant])
    weights = preflop_ranges(view, cands)
    return equity_vs_ranges(
        view, cands, weights, np_rng, SAMPLES, math.inf, time.perf_counter, chunk=SAMPLES
    ).equity


def _after_flop(view: SeatView, equity: float, coin: float) -> Decision:
    """``coin``: the next draw of the decision's seeded generator (a mixed continuation bet)."""
    opponents = max(1, len(view.opponents))
    # Equity against n hands is roughly (equity against one) ** n: compare like with like.
    strength = equity ** (1.0 / opponents)
    board = texture(view.board)
    spr = stack_to_pot(view)
    in_position = view.in_position
    note = f"equity {equity:.2f} vs {opponents} starting-hand ranges"
    if view.to_call == 0:
        value = 0.66 + (0.0 if in_position else 0.03)
        if strength >= value:
            if spr < 1.2 and strength >= 0.75:
                return legal(view, ActionKind.BET, all_in_to(view), f"{note}: value, all in")
            size = 0.5 + 0.25 * board.wet
            return legal(view, ActionKind.BET, pot_raise_to(view, size), f"{note}: value bet")
        aggressor = preflop_aggressor(view) == view.me
        if aggressor and view.street == FLOP and opponents == 1 and board.wet < 0.4 and coin < 0.55:
            return legal(view, ActionKind.BET, pot_raise_to(view, 0.5), f"{note}: c-bet")
        return legal(view, ActionKind.CHECK, rationale=f"{note}: check")
    price = pot_odds(view)
    if (strength >= 0.86 and view.street != RIVER) or strength >= 0.9:
        if spr < 1.5:
            return legal(view, ActionKind.RAISE, all_in_to(view), f"{note}: raise all in")
        return legal(view, ActionKind.RAISE, pot_raise_to(view, 0.8), f"{note}: raise")
    # Simplified reading of the bet: later streets and re-raises mean stronger hands.
    margin = STREET_MARGIN[view.street] + 0.08 * (view.raises_this_street - 1)
    margin += 0.0 if in_position else 0.03
    bet = view.to_call / max(1, view.pot - view.to_call)  # the bet against the pot before it
    margin += SIZE_MARGIN * min(bet, 2.0) + MULTIWAY_MARGIN * (opponents - 1)
    if equity >= price + margin:
        return legal(view, ActionKind.CALL, rationale=f"{note} beats the price {price:.2f}")
    if spr < 0.5 and equity >= price:
        return legal(view, ActionKind.CALL, rationale=f"{note}: pot committed")
    return legal(view, ActionKind.FOLD, rationale=f"{note} below the price {price:.2f}")


def normal_policy(view: SeatView, seed: int, holes: npt.NDArray[np.int64]) -> list[Decision]:
    """Normal's decision with each of ``holes`` ``[H, 2]`` (hold'em, none on the board) in
    place of its own cards, on the same view and seed: exactly ``normal`` with that holding.
    Before the flop it is asked holding by holding (no Monte Carlo there). After it the charts
    never apply, only the equity depends on the holding, and equal equities decide alike; the
    equities come heads-up from one batch (``heads_up_equities``), with more opponents
    holding by holding."""
    if view.variant is not Variant.HOLDEM:
        raise ValueError(f"Normal's policy is shared across hold'em holdings, not {view.variant}")
    mine = (replace(view, hole=(Card(a), Card(b))) for a, b in holes.tolist())
    if view.street == PREFLOP:
        return [normal(v, seed) for v in mine]
    if len(view.opponents) == 1:
        equities = heads_up_equities(view, seed, holes).tolist()
    else:
        equities = [_equity(v, seed) for v in mine]
    coin = random.Random(seed).random()
    by_equity = {e: _after_flop(view, e, coin) for e in set(equities)}
    return [by_equity[e] for e in equities]


def heads_up_equities(
    view: SeatView, seed: int, holes: npt.NDArray[np.int64]
) -> npt.NDArray[np.float64]:
    """``[H]``: ``_equity`` of each hold'em holding of ``holes`` heads-up after the flop, to the
    last bit. Every holding's sampling starts from the same seeded generator: the same
    uniforms pick the opponent's holding from its own range (the candidates its cards leave)
    and the same generator state completes the board from its own deck; only the
    showdowns are evaluated together."""
    (opponent,) = view.opponents
    top = preflop_tops(view)[opponent]
    board = tuple(int(c) for c in view.board)
    missing = 5 - len(board)
    rng = np.random.default_rng(seed)
    picks = rng.random(SAMPLES)
    after = rng.bit_generator.state
    # The candidates and the deck each holding leaves, in the order ``candidates`` and
    # ``remaining_deck`` give them: the board's, less the holding's two cards.
    pool = candidates(Variant.HOLDEM, board, rng, CANDIDATES[Variant.HOLDEM])
    left = (pool.masks[None, :] & card_masks(holes)[:, None]) == 0
    deck = remaining_deck(board)
    decks = deck[None, :].repeat(len(holes), axis=0)
    decks = decks[(decks != holes[:, :1]) & (decks != holes[:, 1:])].reshape(len(holes), -1)
    # Every holding leaves as many candidates (those without its two cards), so the ranges
    # are rows of one array; each row sums and accumulates as the holding's own range would.
    size = int(left[0].sum())
    holes_left = np.broadcast_to(pool.holes, (len(holes), *pool.holes.shape))[left]
    holes_left = holes_left.reshape(len(holes), size, 2)
    preflop = np.broadcast_to(pool.preflop, left.shape)[left].reshape(len(holes), size)
    cdfs = np.cumsum(top_range(preflop, top), axis=1)
    theirs = np.empty((len(holes), SAMPLES, 2), dtype=np.uint8)
    drawn = np.empty((len(holes), SAMPLES, missing + 2), dtype=np.uint8)
    for k in range(len(holes)):
        picked = np.searchsorted(cdfs[k], picks * cdfs[k, -1], side="right")
        theirs[k] = holes_left[k, np.minimum(picked, size - 1)]
        if missing:
            rng.bit_generator.state = after
            drawn[k] = draw_distinct(rng, decks[k], SAMPLES, missing + 2)
    boards = np.empty((len(holes), SAMPLES, 5), dtype=np.uint8)
    boards[:, :, : len(board)] = np.asarray(board, dtype=np.uint8)
    if missing:  # as ``strength.complete_boards``: the first drawn cards not in their hand
        clash = (drawn[:, :, :, None] == theirs[:, :, None, :]).any(axis=3)
        order = np.argsort(clash, axis=2, kind="stable")[:, :, :missing]
        boards[:, :, len(board) :] = np.take_along_axis(drawn, order, axis=2)
    mine = np.repeat(holes.astype(np.uint8), SAMPLES, axis=0)
    players = [mine, theirs.reshape(-1, 2)]
    shares = showdown_shares(Variant.HOLDEM, players, boards.reshape(-1, 5))[0]
    return np.asarray(shares.reshape(len(holes), SAMPLES).mean(axis=1), dtype=np.float64)
