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
  the solved charts (``shortstack``); with three to six dealt in, from 6 big blinds (with or
  without antes: the charts of the nearest ante structure),
  first in it also raises to two big blinds and, behind a small raise, re-pushes or folds, from
  the six-handed raise charts (``shortstack.tableraiseplay``); deeper it plays its own game
  (the heads-up raise-or-fold charts of ``shortstack.raising`` measured weaker than its own
  play there, docs/ai.md); in a
  tournament (``SeatView.prizes``) those spots and every all-in call against one player are
  decided by prize equity instead (``icm``, ``shortstack.prizes``).
- Before the flop without a raise it opens a range by position (mixed at the edge); facing a
  raise it re-raises, calls or folds on its equity against the raiser's narrowed range.

Mixed choices draw from a generator seeded apart from the sampling, so a seed reproduces a
decision exactly unless the time budget cut the sampling short.

In hold'em the ranges and samples do not depend on Hard's own cards (``holdings``: its cards
only decide which samples count), so ``hard_policy`` gives its action with each of the 1,326
holdings for the price of about one decision, and the action with its real holding is exactly
the one it plays. Omaha samples against its own cards (``range_equity``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from libs.poker.cards import Card
from libs.poker.config import BettingStructure, Variant
from libs.poker.events import ActionKind

from . import holdings
from .decision import Decision, legal
from .easy import easy
from .hard_choice import Estimate, choose, realised, sizes
from .model import fold_chance, open_width
from .play import all_in_to, behind, chips_in_bb, preflop_raise_to, voluntarily_raised
from .preflop import preflop_percentile
from .range_equity import EquityEstimate, equity_vs_ranges
from .ranges import Candidates, Ranges, candidates, contesting, narrowed_weights, uniform_ranges
from .shortstack.play import PUSH_FOLD_DEPTH, push_or_fold
from .shortstack.prizes import prize_push_or_fold
from .shortstack.tableraiseplay import table_raise_or_fold
from .strength import Floats
from .view import PREFLOP, SeatView

#: Monte Carlo samples per decision at most (Omaha; hold'em: ``holdings.GRID``).
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


@dataclass(frozen=True)
class HardSettings:
    max_samples: int | None = None  # None: MAX_SAMPLES of the variant (hold'em: holdings.GRID)
    runouts: int = RUNOUTS


@dataclass
class Reading:
    """What Hard knows in Omaha when it decides: equity samples and the ranges behind them."""

    estimate: EquityEstimate
    ranges: Ranges
    strength: Floats | None  # the candidates' strength on this street, when there was time


def read(
    view: SeatView,
    seed: int,
    budget: float,
    clock: Callable[[], float],
    settings: HardSettings,
) -> Reading:
    """Omaha: narrow the ranges and estimate the equity within ``budget`` seconds."""
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


def bet_value(view: SeatView, reading: Reading, to: int) -> float:
    """Expected chips (from now on) of betting or raising to ``to``: everyone folds, or the
    callers put in their share and the equity decides."""
    assert reading.strength is not None
    est = reading.estimate
    shares = est.shares * realised(view)
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


def _before_sampling(view: SeatView, mix: random.Random) -> Decision | None:
    """The spots Hard plays without sampling: prize-equity and chart push-or-fold, and opening
    before the flop."""
    if (prized := prize_push_or_fold(view)) is not None:  # a tournament: by prize equity
        return prized
    if (chart := table_raise_or_fold(view, mix, PUSH_FOLD_DEPTH)) is not None:  # 3 to 6 dealt
        return chart
    if (chart := push_or_fold(view, mix)) is not None:  # short-stacked: the equilibrium
        return chart
    if view.street == PREFLOP and not voluntarily_raised(view):
        return _open(view, mix)
    return None


def _one(found: holdings.Estimates, k: int, weighed: list[int]) -> Estimate:
    """The ``k``-th holding's estimate."""
    bets = None
    if found.bets is not None:
        bets = tuple(zip(found.bets[k].tolist(), weighed, strict=True))
    return Estimate(float(found.equity[k]), int(found.samples[k]), bets)


def estimate(
    view: SeatView,
    seed: int,
    budget: float,
    clock: Callable[[], float],
    settings: HardSettings,
) -> Estimate:
    """Equity and each bet's value for the holding in ``view``, within ``budget`` seconds."""
    weighed = sizes(view)
    if view.variant is Variant.HOLDEM:
        deadline = clock() + budget * (1 - SAFETY)
        shared = holdings.read(
            view, seed, settings.runouts, deadline, clock, NARROWING_NEEDS, settings.max_samples
        )
        hole = np.array([[int(c) for c in view.hole]], dtype=np.uint8)
        found = holdings.estimates(view, shared, hole, weighed, realised(view))
        return _one(found, 0, weighed)
    reading = read(view, seed, budget, clock, settings)
    est = reading.estimate
    if reading.strength is None or est.samples == 0:
        return Estimate(est.equity, est.samples, None)
    return Estimate(
        est.equity, est.samples, tuple((bet_value(view, reading, to), to) for to in weighed)
    )


def hard(
    view: SeatView,
    seed: int,
    budget: float = 0.2,
    clock: Callable[[], float] = time.perf_counter,
    settings: HardSettings | None = None,
) -> Decision:
    mix = random.Random(seed ^ 0x5EED)
    if (early := _before_sampling(view, mix)) is not None:
        return early
    if budget < SAMPLING_NEEDS:
        quick = easy(view, seed)
        return legal(view, quick.kind, quick.to, f"no time to sample: {quick.rationale}")
    return choose(view, estimate(view, seed, budget, clock, settings or HardSettings()), mix)


def hard_policy(
    view: SeatView,
    seed: int,
    holes: npt.NDArray[np.int64],
    settings: HardSettings | None = None,
) -> list[Decision]:
    """Hard's decision (hold'em) with each of ``holes`` ``[H, 2]`` in place of its own cards,
    on the same view and seed, sharing one reading (``holdings``): each is the decision
    ``hard`` makes with that holding when its budget does not cut the sampling short."""
    if view.variant is not Variant.HOLDEM:
        raise ValueError(f"Hard's policy is shared across hold'em holdings, not {view.variant}")
    out: list[Decision | None] = []
    pending: list[tuple[int, SeatView, random.Random]] = []
    for i, (a, b) in enumerate(holes.tolist()):
        mine = replace(view, hole=(Card(a), Card(b)))
        mix = random.Random(seed ^ 0x5EED)
        out.append(_before_sampling(mine, mix))
        if out[-1] is None:
            pending.append((i, mine, mix))
    if pending:
        chosen = settings or HardSettings()
        shared = holdings.read(view, seed, chosen.runouts, max_samples=chosen.max_samples)
        weighed = sizes(view)
        rows = np.array([holes[i] for i, _, _ in pending], dtype=np.uint8)
        found = holdings.estimates(view, shared, rows, weighed, realised(view))
        for k, (i, mine, mix) in enumerate(pending):
            out[i] = choose(mine, _one(found, k, weighed), mix)
    return [d for d in out if d is not None]
