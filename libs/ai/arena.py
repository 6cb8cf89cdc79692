"""Matches between two players through the rules engine, with duplicate seating.

Player A takes one seat and player B every other one. Each *duplicate group* is one shuffled deck
played ``seats`` times: the hole cards and the board stay with the positions, and A moves round
every position, so each deck is played by A from every seat the B players had. Luck of the cards
cancels inside a group; A's result is the group's mean, and the interval is computed over groups
(the hands inside one are correlated). Stacks are reset every hand.

Scoring: ``chips`` counts what A actually won. ``allin_ev`` (the default) also counts chips, but
when every chip that can be bet is in before the river, it replaces the rest of the deal with A's
expected share of each pot over the remaining cards (exactly when there are few runouts, else by
a seeded Monte Carlo estimate): the same expectation with less variance.

Pure: players are objects with ``act(view, seed) -> Decision | None`` (None: no answer in time,
as a remote bot may give); an answer that is illegal, or none, is replaced by what the table's
clock would do (check, else fold) and counted.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

import numpy as np

from libs.poker.cards import Card
from libs.poker.commands import BetOrRaise, Call, Check, Command, DealBoard, DealHands, Fold, Show
from libs.poker.config import BettingStructure, HandConfig, Variant, fixed_limit_blinds
from libs.poker.config import position_blinds as nl_blinds
from libs.poker.engine import start_hand, step
from libs.poker.equity import equity
from libs.poker.events import ActionKind, Event, StreetDealt
from libs.poker.evolve import replay
from libs.poker.legal import pots_of, showdown_turn
from libs.poker.state import HandState, Phase

from .decision import Decision, clock_action, is_legal
from .policy import DEFAULT_BUDGET, Level, decide
from .stats import Summary, summarize
from .view import PREFLOP, Prizes, PublicAction, SeatView, public_action, seat_view

MIN_SEATS, MAX_SEATS = 2, 6
EV_SAMPLES = 3_000
EV_EXACT_LIMIT = 20_000


class Scoring(StrEnum):
    CHIPS = "chips"
    ALLIN_EV = "allin_ev"


class Player(Protocol):
    @property
    def name(self) -> str: ...

    def act(self, view: SeatView, seed: int) -> Decision | None: ...


@dataclass(frozen=True)
class LevelPlayer:
    """A level or baseline of ``libs.ai`` played in-process."""

    level: Level
    budget: float = DEFAULT_BUDGET

    @property
    def name(self) -> str:
        return self.level.value

    def act(self, view: SeatView, seed: int) -> Decision:
        return decide(view, self.level, seed, self.budget)


@dataclass(frozen=True)
class MatchConfig:
    variant: Variant = Variant.HOLDEM
    structure: BettingStructure = BettingStructure.NO_LIMIT
    seats: int = 2
    big_blind: int = 100  # chips; fixed limit: the small bet
    stack_bb: float = 100.0
    seed: int = 1
    scoring: Scoring = Scoring.ALLIN_EV
    ante_bb: float = 0.0  # every player's ante, big blinds
    big_blind_ante_bb: float = 0.0  # the big blind's ante for the table (dead money)

    def __post_init__(self) -> None:
        if not MIN_SEATS <= self.seats <= MAX_SEATS:
            raise ValueError(f"seats must be {MIN_SEATS} to {MAX_SEATS}, got {self.seats}")
        if self.big_blind < 2:
            raise ValueError("the big blind must be at least 2 chips")
        if self.stack_bb < 1 or self.stack_bb * self.big_blind > 10**12:
            raise ValueError(f"stacks must be 1 to {10**12 // self.big_blind} big blinds")
        for name, ante in (("ante", self.ante_bb), ("big blind ante", self.big_blind_ante_bb)):
            if not 0 <= ante <= self.stack_bb or (ante and round(ante * self.big_blind) < 1):
                raise ValueError(f"the {name} is 0 or one chip to a stack, not {ante:g} bb")
        if self.ante_bb and self.big_blind_ante_bb:
            raise ValueError("antes from every player or a big blind ante, not both")

    @property
    def stack(self) -> int:
        return round(self.stack_bb * self.big_blind)

    def hand_config(self) -> HandConfig:
        if self.structure is BettingStructure.FIXED_LIMIT:
            sb, bb = fixed_limit_blinds(self.big_blind)
        else:
            sb, bb = self.big_blind // 2, self.big_blind
        antes = [round(self.ante_bb * self.big_blind)] * self.seats
        if self.big_blind_ante_bb:  # heads-up the big blind is position 0, else position 1
            antes = [0] * self.seats
            antes[0 if self.seats == 2 else 1] = round(self.big_blind_ante_bb * self.big_blind)
        blinds = nl_blinds(self.seats, sb, bb)
        return HandConfig(
            self.variant,
            self.structure,
            blinds,
            antes=tuple(antes),
            dead_antes=self.big_blind_ante_bb > 0,
        )


@dataclass
class Tally:
    """What happened to one player's answers."""

    decisions: int = 0
    illegal: int = 0
    no_answer: int = 0
    seconds: float = 0.0


