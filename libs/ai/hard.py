"""Hard: Monte Carlo equity against ranges narrowed from the public action, bets sized by their
expected value against those ranges, and bluffs and calls at controlled, seeded mixed frequencies.

- Ranges: every contesting opponent's holdings are weighted by how likely its actions in this
  hand were with each of them, under a mixture of a reasonable player and a random one
  (``ranges.narrowed_weights``); before the flop the players still to act are left out.
- Equity: ``range_equity.equity_vs_ranges`` samples the opponents' holdings from those weights
  and the rest of the board; hi-lo scoops and quarters count through ``showdown_shares``. It
  stops at ``max_samples`` or before the time budget runs out: with less time it uses fewer
  samples, and with very little it skips the narrowing (and then the sizing below); the answer
  is always on time and always legal (``decision.legal``).
- After the flop each action is valued in chips on the same samples: checking or calling by the
  equity (discounted for equity not realised before the river), a bet or raise of each size
  (a third of the pot up to all in) by the chance every opponent folds to it (the same model,
  from each sampled holding's strength and the price it is given) plus the equity when called.
  Bets and raises chosen this way are value bets; the best one is made when it beats checking
  or calling.
- Bluffs are not simply chosen for their expected value against the model (an always-calling
  player would punish that): below the value line a bet or raise the model prices as
  profitable by folds is made only on a seeded coin (``BLUFF_SHARE``), and otherwise bluffs
  come at controlled, mixed frequencies: on the river the weakest hands bet
  so that bluffs : value bets = size : (pot + size), the frequency that makes calling and folding
  break even; on the flop the preflop raiser continues half the time heads-up. Facing a bet
  heads-up, the hands just below the price call with a mixed frequency (mostly on the river),
  toward the minimum defence frequency pot / (pot + bet). So neither always folding nor always
  calling beats it.
- Short stacks (at most 15 big blinds, no-limit hold'em, two to six players) push or fold from
  the solved charts (``shortstack``); in a tournament (``SeatView.prizes``) those spots and
  every all-in call against one player are decided by prize equity instead (``icm``,
  ``shortstack.prizes``).
- Before the flop without a raise it opens a range by position (mixed at the edge); facing a
  raise it re-raises, calls or folds on its equity against the raiser's narrowed range.

Mixed choices draw from a generator seeded apart from the sampling, so a seed reproduces a
decision exactly unless the time budget cut the sampling short.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from libs.poker.config import BettingStructure, Variant
from libs.poker.events import ActionKind

from .decision import Decision, legal
from .easy import easy
from .model import fold_chance, open_width
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
from .range_equity import EquityEstimate, equity_vs_ranges
from .ranges import Candidates, Ranges, candidates, contesting, narrowed_weights, uniform_ranges
from .shortstack.play import push_or_fold
from .shortstack.prizes import prize_call, prize_push_or_fold
from .strength import Floats, texture
from .view import FLOP, PREFLOP, RIVER, SeatView

#: Monte Carlo samples per decision at most, by variant.
MAX_SAMPLES = {Variant.HOLDEM: 1_200, Variant.OMAHA: 800, Variant.OMAHA_HI_LO: 800}
#: Candidate holdings per range at most (hold'em keeps all of them: at most 1,326).
MAX_CANDIDATES = {Variant.HOLDEM: 1_326, Variant.OMAHA: 500, Variant.OMAHA_HI_LO: 500}
#: Runouts per street used to rate candidates when narrowing.
RUNOUTS = 8
#: Below this much time left, ranges stay uniform (narrowing costs a few milliseconds).
NARROWING_NEEDS = 0.012
#: Below this much time left, the first Monte Carlo chunk is small (50 samples, not 400).
FIRST_CHUNK_NEEDS = 0.02
#: Below this budget Hard does not sample at all: it answers as Easy does (within a
#: millisecond or so), the only way to be on time with almost no time.
SAMPLING_NEEDS = 0.008
#: The budget share kept back for the decision itself and the answer's way out.
SAFETY = 0.15
#: How much wider than a reasonable player's range (``model.open_width``) Hard opens.
OPEN_EXTRA = 0.03
#: Facing a bet heads-up, hands whose equity is at least this share of the price call with a
#: probability rising to DEFEND_MOST at the price, by street (flop, turn, river; 0 unused).
DEFEND_FROM = (1.0, 0.85, 0.9, 0.7)
DEFEND_MOST = (0.0, 0.5, 0.5, 0.6)
#: The share of its equity a hand realises before the river, by street (flop, turn): the
#: rest is lost to bets it cannot call later, more so out of position.
REALISE_IN_POSITION = (1.0, 0.95, 0.95, 1.0)
REALISE_OUT_OF_POSITION = (1.0, 0.88, 0.88, 1.0)
#: Share of the spots below the value line where a bet or raise that the model says pays
#: by folds is weighed at all (0 = bluff only at the fixed frequencies).
BLUFF_SHARE = 0.5
#: Value bets and raises sized by their expected chips against the model (else thresholds).
VALUE_BY_MODEL = True
#: Bet sizes weighed, in fractions of the pot (no limit also 1.5; all in is always weighed).
SIZES = (0.33, 0.5, 0.75, 1.0)


@dataclass(frozen=True)
class HardSettings:
    max_samples: int | None = None  # None: MAX_SAMPLES of the variant
    runouts: int = RUNOUTS


@dataclass
class Reading:
    """What Hard knows when it decides: equity samples and the ranges behind them."""

    estimate: EquityEstimate
    ranges: Ranges
    strength: Floats | None  # the candidates' strength on this street, when there was time


def _value_threshold(opponents: int) -> float:
    return float(0.56 * (2.0 / (opponents + 1)) ** 0.6)


def read(
    view: SeatView,
    seed: int,
    budget: float,
    clock: Callable[[], float],
    settings: HardSettings,
) -> Reading:
    """Narrow the ranges and estimate the equity within ``budget`` seconds."""
    started = clock()
    deadline = started + budget * (1 - SAFETY)
    rng = np.random.default_rng(seed)
    cands: Candidates = candidates(
        view.variant, [*view.hole, *view.board], rng, MAX_CANDIDATES[view.variant]
    )
    opponents = contesting(view)

    def in_time() -> bool:
        return deadline - clock() > NARROWING_NEEDS

    narrowed = in_time()
    if narrowed:
        ranges = narrowed_weights(view, cands, rng, settings.runouts, opponents, in_time)
    else:
        ranges = uniform_ranges(cands, opponents)
    cap = settings.max_samples or MAX_SAMPLES[view.variant]
    chunk = 400 if deadline - clock() > FIRST_CHUNK_NEEDS else 50
    estimate = equity_vs_ranges(view, cands, ranges.weights, rng, cap, deadline, clock, chunk)
    strength = None
    if narrowed and view.street != PREFLOP and deadline - clock() > NARROWING_NEEDS / 3:
        strength = ranges.strength(view, cands, rng, settings.runouts)
    return Reading(estimate, ranges, strength)


def _open(view: SeatView, mix: random.Random) -> Decision:
    """Before the flop, nobody has raised: open a range by position."""
    pct = preflop_percentile(view.variant, view.hole)
    note = f"starting hand top {100 * (1 - pct):.0f}%"
    later = behind(view)
    cut = 1.0 - open_width(later) - OPEN_EXTRA
    depth = chips_in_bb(view, view.effective_stack)
    if depth <= 12 and view.structure is not BettingStructure.FIXED_LIMIT:
        if pct >= cut - 0.1:
            return legal(view, ActionKind.RAISE, all_in_to(view), f"{note}, short: all in")
        return legal(view, ActionKind.FOLD, rationale=f"{note}, short: fold")
    edge = cut - 0.06
    if pct >= cut or (pct >= edge and mix.random() < 0.35):
        return legal(view, ActionKind.RAISE, preflop_raise_to(view), f"{note}: open")
    if view.options.can_check:
        return legal(view, ActionKind.CHECK, rationale=f"{note}: check the option")
    if view.players == 2 and pct >= 0.35:
        return legal(view, ActionKind.CALL, rationale=f"{note}: complete heads-up")
    return legal(view, ActionKind.FOLD, rationale=f"{note}: outside the opening range")


def _sizes(view: SeatView) -> list[int]:
    """The "to" amounts weighed for a bet or raise, within the bounds."""
    o = view.options
    if not o.can_raise:
        return []
    fractions = SIZES + ((1.5,) if view.structure is BettingStructure.NO_LIMIT else ())
    wanted = {pot_raise_to(view, f) for f in fractions} | {o.max_to}
    return sorted({min(max(to, o.min_to), o.max_to) for to in wanted})


def _realised(view: SeatView) -> float:
    """The share of its equity a hand realises from here (all of it on the river)."""
    if view.street == RIVER:
        return 1.0
    base = (REALISE_IN_POSITION if view.in_position else REALISE_OUT_OF_POSITION)[view.street]
    if view.structure is BettingStructure.FIXED_LIMIT:
        base += 0.05
    return min(1.0, base)


def bet_value(view: SeatView, reading: Reading, to: int) -> float:
    """Expected chips (from now on) of betting or raising to ``to``: everyone folds, or the
    callers put in their share and the equity decides."""
    assert reading.strength is not None
    est = reading.estimate
    shares = est.shares * _realised(view)
    me = view.me
    added = to - view.bets[me]
    pot = view.pot
    all_fold = np.ones(len(shares))
    called_chips = np.zeros(len(shares))
    for p, picks in est.picks.items():
        owed = max(0, min(to, view.stacks[p] + view.bets[p]) - view.bets[p])
        price = owed / (pot + added + owed) if owed else 0.0
        folds = fold_chance(
            reading.strength[picks], price, reading.ranges.random_share[p], view.street
        )
        all_fold *= folds
        called_chips += (1 - folds) * owed
    value = all_fold * pot + (1 - all_fold) * (shares * (pot + added) - added)
    value += shares * called_chips
    return float(value.mean())


def hard(
    view: SeatView,
    seed: int,
    budget: float = 0.2,
    clock: Callable[[], float] = time.perf_counter,
    settings: HardSettings | None = None,
) -> Decision:
    mix = random.Random(seed ^ 0x5EED)
    if (prized := prize_push_or_fold(view)) is not None:  # a tournament: by prize equity
        return prized
    if (chart := push_or_fold(view, mix)) is not None:  # short-stacked: the equilibrium
        return chart
    if view.street == PREFLOP and not voluntarily_raised(view):
        return _open(view, mix)
    if budget < SAMPLING_NEEDS:
        quick = easy(view, seed)
        return legal(view, quick.kind, quick.to, f"no time to sample: {quick.rationale}")
    reading = read(view, seed, budget, clock, settings or HardSettings())
    equity, samples = reading.estimate.equity, reading.estimate.samples
    opponents = max(1, len(contesting(view)))
    note = f"equity {equity:.2f} vs narrowed ranges ({samples} samples)"

    def act(kind: ActionKind, to: int = 0, why: str = "") -> Decision:
        return legal(view, kind, to, f"{note}: {why}", samples)

    if (all_in_call := prize_call(view, equity, note)) is not None:
        return all_in_call

    if view.street == PREFLOP:
        return _facing_preflop_raise(view, equity, mix, act)
    value = _value_threshold(opponents)
    if reading.strength is None or samples == 0 or not VALUE_BY_MODEL:
        return _without_model(view, equity, value, opponents, mix, act)
    realise = _realised(view)
    pot, call = view.pot, view.to_call
    # Below the value line a bet or raise that pays by folds alone is made only on a coin
    # (BLUFF_SHARE): an opponent who never folds cannot farm a model that expects folds.
    for_value = equity >= value - 0.08
    bluffing = not for_value and mix.random() < BLUFF_SHARE
    sizes = _sizes(view) if for_value or bluffing else []
    bets = sorted(((bet_value(view, reading, to), to) for to in sizes), reverse=True)
    kind = "value" if for_value else "bluff (mixed)"
    if call == 0:
        passive = equity * realise * pot
        if bets and bets[0][0] > passive:
            best, to = bets[0]
            if equity >= 0.85 and view.street != RIVER and mix.random() < 0.1:
                return act(ActionKind.CHECK, why="slow play (mixed)")
            return act(ActionKind.BET, to, f"{kind} bet: {best:+.0f} chips vs {passive:+.0f}")
        return _bluff_or_check(view, equity, value, opponents, mix, act)
    calling = equity * realise * (pot + call) - call
    if bets and bets[0][0] > max(calling, 0.0):
        best, to = bets[0]
        if for_value and view.street != RIVER and calling > 0 and mix.random() < 0.2:
            return act(ActionKind.CALL, why="flat with a strong hand (mixed)")
        return act(ActionKind.RAISE, to, f"{kind} raise: {best:+.0f} chips vs {calling:+.0f}")
    if calling > 0:
        return act(ActionKind.CALL, why=f"call: {calling:+.0f} chips")
    return _defend_or_fold(view, equity, opponents, mix, act)


def _bluff_or_check(
    view: SeatView,
    equity: float,
    value: float,
    opponents: int,
    mix: random.Random,
    act: Callable[..., Decision],
) -> Decision:
    if view.street == RIVER:
        size = 0.75
        # Bluffs : value bets = b : (P + b) makes calling and folding break even for the
        # caller; weak hands are about as many as value hands, hence the frequency.
        chance = size / (1 + size) * (0.8 if opponents == 1 else 0.25)
        if equity < 0.2 and mix.random() < chance:
            return act(ActionKind.BET, pot_raise_to(view, size), "balanced river bluff")
        return act(ActionKind.CHECK, why="check")
    aggressor = preflop_aggressor(view) == view.me
    if view.street == FLOP and aggressor and opponents == 1 and mix.random() < 0.5:
        return act(ActionKind.BET, pot_raise_to(view, 0.5), "continuation bet (mixed)")
    if 0.3 <= equity < value and opponents == 1 and mix.random() < 0.2:
        return act(ActionKind.BET, pot_raise_to(view, 0.6), "semi-bluff (mixed)")
    return act(ActionKind.CHECK, why="check")


def _defend_or_fold(
    view: SeatView,
    equity: float,
    opponents: int,
    mix: random.Random,
    act: Callable[..., Decision],
) -> Decision:
    price = pot_odds(view)
    if opponents == 1 and price:
        # Defend toward pot / (pot + bet) with the hands nearest the price (before the river
        # their equity is worth more than it shows: the draws and floats of the next street).
        close = equity * _realised(view) / price
        start, most = DEFEND_FROM[view.street], DEFEND_MOST[view.street]
        if close >= start and mix.random() < (close - start) / (1 - start) * most:
            return act(ActionKind.CALL, why="defend (mixed, minimum defence frequency)")
    return act(ActionKind.FOLD, why=f"below the price {price:.2f}")


def _without_model(
    view: SeatView,
    equity: float,
    value: float,
    opponents: int,
    mix: random.Random,
    act: Callable[..., Decision],
) -> Decision:
    """Short of time: thresholds on the equity alone."""
    spr = stack_to_pot(view)
    if view.to_call == 0:
        if equity >= value:
            to = all_in_to(view) if spr <= 1.3 else pot_raise_to(view, _size(view, equity, value))
            return act(ActionKind.BET, to, "value bet (threshold)")
        return _bluff_or_check(view, equity, value, opponents, mix, act)
    if equity >= max(0.72, value + 0.22):
        to = all_in_to(view) if spr < 1.5 else pot_raise_to(view, 0.8)
        return act(ActionKind.RAISE, to, "value raise (threshold)")
    if equity * _realised(view) >= pot_odds(view):
        return act(ActionKind.CALL, why="beats the price")
    return _defend_or_fold(view, equity, opponents, mix, act)


def _size(view: SeatView, equity: float, threshold: float) -> float:
    wet = texture(view.board).wet if view.board else 0.0
    return min(1.0, 0.5 + 0.25 * wet + (0.25 if equity >= threshold + 0.2 else 0.0))


def _facing_preflop_raise(
    view: SeatView,
    equity: float,
    mix: random.Random,
    act: Callable[..., Decision],
) -> Decision:
    price = pot_odds(view)
    closing = behind(view) == 0
    realise = 0.92 if closing or view.in_position else 0.82
    if view.variant is not Variant.HOLDEM:
        realise += 0.05  # Omaha equities run close; more of them is realised
    raises = view.raises_this_street
    strong = _value_threshold(len(contesting(view))) + 0.04 * raises
    if equity >= strong:
        to = preflop_raise_to(view, 3.0)
        if to > 0.4 * (view.stacks[view.me] + view.bets[view.me]):
            to = all_in_to(view)
        return act(ActionKind.RAISE, to, "re-raise for value")
    if equity * realise >= price:
        pct = preflop_percentile(view.variant, view.hole)
        if raises == 1 and pct >= 0.7 and closing and mix.random() < 0.08:
            return act(ActionKind.RAISE, preflop_raise_to(view, 3.0), "re-raise bluff (mixed)")
        return act(ActionKind.CALL, why=f"beats the price {price:.2f}")
    return act(ActionKind.FOLD, why=f"below the price {price:.2f}")
