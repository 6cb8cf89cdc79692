"""Local Best Response (Lisy and Bowling, AAAI 2017): a lower bound on how exploitable a level
is at heads-up no-limit hold'em, measured by playing against it.

LBR knows the level's policy (``probe.policy``: its action at each decision for each of the
1,326 holdings) but not its cards, nor the coins of its mixed choices: it asks the policy with
a seed of its own (``POLICY_SALT``), ``draws`` times per decision, so a mixed action is known
only by its frequency. It keeps a range over the level's holdings, starting uniform (less
those its own cards block), and after each of the level's actions multiplies every holding's
weight by the level's estimated probability of that action with it (floored at ``FLOOR``, so a
rare action the draws missed does not rule the level's real holding out). At its own
decisions after the flop it weighs, against that range:

- check or call: its showdown equity against the range times the pot after calling, less the
  call (as if the hand were checked down: the paper's assumption);
- a bet or raise to the pot or all in (the paper's sizes): for each holding the level's probability
  of folding to it (the policy asked on the state after the bet), times the pot, plus the
  rest times the equity against the holdings that continue (a re-raise counted as a call);
- fold: 0 (chips already in are gone either way),

and takes the best. Before the flop it checks or calls (the paper's simplification).
Equities come from ``RUNOUTS`` seeded runouts of the board, shared by all holdings.

``run_lbr`` plays duplicate pairs: each deck twice, LBR in each seat, with all-in EV scoring
as the arena's; its result is LBR's win rate in mbb/hand with a 95 % interval over pairs. The
level loses that much to a best response at least (up to the estimate's noise and LBR's
restricted actions); always folding loses 750.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from libs.poker.commands import BetOrRaise, DealBoard, DealHands, Show
from libs.poker.config import BettingStructure, Variant
from libs.poker.engine import start_hand, step
from libs.poker.events import ActionKind
from libs.poker.evolve import replay
from libs.poker.fast.evaluator import draw_distinct, holdem_values
from libs.poker.legal import showdown_turn
from libs.poker.state import HandState, Phase

from .arena import MatchConfig, Scoring, _allin_ev, _Hand, _mix, command, deck
from .decision import Decision, legal
from .play import pot_raise_to
from .policy import DEFAULT_BUDGET, Level, decide
from .probe import FOLD, HOLDINGS, kind_index, policy, possible
from .stats import Summary, summarize
from .view import PREFLOP, SeatView, public_action, seat_view

HOLDEM, NO_LIMIT = Variant.HOLDEM, BettingStructure.NO_LIMIT
RUNOUTS = 96
#: Salt of the seeds LBR asks the policy with (never the level's own decision seed).
POLICY_SALT = 0x9017C7
#: Smallest likelihood a holding keeps after an action (the policy is estimated by draws).
FLOOR = 0.01
SIZES = (1.0,)  # pot fractions (the paper: a pot-size bet); all in is always weighed


def equities(hole: tuple[int, int], board: tuple[int, ...], seed: int) -> np.ndarray:
    """``[1326]``: ``hole``'s showdown share against each holding (0 where blocked)."""
    dead = (*hole, *board)
    rest = np.array([c for c in range(52) if c not in dead], dtype=np.int64)
    need = 5 - len(board)
    rng = np.random.default_rng(seed)
    runs = draw_distinct(rng, rest, RUNOUTS, need).astype(np.int64) if need else None
    out = np.zeros(len(HOLDINGS))
    seen = np.zeros(len(HOLDINGS))
    ok = possible(dead)
    idx = np.flatnonzero(ok)
    for r in range(RUNOUTS if need else 1):
        full = np.array([*board, *(runs[r] if runs is not None else ())], dtype=np.int64)
        live = idx[possible(tuple(int(c) for c in full))[idx]]
        boards = np.broadcast_to(full, (len(live), 5))
        values = holdem_values([np.array([hole]), HOLDINGS[live]], boards)
        out[live] += (values[0] > values[1]) + 0.5 * (values[0] == values[1])
        seen[live] += 1
    return np.divide(out, seen, out=np.zeros_like(out), where=seen > 0)


@dataclass
class Lbr:
    """LBR's side of one hand against ``level``."""

    level: Level
    budget: float
    weights: np.ndarray  # [1326] the level's range
    draws: int = 1

    def _policy(self, view: SeatView, seed: int, wanted: np.ndarray) -> np.ndarray:
        return policy(view, self.level, _mix(seed, POLICY_SALT), self.budget, wanted, self.draws)

    def observe(self, view: SeatView, seed: int) -> Decision:
        """The level acts: its real decision, and the range reweighted by its policy."""
        decision = decide(view, self.level, seed, self.budget)
        asked = self.weights > 0
        shares = self._policy(view, seed, asked)
        likely = np.where(asked, FLOOR + (1 - FLOOR) * shares[:, kind_index(decision.kind)], 0.0)
        self.weights = self.weights * likely
        return decision

    def act(self, state: HandState, view: SeatView, seed: int) -> Decision:
        if view.street == PREFLOP:
            return legal(view, ActionKind.CALL if view.to_call else ActionKind.CHECK)
        board = tuple(int(c) for c in view.board)
        weights = self.weights * possible(board)
        total = weights.sum()
        if total <= 0:  # the model lost the level's hand: play passively
            return legal(view, ActionKind.CALL if view.to_call else ActionKind.CHECK)
        r = weights / total
        hole = (int(view.hole[0]), int(view.hole[1]))
        wp = equities(hole, board, seed)
        pot, call = view.pot, view.to_call
        best = (
            float(r @ wp) * (pot + call) - call,
            ActionKind.CALL if call else ActionKind.CHECK,
            0,
        )
        if call and best[0] < 0:
            best = (0.0, ActionKind.FOLD, 0)
        o = view.options
        if o.can_raise:
            targets = {min(max(pot_raise_to(view, f), o.min_to), o.max_to) for f in SIZES}
            for to in sorted(targets | {o.max_to}):
                value = self._bet_value(state, view, to, r, wp, seed)
                if value > best[0]:
                    best = (value, ActionKind.RAISE, to)
        return legal(view, best[1], best[2], f"LBR {best[0]:+.0f}")

    def _bet_value(
        self, state: HandState, view: SeatView, to: int, r: np.ndarray, wp: np.ndarray, seed: int
    ) -> float:
        after, events = step(state, BetOrRaise(view.me, to))
        actions = [*view.actions]
        actions += [a for e in events if (a := public_action(e, view.street)) is not None]
        them = 1 - view.me
        if after.phase is not Phase.BETTING or after.actor != them:
            return float(r @ wp) * view.pot  # nothing to answer (cannot happen heads-up)
        answer = seat_view(after, them, actions)
        folds = self._policy(answer, seed, r > 0)[:, FOLD]
        added = to - view.bets[view.me]
        owed = answer.to_call
        pot = view.pot
        continuing = r * (1 - folds)
        return float((r * folds).sum() * pot + continuing @ (wp * (pot + added + owed) - added))