@dataclass
class GroupResult:
    mbb: tuple[float, ...]  # A's result of each hand of the group, in milli-big-blinds

    @property
    def mean(self) -> float:
        return sum(self.mbb) / len(self.mbb)


@dataclass
class MatchResult:
    a: str
    b: str
    config: MatchConfig
    groups: list[GroupResult] = field(default_factory=list)
    tallies: dict[str, Tally] = field(default_factory=lambda: {"a": Tally(), "b": Tally()})
    allin_ev_hands: int = 0
    seconds: float = 0.0

    @property
    def hands(self) -> int:
        return sum(len(g.mbb) for g in self.groups)

    def summary(self) -> Summary:
        return summarize([g.mean for g in self.groups])

    def to_json(self) -> dict[str, object]:
        s = self.summary()
        return {
            "a": self.a,
            "b": self.b,
            "hands": self.hands,
            "mbb_per_hand": s.mean,
            "ci95": list(s.ci95) if s.ci95 is not None else None,
            "sd": s.sd,
            "groups": s.n,
            "method": "duplicate",
            "scoring": self.config.scoring.value,
            "variant": self.config.variant.value,
            "structure": self.config.structure.value,
            "seats": self.config.seats,
            "stack_bb": self.config.stack_bb,
            "ante_bb": self.config.ante_bb,
            "big_blind_ante_bb": self.config.big_blind_ante_bb,
            "seed": self.config.seed,
            "hands_needed": s.needed(self.config.seats),
            "allin_ev_hands": self.allin_ev_hands,
            "answers": {
                side: {
                    "decisions": t.decisions,
                    "illegal": t.illegal,
                    "no_answer": t.no_answer,
                    "mean_ms": 1000 * t.seconds / t.decisions if t.decisions else 0.0,
                }
                for side, t in self.tallies.items()
            },
            "seconds": self.seconds,
        }


def _mix(*values: int) -> int:
    """A 64-bit seed from several integers (splitmix64 steps)."""
    x = 0x9E3779B97F4A7C15
    for v in values:
        x = (x ^ (v & 0xFFFFFFFFFFFFFFFF)) * 0xBF58476D1CE4E5B9 & 0xFFFFFFFFFFFFFFFF
        x ^= x >> 31
        x = x * 0x94D049BB133111EB & 0xFFFFFFFFFFFFFFFF
        x ^= x >> 29
    return x or 1


def deck(seed: int, group: int) -> tuple[Card, ...]:
    """The shuffled deck of one duplicate group."""
    order = np.random.default_rng([seed & 0xFFFFFFFF, seed >> 32, group]).permutation(52)
    return tuple(Card(int(c)) for c in order)


def command(position: int, decision: Decision) -> Command:
    """The engine command that carries out ``decision`` for ``position``."""
    kind = decision.kind
    if kind is ActionKind.FOLD:
        return Fold(position)
    if kind is ActionKind.CHECK:
        return Check(position)
    if kind is ActionKind.CALL:
        return Call(position)
    return BetOrRaise(position, decision.to)


def _allin_ev(state: HandState, position: int, seed: int) -> float:
    """``position``'s expected winnings from the pots over the rest of the board."""
    variant = state.config.variant
    won = 0.0
    for index, pot in enumerate(pots_of(state)):
        if position not in pot.eligible:
            continue
        if len(pot.eligible) == 1:
            won += pot.amount
            continue
        others = [c for p, hole in enumerate(state.hole) if p not in pot.eligible for c in hole]
        result = equity(
            variant,
            [state.hole[p] for p in pot.eligible],
            state.board,
            others,
            max_samples=EV_SAMPLES,
            exact_limit=EV_EXACT_LIMIT,
            seed=_mix(seed, index),
        )
        won += pot.amount * result.players[pot.eligible.index(position)].equity
    return won


