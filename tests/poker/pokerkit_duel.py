"""One hand played in both engines, the state both sides share: ``Duel`` holds our hand and
PokerKit's, the deck, the rules' betting round, the per-hand playing style, and reports a
difference (``fail``: a ``Mismatch`` naming the seed and the command that replays the hand).
``pokerkit_decisions`` compares each decision on it, ``pokerkit_bridge`` plays the hand through.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from libs.poker import (
    DECK,
    DEFAULT_EVALUATOR,
    BettingStructure,
    Command,
    Event,
    HandEvaluator,
    HandState,
    PokerError,
    Variant,
    new_hand,
    step,
)
from tests.poker.pokerkit_hands import HAND_CACHE
from tests.poker.pokerkit_tables import pokerkit_state, random_table
from tests.poker.reference_betting import BettingRound


@dataclass
class HandResult:
    """What one hand of the duel was and reached (the tests report the counts)."""

    seed: int
    variant: Variant
    structure: BettingStructure
    players: int
    decisions: int = 0
    showdown: bool = False
    all_in: bool = False
    street_reached: int = 0
    translations: Counter[str] = field(default_factory=Counter)
    starting_stacks: tuple[int, ...] = ()
    finishing_stacks: tuple[int, ...] = ()


class Mismatch(AssertionError):
    """The engines disagree, or one disagrees with the rules' reference."""


class MemoEvaluator:
    """Our engine's own evaluator (``DEFAULT_EVALUATOR``), remembering answers for one hand.

    The engine evaluates every contender again for each side pot; the values are the same.
    """

    def __init__(self, inner: HandEvaluator = DEFAULT_EVALUATOR) -> None:
        self.inner = inner
        self.highs: dict[tuple[int, ...], int] = {}
        self.omaha_highs: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
        self.omaha_lows: dict[tuple[tuple[int, ...], tuple[int, ...]], int | None] = {}

    def high(self, cards: Sequence[int]) -> int:
        key = tuple(cards)
        if key not in self.highs:
            self.highs[key] = self.inner.high(cards)
        return self.highs[key]

    def omaha_high(self, hole: Sequence[int], board: Sequence[int]) -> int:
        key = (tuple(hole), tuple(board))
        if key not in self.omaha_highs:
            self.omaha_highs[key] = self.inner.omaha_high(hole, board)
        return self.omaha_highs[key]

    def omaha_low(self, hole: Sequence[int], board: Sequence[int]) -> int | None:
        key = (tuple(hole), tuple(board))
        if key not in self.omaha_lows:
            self.omaha_lows[key] = self.inner.omaha_low(hole, board)
        return self.omaha_lows[key]


@dataclass
class Options:
    """What a player may do, in one shape for both engines."""

    can_fold: bool
    can_check: bool
    can_call: bool
    call_amount: int
    can_raise: bool
    min_to: int
    max_to: int


class Duel:
    def __init__(
        self, seed: int, variant: Variant, structure: BettingStructure, n: int, verbose: bool
    ) -> None:
        HAND_CACHE.clear()
        self.rng = random.Random(f"{seed}:{variant.value}:{structure.value}:{n}")
        self.config, self.stacks = random_table(self.rng, variant, structure, n)
        self.result = HandResult(seed, variant, structure, n, starting_stacks=self.stacks)
        self.verbose = verbose
        self.log: list[str] = [
            f"config={self.config}",
            f"stacks={list(self.stacks)}",
        ]
        deck = list(DECK)
        self.rng.shuffle(deck)
        self.deck = deck
        self.evaluator = MemoEvaluator()
        self.ours: HandState = new_hand(self.config, self.stacks)
        self.events: list[Event] = []
        self.theirs = pokerkit_state(self.config, self.stacks)
        self.folded = [False] * n
        self.round = BettingRound.open(self.config, 0)
        # A per-hand playing style, so some hands are passive (to showdown), others wild.
        self.raise_rate = self.rng.choice((0.1, 0.25, 0.4, 0.6))
        self.fold_rate = self.rng.choice((0.03, 0.1, 0.25))

    def fail(self, message: str) -> Mismatch:
        r = self.result
        return Mismatch(
            f"{message}\n  seed={r.seed} variant={r.variant.value} structure={r.structure.value} "
            f"players={r.players}\n  reproduce: .venv/bin/python -m tests.poker.pokerkit_bridge "
            f"{r.seed} {r.variant.value} {r.structure.value} {r.players}\n  "
            + "\n  ".join(self.log)
        )

    def note(self, line: str) -> None:
        self.log.append(line)
        if self.verbose:
            print(line)

    def apply(self, command: Command) -> None:
        try:
            self.ours, events = step(self.ours, command, self.evaluator)
        except PokerError as exc:
            raise self.fail(f"our engine rejected {command}: {exc}") from exc
        self.events.extend(events)

    def pk_do(self, what: str, action: Callable[..., object], *args: object) -> None:
        try:
            action(*args)
        except (ValueError, UserWarning) as exc:
            raise self.fail(f"PokerKit rejected {what}: {exc!r}") from exc

    def translate(self, name: str) -> None:
        self.result.translations[name] += 1
        self.note(f"  translation: {name}")