@dataclass
class LbrResult:
    level: str
    config: MatchConfig
    pairs: list[float] = field(default_factory=list)  # LBR's mbb/hand per duplicate pair
    draws: int = 1
    seconds: float = 0.0

    def summary(self) -> Summary:
        return summarize(self.pairs)

    def to_json(self) -> dict[str, object]:
        s = self.summary()
        return {
            "a": "lbr",
            "b": self.level,
            "hands": 2 * s.n,
            "lbr_mbb_per_hand": s.mean,
            "ci95": list(s.ci95) if s.ci95 else None,
            "sd": s.sd,
            "pairs": s.n,
            "method": "duplicate",
            "scoring": self.config.scoring.value,
            "stack_bb": self.config.stack_bb,
            "seed": self.config.seed,
            "policy_draws": self.draws,
            "seconds": self.seconds,
        }


def play_lbr_hand(
    level: Level, config: MatchConfig, group: int, lbr_at: int, budget: float, draws: int = 1
) -> float:
    """One hand, LBR at position ``lbr_at``: LBR's net chips (all-in EV when it applies)."""
    cards = deck(config.seed, group)
    seed = _mix(config.seed, group, lbr_at)
    stacks = [config.stack] * 2
    opening = start_hand(config.hand_config(), stacks)
    hand = _Hand(replay(opening), [])
    hand.record(opening)
    holes = (tuple(cards[0:2]), tuple(cards[2:4]))
    hand.apply(DealHands(holes))
    mine = possible(tuple(int(c) for c in holes[lbr_at])).astype(np.float64)
    lbr = Lbr(level, budget, mine, draws)
    streets = ((tuple(cards[5:8]), cards[4]), ((cards[9],), cards[8]), ((cards[11],), cards[10]))
    k = 0
    while not hand.state.is_complete:
        s = hand.state
        if s.phase is Phase.BETTING and s.actor is not None:
            view = seat_view(s, s.actor, hand.actions)
            k += 1
            if s.actor == lbr_at:
                answer = lbr.act(s, view, _mix(seed, k))
            else:
                answer = lbr.observe(view, _mix(seed, k))
            hand.apply(command(s.actor, answer))
        elif s.phase is Phase.DEALING_BOARD:
            if s.runout and config.scoring is Scoring.ALLIN_EV and len(s.board) < 5:
                return s.stacks[lbr_at] + _allin_ev(s, lbr_at, seed) - stacks[lbr_at]
            board, burn = streets[s.street]
            hand.apply(DealBoard(tuple(board), burn))
        elif s.phase is Phase.SHOWDOWN:
            turn = showdown_turn(s)
            assert turn is not None
            hand.apply(Show(turn.player))
        else:  # pragma: no cover - the engine advances every other phase by itself
            raise RuntimeError(f"hand stuck in phase {s.phase}")
    return float(hand.state.stacks[lbr_at] - stacks[lbr_at])


def run_lbr(
    level: Level,
    hands: int,
    config: MatchConfig,
    budget: float = DEFAULT_BUDGET,
    progress: Callable[[LbrResult], None] | None = None,
    draws: int = 1,
) -> LbrResult:
    """LBR against ``level`` heads-up no-limit hold'em: ``hands`` rounded up to whole pairs."""
    if (
        config.seats != 2
        or config.variant.value != "holdem"
        or config.structure.value != "no_limit"
    ):
        raise ValueError("LBR is defined here for heads-up no-limit hold'em")
    if draws < 1:
        raise ValueError(f"--lbr-draws must be at least 1, got {draws}")
    if hands < 1:
        raise ValueError(f"hands must be at least 1, got {hands}")
    result = LbrResult(level.value, config, draws=draws)
    started = time.perf_counter()
    for group in range(-(-hands // 2)):
        nets = [play_lbr_hand(level, config, group, at, budget, draws) for at in (0, 1)]
        result.pairs.append(1000.0 * sum(nets) / 2 / config.big_blind)
        result.seconds = time.perf_counter() - started
        if progress is not None:
            progress(result)
    return result


__all__ = ["Lbr", "LbrResult", "equities", "play_lbr_hand", "run_lbr"]