@dataclass
class _Hand:
    """One hand in play: the engine state and its public history."""

    state: HandState
    actions: list[PublicAction]
    street: int = PREFLOP

    def apply(self, command: Command) -> None:
        self.state, events = step(self.state, command)
        self.record(events)

    def record(self, events: Sequence[Event]) -> None:
        for event in events:
            if isinstance(event, StreetDealt):
                self.street = event.street
                continue
            action = public_action(event, self.street)
            if action is not None:
                self.actions.append(action)


def play_hand(
    config: MatchConfig,
    cards: Sequence[Card],
    seated: Sequence[tuple[Player, str]],
    seed: int,
    tallies: dict[str, Tally],
    clock: Callable[[], float] = time.perf_counter,
    stacks: Sequence[int] | None = None,
    prizes: Prizes | None = None,
) -> tuple[tuple[float, ...], bool]:
    """Play one hand; ``seated[p]`` is position p's player and its tally key. Returns every
    position's net result in chips (expected, with all-in EV scoring) and whether all-in EV
    was applied. ``stacks`` (default: ``config.stack`` each) and ``prizes`` (a tournament's,
    shown in every view) are for tournaments (``sng.py``)."""
    n = config.seats
    hand_config = config.hand_config()
    k = hand_config.variant.hole_card_count
    stacks = list(stacks) if stacks is not None else [config.stack] * n
    opening = start_hand(hand_config, stacks)
    hand = _Hand(replay(opening), [])
    hand.record(opening)
    holes = tuple(tuple(cards[p * k : (p + 1) * k]) for p in range(n))
    hand.apply(DealHands(holes))
    board_at = n * k
    flop = tuple(cards[board_at + 1 : board_at + 4])
    streets = (
        (flop, cards[board_at]),
        ((cards[board_at + 5],), cards[board_at + 4]),
        ((cards[board_at + 7],), cards[board_at + 6]),
    )
    decisions = 0
    while not hand.state.is_complete:
        s = hand.state
        if s.phase is Phase.BETTING and s.actor is not None:
            p = s.actor
            player, side = seated[p]
            view = seat_view(s, p, hand.actions, prizes)
            tally = tallies[side]
            started = clock()
            answer = player.act(view, _mix(seed, decisions))
            tally.seconds += clock() - started
            tally.decisions += 1
            decisions += 1
            if answer is None:
                tally.no_answer += 1
                answer = clock_action(view)
            elif not is_legal(view.options, answer):
                tally.illegal += 1
                answer = clock_action(view)
            hand.apply(command(p, answer))
        elif s.phase is Phase.DEALING_BOARD:
            if s.runout and config.scoring is Scoring.ALLIN_EV and len(s.board) < 5:
                won = [_allin_ev(s, p, seed) for p in range(n)]
                return tuple(s.stacks[p] + won[p] - stacks[p] for p in range(n)), True
            board, burn = streets[s.street]
            hand.apply(DealBoard(tuple(board), burn))
        elif s.phase is Phase.SHOWDOWN:
            turn = showdown_turn(s)
            assert turn is not None
            hand.apply(Show(turn.player))
        else:  # pragma: no cover - the engine advances every other phase by itself
            raise RuntimeError(f"hand stuck in phase {s.phase}")
    final = hand.state.stacks
    return tuple(float(final[p] - stacks[p]) for p in range(n)), False


Progress = Callable[[MatchResult, int], None]


def run_match(
    a: Player,
    b: Player,
    hands: int,
    config: MatchConfig,
    progress: Progress | None = None,
) -> MatchResult:
    """Play at least ``hands`` hands (rounded up to whole duplicate groups of ``seats``)."""
    if hands < 1:
        raise ValueError(f"hands must be at least 1, got {hands}")
    n = config.seats
    groups = -(-hands // n)
    result = MatchResult(a.name, b.name, config)
    started = time.perf_counter()
    bb = config.big_blind
    for group in range(groups):
        cards = deck(config.seed, group)
        mbb: list[float] = []
        for rotation in range(n):
            seated = [(a, "a") if p == rotation else (b, "b") for p in range(n)]
            seed = _mix(config.seed, group, rotation)
            nets, used_ev = play_hand(config, cards, seated, seed, result.tallies)
            result.allin_ev_hands += used_ev
            mbb.append(1000.0 * nets[rotation] / bb)
        result.groups.append(GroupResult(tuple(mbb)))
        result.seconds = time.perf_counter() - started
        if progress is not None:
            progress(result, groups)
    return result
