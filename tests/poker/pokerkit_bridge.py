"""Differential play of our engine against PokerKit 0.7.7 (a test dependency only).

``play_random_hand(seed, variant, structure, n)`` draws a table from the seed (blinds, antes,
2-10 stacks, many of them short), shuffles one deck, deals the SAME cards to both engines and
plays random decisions legal in both until the hand ends. At every decision it compares the
actor, fold/check/call, the call amount, whether a raise is allowed and the raise-to bounds, and
that one chip below the minimum and one above the maximum are rejected by both. At the end it
checks the finishing stacks, the pots and chip conservation.

Both engines are also held to a reference computed from neither: ``BettingRound`` rebuilds each
betting round from the table's stakes and the actions alone (the bet to call, the size of a full
raise, who acted since the last full raise, every raise and whether it was full), and the pay-out
is recomputed from what each player put in and PokerKit's hand classes. Our engine must offer a
raise exactly when the reopening rule and the fixed-limit cap allow one, with exactly the rules'
bounds, and pay exactly the rules' amounts.

Where docs/rules.md ("Where references disagree") says our rule differs from PokerKit, the
harness translates, only when the rule the translation stands for, computed from that reference,
explains both answers exactly, and counts every translation in ``HandResult.translations``:

``cap_preflop`` (choice 1)
    Fixed-limit preflop with the big blind and three raises made: we refuse the raise
    (``CAP_REACHED``) while PokerKit, which has counted three raises, allows a fourth.
``short_all_in_preflop`` (the TDA reopening rule; PokerKit differs)
    Preflop, the player acted since the last full raise and faces less than a full raise: we
    refuse a raise (``ACTION_NOT_REOPENED``); PokerKit allows it because one of the short
    all-ins since was at least every raise before it in the round, which PokerKit (its raise
    size starts at 0 each round, the blinds are not raises) counts as a full raise.
``short_all_in_bet``
    The same after the flop, in a round opened by an all-in bet below the minimum bet.
``short_all_in_sum_reset``
    The player acted since the last full raise, and two or more short all-ins since then add up
    to a full raise: we allow a raise (with the rules' bounds), PokerKit refuses it because it
    reset its running sum of short all-ins when it reached a full raise earlier.
``odd_chips`` (choice 4), ``hi_lo_side_pot`` (choice 5), ``pot_merging``
    The pay-out is recomputed under our rules and under PokerKit's: PokerKit's finishing stacks
    must equal the second, ours the first. A counter fires when switching that one rule changes
    the result. ``pot_merging`` (not in the rules' list): before paying, PokerKit kills every
    shown hand that cannot win any part of any pot and builds its pots again without those
    players, merging pots whose eligible players became the same, so their odd chips are shared
    out once; PokerKit's pots must be exactly ours rebuilt that way. We pay each pot separately
    (here everybody shows, so no pot of ours loses a player).

Straddles (choice 2) and blinds posted short (choice 3) are not generated: every stack is larger
than its position's ante plus blind. Nor are equal blinds heads-up (PokerKit then lets the big
blind act first preflop).

Reproduce one hand, printing every step: ``.venv/bin/python -m tests.poker.pokerkit_bridge SEED
VARIANT STRUCTURE N`` (for example ``... 17 omaha_hi_lo fixed_limit 6``).
"""

from __future__ import annotations

import random
import sys
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from math import prod
from typing import Any

import pokerkit as pk

from libs.poker import (
    DECK,
    DEFAULT_EVALUATOR,
    BetOrRaise,
    BettingStructure,
    Call,
    Card,
    Check,
    Command,
    DealBoard,
    DealHoleCards,
    Event,
    Fold,
    HandConfig,
    HandEvaluator,
    HandState,
    IllegalAction,
    LegalActions,
    Phase,
    PokerError,
    PotAwarded,
    Show,
    Variant,
    fixed_limit_blinds,
    format_cards,
    legal_actions,
    new_hand,
    position_blinds,
    showdown_turn,
    step,
)

PK_CARDS: tuple[pk.Card, ...] = tuple(next(iter(pk.Card.parse(str(card)))) for card in DECK)

TRANSLATIONS = (
    "cap_preflop",
    "short_all_in_preflop",
    "short_all_in_bet",
    "short_all_in_sum_reset",
    "odd_chips",
    "hi_lo_side_pot",
    "pot_merging",
)

# PokerKit posts forced bets, collects bets, kills hopeless hands and pulls chips; we deal every
# card, burn, show (everybody shows: see ``_finish``) and push chips ourselves.
AUTOMATIONS = (
    pk.Automation.ANTE_POSTING,
    pk.Automation.BET_COLLECTION,
    pk.Automation.BLIND_OR_STRADDLE_POSTING,
    pk.Automation.HAND_KILLING,
    pk.Automation.CHIPS_PULLING,
)

_HAND_CACHE: dict[tuple[type[pk.Hand], tuple[pk.Card, ...], tuple[pk.Card, ...]], object] = {}


_RANK_PRIMES: dict[pk.Rank, int] = pk.Lookup._Lookup__multipliers  # type: ignore[attr-defined]


def _memoized(base: type[pk.Hand]) -> type[pk.Hand]:
    """PokerKit's hand class ``base``, evaluated faster; the hands are the same.

    PokerKit evaluates every shown hand again for every pot, hand type and question (who can
    still win, whose hand is killed, who gets each pot), and a hand looks its lookup entry up
    again at every comparison: an Omaha hi-lo showdown costs hundreds of milliseconds. Here
    ``from_game`` walks the same five-card combinations in the same order as PokerKit's (Omaha:
    each pair of hole cards, then each three board cards; hold'em: any five of the seven),
    looks each up once in PokerKit's own table and keeps the first strongest, exactly as
    PokerKit's ``max`` does; answers are remembered for the hand. ``test_differential`` checks
    the result against PokerKit's own classes.
    """
    entries = base.lookup._Lookup__entries  # type: ignore[attr-defined]
    invalid = f"the cards form no {base.__qualname__} hand"
    low = base.low
    hole_count: int | None = getattr(base, "hole_card_count", None)
    board_count: int | None = getattr(base, "board_card_count", None)

    def lookup(cards: tuple[pk.Card, ...]) -> object:
        # ``Lookup.get_entry_or_none``: the key is the product of the rank primes and whether
        # all the cards are suited.
        return entries.get(
            (prod(_RANK_PRIMES[c.rank] for c in cards), len({c.suit for c in cards}) <= 1)
        )

    def __init__(self: pk.Hand, cards: pk.CardsLike) -> None:
        cleaned = pk.Card.clean(cards)
        entry = lookup(cleaned)
        if entry is None:
            raise ValueError(invalid)
        self._Hand__cards = cleaned  # type: ignore[attr-defined]
        self._entry = entry  # type: ignore[attr-defined]

    def entry(self: pk.Hand) -> object:
        return self._entry  # type: ignore[attr-defined]

    def candidates(
        hole: tuple[pk.Card, ...], board: tuple[pk.Card, ...]
    ) -> Iterator[tuple[pk.Card, ...]]:
        if hole_count is None or board_count is None:
            yield from combinations(hole + board, 5)
            return
        for pair in combinations(hole, hole_count):
            for triple in combinations(board, board_count):
                yield pair + triple

    def from_game(
        cls: type[pk.Hand], hole_cards: pk.CardsLike, board_cards: pk.CardsLike = ()
    ) -> pk.Hand:
        hole = tuple(pk.Card.clean(hole_cards))
        board = tuple(pk.Card.clean(board_cards))
        key = (cls, hole, board)
        hand = _HAND_CACHE.get(key)
        if hand is None:
            best: Any = None
            best_cards: tuple[pk.Card, ...] = ()
            for cards in candidates(hole, board):
                found: Any = lookup(cards)
                if found is not None and (best is None or (found < best if low else found > best)):
                    best, best_cards = found, cards
            if best is None:
                hand = ValueError(invalid)
            else:
                made = cls.__new__(cls)
                made._Hand__cards = best_cards  # type: ignore[attr-defined]
                made._entry = best  # type: ignore[attr-defined]
                hand = made
            _HAND_CACHE[key] = hand
        if isinstance(hand, ValueError):
            raise hand
        return hand  # type: ignore[return-value]

    namespace = {
        "__init__": __init__,
        "entry": property(entry),
        "from_game": classmethod(from_game),
    }
    return type(base.__name__, (base,), namespace)


_HIGH = _memoized(pk.StandardHighHand)
_OMAHA_HIGH = _memoized(pk.OmahaHoldemHand)
_OMAHA_LOW = _memoized(pk.OmahaEightOrBetterLowHand)

HAND_TYPES: dict[Variant, tuple[type[pk.Hand], ...]] = {
    Variant.HOLDEM: (_HIGH,),
    Variant.OMAHA: (_OMAHA_HIGH,),
    Variant.OMAHA_HI_LO: (_OMAHA_HIGH, _OMAHA_LOW),
}

PK_STRUCTURES = {
    BettingStructure.NO_LIMIT: pk.BettingStructure.NO_LIMIT,
    BettingStructure.POT_LIMIT: pk.BettingStructure.POT_LIMIT,
    BettingStructure.FIXED_LIMIT: pk.BettingStructure.FIXED_LIMIT,
}

BOUNDS_CHECK_RATE = 0.3  # share of decisions where min_to - 1 and max_to + 1 are tried in both

PK_ACTED_MESSAGE = "The player already acted and hence cannot raise"
FIXED_LIMIT_BETS = 4  # per round: one bet and three raises (preflop the big blind is the bet)


# --------------------------------------------------------------------------- tables


def by_role(values: Sequence[int]) -> tuple[int, ...]:
    """Our per-position forced bets in PokerKit's order (heads-up reversed, as PHH does)."""
    return tuple(reversed(values)) if len(values) == 2 else tuple(values)


def pokerkit_streets(config: HandConfig) -> tuple[pk.Street, ...]:
    """Hold'em / Omaha streets, exactly as PokerKit's ``Holdem`` games define them."""
    fixed = config.structure is BettingStructure.FIXED_LIMIT
    cap = 4 if fixed else None
    small = config.min_bet
    big = config.big_bet if fixed else config.min_bet
    hole = (False,) * config.variant.hole_card_count
    position = pk.Opening.POSITION
    return (
        pk.Street(False, hole, 0, False, position, small, cap),
        pk.Street(True, (), 3, False, position, small, cap),
        pk.Street(True, (), 1, False, position, big, cap),
        pk.Street(True, (), 1, False, position, big, cap),
    )


def pokerkit_state(config: HandConfig, stacks: Sequence[int]) -> pk.State:
    """A PokerKit state for the same hand: PokerKit player i is our position i.

    Built from the generic ``pokerkit.State`` for all nine games (the presets are the same
    construction; fixed-limit Omaha hi-lo is built with fixed-limit betting and a cap of four,
    unlike PokerKit 0.7.7's preset, which uses pot-limit betting).
    """
    return pk.State(
        AUTOMATIONS,
        pk.Deck.STANDARD,
        HAND_TYPES[config.variant],
        pokerkit_streets(config),
        PK_STRUCTURES[config.structure],
        not config.dead_antes,
        by_role(config.antes),
        by_role(config.blinds),
        0,
        tuple(stacks),
        config.player_count,
        mode=pk.Mode.TOURNAMENT,
    )


def random_table(
    rng: random.Random, variant: Variant, structure: BettingStructure, n: int
) -> tuple[HandConfig, tuple[int, ...]]:
    """Blinds, antes and stacks: short, medium and deep stacks mixed, so all-ins are common.

    Every stack is larger than its ante plus blind (no blind is posted short: choice 3).
    Heads-up the blinds differ: with equal blinds PokerKit lets the big blind act first preflop
    (it breaks the tie by player index), while the button acts first by RULES.md.
    """
    if structure is BettingStructure.FIXED_LIMIT:
        small_bets = (2, 2, 4, 5, 10, 10, 20, 25, 50, 3) + (() if n == 2 else (1,))
        small_bet = rng.choice(small_bets)
        sb, bb = fixed_limit_blinds(small_bet)
        min_bet = small_bet
    else:
        bb = rng.choice((2, 2, 4, 5, 10, 10, 20, 25, 50, 100, 3))
        sb = rng.choice((bb // 2, bb // 2, bb // 2, max(1, bb // 3), rng.randint(1, bb)))
        sb = max(sb, 1)
        if n == 2 and sb == bb:
            sb = bb - 1
        min_bet = bb
    blinds = position_blinds(n, sb, bb)
    antes: tuple[int, ...] = ()
    dead = False
    roll = rng.random()
    if roll < 0.25:  # the same ante for everybody, live or dead
        ante = rng.randint(1, max(1, bb // 2))
        antes = (ante,) * n
        dead = rng.random() < 0.4
    elif roll < 0.35:  # big-blind ante (dead)
        big_blind_position = 0 if n == 2 else 1
        antes = tuple(bb if i == big_blind_position else 0 for i in range(n))
        dead = True
    config = HandConfig(
        variant=variant,
        structure=structure,
        blinds=blinds,
        antes=antes,
        min_bet=min_bet,
        dead_antes=dead,
    )
    unit = max(bb, 1)
    depth = rng.random()
    stacks = []
    for i in range(n):
        floor = config.blinds[i] + config.antes[i] + 1
        kind = rng.random()
        if kind < 0.15 + 0.3 * depth:
            stack = rng.randint(floor, floor + 6 * unit)
        elif kind < 0.75:
            stack = rng.randint(8 * unit, 60 * unit)
        else:
            stack = rng.randint(60 * unit, 300 * unit)
        stacks.append(max(stack, floor))
    return config, tuple(stacks)


# --------------------------------------------------------------------------- pay-out reference


@dataclass(frozen=True)
class RefPot:
    amount: int
    eligible: tuple[int, ...]


def reference_pots(
    contributions: Sequence[int],
    dead_antes: Sequence[int],
    contenders: Sequence[bool],
) -> list[RefPot]:
    """Main and side pots from what each player put in (``dead_antes`` go to the main pot).

    Every distinct amount caps a pot; eligible are the contenders who put in at least that much;
    adjacent pots with the same eligible players are one pot.
    """
    live = [c - d for c, d in zip(contributions, dead_antes, strict=True)]
    pots: list[RefPot] = []
    carried = sum(dead_antes)
    previous = 0
    for level in sorted(set(live)):
        amount = carried + sum(min(c, level) - min(c, previous) for c in live)
        carried = 0
        eligible = tuple(i for i, c in enumerate(live) if c >= level and contenders[i])
        if pots and pots[-1].eligible == eligible:
            amount += pots.pop().amount
        if amount:
            assert eligible, f"chips {amount} above level {previous} with nobody to win them"
            pots.append(RefPot(amount, eligible))
        previous = level
    return pots


@dataclass(frozen=True)
class Hands:
    """Each contender's high hand and qualifying low (None: no low), by PokerKit's classes."""

    high: dict[int, pk.Hand]
    low: dict[int, pk.Hand | None]
    hi_lo: bool


def evaluate_hands(
    variant: Variant, holes: Sequence[Sequence[int]], board: Sequence[int], players: Sequence[int]
) -> Hands:
    board_cards = [PK_CARDS[c] for c in board]
    high_type, *low_types = HAND_TYPES[variant]
    high: dict[int, pk.Hand] = {}
    low: dict[int, pk.Hand | None] = {}
    for p in players:
        hole = [PK_CARDS[c] for c in holes[p]]
        high[p] = high_type.from_game(hole, board_cards)
        if low_types:
            try:
                low[p] = low_types[0].from_game(hole, board_cards)
            except ValueError:
                low[p] = None
    return Hands(high, low, bool(low_types))


def _split(amount: int, winners: Sequence[int], one_each: bool) -> dict[int, int]:
    """Our rule (``one_each``): odd chips one at a time from the lowest position; PokerKit's:
    the whole remainder to the first winner."""
    ordered = sorted(winners)
    share, odd = divmod(amount, len(ordered))
    if one_each:
        return {p: share + (1 if k < odd else 0) for k, p in enumerate(ordered)}
    return {p: share + (odd if k == 0 else 0) for k, p in enumerate(ordered)}


def _best(hands: dict[int, pk.Hand], players: Sequence[int]) -> list[int]:
    top = max(hands[p] for p in players)
    return [p for p in players if hands[p] == top]


def reference_payout(
    pots: Sequence[RefPot],
    hands: Hands,
    *,
    odd_chips_one_each: bool,
    low_per_pot: bool,
    low_contenders: Sequence[int],
    n: int,
) -> list[int]:
    """What each player receives. ``odd_chips_one_each``: our choice 4 (else PokerKit's rule).

    ``low_per_pot``: our choice 5, a pot is split only if one of its own eligible players has a
    qualifying low. Otherwise (PokerKit) every pot is split when any of ``low_contenders`` has
    one, and a pot none of whose players has a low gives its low half to all of them.
    """
    paid = [0] * n
    for pot in pots:
        eligible = pot.eligible
        if len(eligible) == 1:
            paid[eligible[0]] += pot.amount
            continue
        shares: list[tuple[int, list[int]]] = []
        high_winners = _best(hands.high, eligible)
        lows = [p for p in eligible if hands.low.get(p) is not None]
        if low_per_pot:
            split = hands.hi_lo and bool(lows)
        else:
            split = hands.hi_lo and any(hands.low.get(p) is not None for p in low_contenders)
        if not split:
            shares.append((pot.amount, high_winners))
        else:
            low_half = pot.amount // 2
            shares.append((pot.amount - low_half, high_winners))
            if lows:
                top = max(hands.low[p] for p in lows)  # type: ignore[type-var]
                low_winners = [p for p in lows if hands.low[p] == top]
            else:  # PokerKit: no low among them, every player ties for the low half
                low_winners = list(eligible)
            shares.append((low_half, low_winners))
        for amount, winners in shares:
            for p, chips in _split(amount, winners, odd_chips_one_each).items():
                paid[p] += chips
    return paid


def hopeless_hands(pots: Sequence[RefPot], hands: Hands) -> set[int]:
    """The players PokerKit kills before paying: those whose hand (high, or qualifying low in
    hi-lo) is not at least the best of its kind among the players of some pot they are in."""
    kinds: list[dict[int, pk.Hand | None]] = [dict(hands.high)]
    if hands.hi_lo:
        kinds.append(dict(hands.low))
    alive: set[int] = set()
    for pot in pots:
        for kind in kinds:
            made = {p: hand for p in pot.eligible if (hand := kind.get(p)) is not None}
            if made:
                best = max(made.values())
                alive.update(p for p, hand in made.items() if not hand < best)
    return {p for pot in pots for p in pot.eligible} - alive


# --------------------------------------------------------------------------- playing a hand


@dataclass
class HandResult:
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
    pass


class _MemoEvaluator:
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
class _Raise:
    player: int
    increment: int  # raised by: the new highest bet minus the one before
    full: bool  # at least a full bet or raise (RULES.md); else a short all-in
    index: int  # position in the round's action list


@dataclass
class BettingRound:
    """One betting round as RULES.md states it, rebuilt from the table's stakes and the actions
    alone, without asking either engine: the bets in front of each player, the bet to call, the
    size a bet or raise must reach to be full (the street's bet size at least, else the largest
    full bet or raise so far; preflop the big blind is the first bet), who has acted since the
    last full bet or raise, and every raise with its increment.
    """

    street: int
    structure: BettingStructure
    bets: list[int]
    current: int
    full: int
    bets_made: int  # bets and raises this round, the preflop big blind included
    acted: set[int] = field(default_factory=set)
    last_action: dict[int, int] = field(default_factory=dict)  # player -> index of their last
    raises: list[_Raise] = field(default_factory=list)
    actions: int = 0

    @classmethod
    def open(cls, config: HandConfig, street: int) -> BettingRound:
        """The round of ``street``: preflop the blinds are the bets (no blind is short here)."""
        fixed = config.structure is BettingStructure.FIXED_LIMIT
        size = config.big_bet if fixed and street >= 2 else config.min_bet
        n = config.player_count
        bets = list(config.blinds) if street == 0 else [0] * n
        current = max(bets)
        return cls(street, config.structure, bets, current, max(size, current), int(current > 0))

    @property
    def opened_short(self) -> bool:
        """This round's first bet was an all-in below the minimum bet."""
        return self.street > 0 and bool(self.raises) and not self.raises[0].full

    def record(self, player: int, kind: str, to: int = 0) -> _Raise | None:
        """Apply one action (``fold``, ``check``, ``call`` with the amount now in front of the
        player, or ``raise`` to ``to``); a raise is returned with whether it was full."""
        index = self.actions
        self.actions += 1
        self.last_action[player] = index
        raised: _Raise | None = None
        if kind == "raise":
            increment = to - self.current
            raised = _Raise(player, increment, increment >= self.full, index)
            self.raises.append(raised)
            self.bets_made += 1
            self.current = to
            if raised.full:
                self.full = increment
                self.acted = set()
        if kind != "fold":
            self.bets[player] = to if kind in ("raise", "call") else self.bets[player]
        self.acted.add(player)
        return raised

    def owed(self, player: int) -> int:
        return self.current - self.bets[player]

    def reopened_for(self, player: int) -> bool:
        """May ``player`` raise by the reopening rule? Yes unless they acted since the last full
        bet or raise and what was raised since (short all-ins only) adds up to less than a full
        raise."""
        return player not in self.acted or self.owed(player) >= self.full

    def raises_since(self, player: int) -> list[_Raise]:
        last = self.last_action.get(player, -1)
        return [r for r in self.raises if r.index > last]

    def counted_full_by_pokerkit_since(self, player: int) -> bool:
        """Was a short all-in since ``player`` acted a full raise for PokerKit? It starts each
        round's raise size at 0 (the blinds are not raises) and counts a raise as full when it
        is at least every raise before it in the round."""
        for r in self.raises_since(player):
            before = [q.increment for q in self.raises if q.index < r.index]
            if not r.full and r.increment >= max(before, default=0):
                return True
        return False

    def bounds(self, player: int, stack: int, pot: int) -> tuple[int, int]:
        """Raise-to bounds by RULES.md: at least a full raise (or all-in for less), at most the
        whole stack (no-limit), the one fixed amount (fixed-limit), or the bet to call plus the
        pot after calling it (pot-limit); ``pot`` counts every chip put in so far, bets too."""
        all_in = self.bets[player] + stack
        min_to = min(all_in, self.current + self.full)
        if self.structure is BettingStructure.NO_LIMIT:
            return min_to, all_in
        if self.structure is BettingStructure.FIXED_LIMIT:
            return min_to, min_to
        pot_after_call = pot + self.owed(player)
        return min_to, min(all_in, max(min_to, self.current + pot_after_call))


@dataclass
class _Options:
    can_fold: bool
    can_check: bool
    can_call: bool
    call_amount: int
    can_raise: bool
    min_to: int
    max_to: int


class _Duel:
    def __init__(
        self, seed: int, variant: Variant, structure: BettingStructure, n: int, verbose: bool
    ) -> None:
        _HAND_CACHE.clear()
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
        self.evaluator = _MemoEvaluator()
        self.ours: HandState = new_hand(self.config, self.stacks)
        self.events: list[Event] = []
        self.theirs = pokerkit_state(self.config, self.stacks)
        self.folded = [False] * n
        self.round = BettingRound.open(self.config, 0)
        # A per-hand playing style, so some hands are passive (to showdown), others wild.
        self.raise_rate = self.rng.choice((0.1, 0.25, 0.4, 0.6))
        self.fold_rate = self.rng.choice((0.03, 0.1, 0.25))

    # ----------------------------------------------------------------- helpers

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

    # ----------------------------------------------------------------- the hand

    def play(self) -> HandResult:
        n = self.config.player_count
        count = self.config.variant.hole_card_count
        for p in range(n):
            cards = tuple(self.deck.pop() for _ in range(count))
            self.note(f"d dh p{p + 1} {format_cards(cards)}")
            self.pk_do("hole cards", self.theirs.deal_hole, [PK_CARDS[c] for c in cards], p)
            self.apply(DealHoleCards(p, cards))
        guard = 0
        while True:
            guard += 1
            if guard > 500:
                raise self.fail("the hand does not end")
            self._pk_showdown()
            phase = self.ours.phase
            if phase is Phase.BETTING:
                self._decision()
            elif phase is Phase.DEALING_BOARD:
                self._deal_board()
            elif phase is Phase.SHOWDOWN:
                turn = showdown_turn(self.ours)
                if turn is None:
                    raise self.fail("showdown without a player to show")
                self.note(f"p{turn.player + 1} shows")
                self.apply(Show(turn.player))
            elif phase is Phase.COMPLETE:
                break
            else:
                raise self.fail(f"unexpected phase {phase}")
        self._finish()
        return self.result

    def _pk_showdown(self) -> None:
        """PokerKit shows in its showdown (all-in runouts too): here everybody shows, as we do."""
        while self.theirs.showdown_index is not None:
            self.pk_do("showing", self.theirs.show_or_muck_hole_cards, True)

    def _deal_board(self) -> None:
        street = self.ours.street + 1
        size = 3 if street == 1 else 1
        if not self.theirs.can_burn_card():
            raise self.fail(f"we deal street {street}; PokerKit does not wait for a card")
        burn = self.deck.pop()
        cards = tuple(self.deck.pop() for _ in range(size))
        self.note(f"d db {format_cards(cards)} (burn {Card(burn)})")
        self.pk_do("burn", self.theirs.burn_card, PK_CARDS[burn])
        self.pk_do("board", self.theirs.deal_board, [PK_CARDS[c] for c in cards])
        self.apply(DealBoard(cards, burn))
        self.round = BettingRound.open(self.config, street)
        self.result.street_reached = street

    # ----------------------------------------------------------------- decisions

    def _our_denial(self, p: int) -> str:
        s = self.ours
        try:
            step(s, BetOrRaise(p, s.stacks[p] + s.bets[p]))
        except IllegalAction as exc:
            return exc.code
        return ""

    def _pk_denial(self) -> str:
        try:
            self.theirs.verify_completion_betting_or_raising_to()
        except ValueError as exc:
            return str(exc)
        return ""

    def _decision(self) -> None:
        s = self.ours
        t = self.theirs
        ours = legal_actions(s)
        if ours is None:
            raise self.fail("betting phase without legal actions")
        p = ours.player
        if t.actor_index != p:
            raise self.fail(f"actor: ours p{p + 1}, PokerKit {t.actor_index}")
        if list(t.stacks) != s.stacks or list(t.bets) != s.bets:
            raise self.fail(
                f"before p{p + 1} acts: stacks ours {s.stacks} PokerKit {list(t.stacks)}; "
                f"bets ours {s.bets} PokerKit {list(t.bets)}"
            )
        self.result.decisions += 1
        theirs = self._pk_options()
        options = self._agree(p, ours, theirs)
        if self.rng.random() < BOUNDS_CHECK_RATE:
            self._check_bounds_rejected(p, options)
        self._act(p, options)

    def _pk_options(self) -> _Options:
        t = self.theirs
        amount = t.checking_or_calling_amount
        min_to = t.min_completion_betting_or_raising_to_amount
        max_to = t.max_completion_betting_or_raising_to_amount if min_to is not None else None
        return _Options(
            can_fold=t.can_fold(),
            can_check=amount == 0,
            can_call=amount is not None and amount > 0,
            call_amount=amount or 0,
            can_raise=min_to is not None,
            min_to=min_to or 0,
            max_to=max_to or 0,
        )

    def _reference_bounds(self, p: int) -> tuple[int, int]:
        """RULES.md's raise-to bounds for ``p`` now, from the round's actions and PokerKit's
        chip counts (equal to ours: checked before every decision)."""
        t = self.theirs
        pot = sum(self.stacks) - sum(t.stacks)
        return self.round.bounds(p, t.stacks[p], pot)

    def _check_rules(self, p: int, mine: _Options) -> None:
        """Our engine against RULES.md, computed from the action history alone: a raise it
        offers must be allowed by the reopening rule and have exactly the reference bounds; a
        raise it refuses for the reopening rule or the fixed-limit cap must be refused by them."""
        ref = self.round
        if mine.can_raise:
            if not ref.reopened_for(p):
                raise self.fail(
                    f"ours lets p{p + 1} raise, but only short all-ins ({ref.owed(p)} in all, "
                    f"a full raise is {ref.full}) followed their action"
                )
            expected = self._reference_bounds(p)
            if (mine.min_to, mine.max_to) != expected:
                raise self.fail(
                    f"ours lets p{p + 1} raise to {mine.min_to}..{mine.max_to}; the rules say "
                    f"{expected[0]}..{expected[1]}"
                )
            return
        code = self._our_denial(p)
        if code == "ACTION_NOT_REOPENED" and ref.reopened_for(p):
            raise self.fail(f"ours refuses p{p + 1} a raise as not reopened, but it is reopened")
        if code == "CAP_REACHED" and not (
            self.config.structure is BettingStructure.FIXED_LIMIT
            and ref.bets_made >= FIXED_LIMIT_BETS
        ):
            raise self.fail(f"ours says the cap is reached after {ref.bets_made} bets")

    def _agree(self, p: int, ours: LegalActions, theirs: _Options) -> _Options:
        """Compare, translating only the documented divergences; returns what both allow.

        A translation fires only when the rule it stands for, computed from the action history
        (``BettingRound``), explains both sides exactly: our refusal (or permission) is what
        RULES.md says, and PokerKit's answer is what its documented behaviour gives.
        """
        mine = _Options(
            ours.can_fold,
            ours.can_check,
            ours.can_call,
            ours.call_amount,
            ours.can_raise,
            ours.min_to,
            ours.max_to,
        )
        self._check_rules(p, mine)
        ref = self.round
        street = ref.street
        can_raise = mine.can_raise
        if mine.can_raise != theirs.can_raise:
            # acted since the last full raise and faces only short all-ins since (RULES.md)
            not_reopened = not ref.reopened_for(p)
            if theirs.can_raise:  # PokerKit allows a raise we refuse
                code = self._our_denial(p)
                if (
                    code == "CAP_REACHED"
                    and street == 0
                    and self.config.structure is BettingStructure.FIXED_LIMIT
                    and ref.bets_made == FIXED_LIMIT_BETS  # the big blind and three raises
                    and self.theirs.completion_betting_or_raising_count == FIXED_LIMIT_BETS - 1
                ):
                    self.translate("cap_preflop")
                elif (
                    code == "ACTION_NOT_REOPENED"
                    and not_reopened
                    and ref.counted_full_by_pokerkit_since(p)
                    and street == 0
                ):
                    self.translate("short_all_in_preflop")
                elif (
                    code == "ACTION_NOT_REOPENED"
                    and not_reopened
                    and ref.counted_full_by_pokerkit_since(p)
                    and ref.opened_short
                ):
                    self.translate("short_all_in_bet")
                else:
                    raise self.fail(
                        f"p{p + 1} may raise in PokerKit (to {theirs.min_to}..{theirs.max_to}) "
                        f"but not in ours ({code}); ours={mine} PokerKit={theirs}"
                    )
            else:  # we allow a raise PokerKit refuses
                reason = self._pk_denial()
                short_since = [r for r in ref.raises_since(p) if not r.full]
                if (
                    reason.startswith(PK_ACTED_MESSAGE)
                    and p in ref.acted  # no full raise since p acted ...
                    and ref.owed(p) >= ref.full  # ... but the short all-ins add up to one
                    and len(short_since) >= 2
                ):
                    # (our bounds were compared with the rules' in _check_rules)
                    self.translate("short_all_in_sum_reset")
                else:
                    raise self.fail(
                        f"p{p + 1} may raise in ours ({mine.min_to}..{mine.max_to}) but not in "
                        f"PokerKit ({reason}); ours={mine} PokerKit={theirs}"
                    )
            can_raise = False
            mine.can_raise = theirs.can_raise = False
            mine.min_to = mine.max_to = theirs.min_to = theirs.max_to = 0
        if mine != theirs:
            raise self.fail(f"legal actions of p{p + 1} differ: ours={mine} PokerKit={theirs}")
        mine.can_raise = can_raise
        return mine

    def _check_bounds_rejected(self, p: int, options: _Options) -> None:
        if not options.can_raise:
            return
        for to in (options.min_to - 1, options.max_to + 1):
            try:
                step(self.ours, BetOrRaise(p, to))
            except PokerError:
                pass
            else:
                raise self.fail(
                    f"ours accepts p{p + 1} raising to {to} outside "
                    f"{options.min_to}..{options.max_to}"
                )
            if self.theirs.can_complete_bet_or_raise_to(to):
                raise self.fail(
                    f"PokerKit accepts p{p + 1} raising to {to} outside "
                    f"{options.min_to}..{options.max_to}"
                )

    def _choose(self, options: _Options) -> tuple[str, int]:
        rng = self.rng
        if options.can_raise and rng.random() < self.raise_rate:
            low, high = options.min_to, options.max_to
            roll = rng.random()
            if roll < 0.35:
                to = low
            elif roll < 0.65:
                to = high
            else:
                to = rng.randint(low, high)
            return "raise", to
        if options.can_check:
            return "check", 0
        if options.can_fold and rng.random() < self.fold_rate:
            return "fold", 0
        return "call", 0

    def _act(self, p: int, options: _Options) -> None:
        s = self.ours
        t = self.theirs
        kind, to = self._choose(options)
        if kind == "raise":
            all_in = to == t.stacks[p] + t.bets[p]
            raised = self.round.record(p, "raise", to)
            assert raised is not None
            if not raised.full and not all_in:
                raise self.fail(f"p{p + 1} raises to {to}, less than a full raise, not all-in")
            if all_in:
                self.result.all_in = True
            short = " (short all-in)" if not raised.full else ""
            self.note(f"p{p + 1} cbr {to}{short}")
            self.pk_do(f"raise to {to}", t.complete_bet_or_raise_to, to)
            self.apply(BetOrRaise(p, to))
        elif kind == "check":
            self.note(f"p{p + 1} cc (check)")
            self.round.record(p, "check")
            self.pk_do("check", t.check_or_call)
            self.apply(Check(p))
        elif kind == "call":
            if options.call_amount == s.stacks[p]:
                self.result.all_in = True
            self.note(f"p{p + 1} cc (call {options.call_amount})")
            self.round.record(p, "call", self.round.bets[p] + options.call_amount)
            self.pk_do("call", t.check_or_call)
            self.apply(Call(p))
        else:
            self.note(f"p{p + 1} f")
            self.round.record(p, "fold")
            self.pk_do("fold", t.fold)
            self.apply(Fold(p))
            self.folded[p] = True

    # ----------------------------------------------------------------- the end

    def _finish(self) -> None:
        t = self.theirs
        n = self.config.player_count
        if not t.can_push_chips():
            raise self.fail("our hand is over; PokerKit does not wait to push chips")
        # PokerKit leaves the last player's own uncalled bet in front of them (it is pulled back
        # with the pot); count it as returned.
        pre = [stack + bet for stack, bet in zip(t.stacks, t.bets, strict=True)]
        if any(t.bets) and sum(t.statuses) != 1:
            raise self.fail(f"PokerKit has bets {list(t.bets)} left when paying")
        pk_pots = [RefPot(pot.amount, tuple(pot.player_indices)) for pot in t.pots]
        pk_contenders = [i for i in range(n) if t.statuses[i]]
        while t.can_push_chips():
            self.pk_do("push chips", t.push_chips)
        if t.status:
            raise self.fail("PokerKit's hand is not over after paying")
        ours_final = list(self.ours.stacks)
        theirs_final = list(t.stacks)
        self.result.finishing_stacks = tuple(ours_final)
        self.note(f"finishing stacks: ours {ours_final} PokerKit {theirs_final}")
        if sum(ours_final) != sum(self.stacks):
            raise self.fail(f"our chips are not conserved: {sum(ours_final)} != {sum(self.stacks)}")

        live = [not f for f in self.folded]
        players = [i for i in range(n) if live[i]]
        if len(players) == 1:  # everybody else folded: they keep what they did not put in
            expected = list(pre)
            expected[players[0]] = sum(self.stacks) - (sum(pre) - pre[players[0]])
            if ours_final != expected or theirs_final != expected:
                raise self.fail(f"uncontested: expected {expected}")
            return

        contributions = [start - now for start, now in zip(self.stacks, pre, strict=True)]
        dead = [
            min(a, c) if self.config.dead_antes else 0
            for a, c in zip(self.config.antes, contributions, strict=True)
        ]
        our_pots = reference_pots(contributions, dead, live)
        awarded: dict[int, int] = {}
        eligible: dict[int, tuple[int, ...]] = {}
        for event in self.events:
            if isinstance(event, PotAwarded):
                awarded[event.pot] = awarded.get(event.pot, 0) + event.amount
                eligible[event.pot] = tuple(event.eligible)
        engine_pots = [RefPot(awarded[k], eligible[k]) for k in sorted(awarded)]
        if engine_pots != our_pots:
            raise self.fail(f"our pots {engine_pots} != reference pots {our_pots}")

        self.result.showdown = True
        hands = evaluate_hands(self.config.variant, self.ours.hole, self.ours.board, players)

        def payout(pots: Sequence[RefPot], one_each: bool, per_pot: bool) -> list[int]:
            paid = reference_payout(
                pots,
                hands,
                odd_chips_one_each=one_each,
                low_per_pot=per_pot,
                low_contenders=pk_contenders,
                n=n,
            )
            return [a + b for a, b in zip(pre, paid, strict=True)]

        # PokerKit kills every shown hand that cannot win any part of any pot, then builds its
        # pots again without those players, merging pots whose players became the same. Rebuild
        # that from our reference pots and PokerKit's hand classes, and hold PokerKit to it.
        killed = hopeless_hands(our_pots, hands)
        merged_pots = reference_pots(
            contributions, dead, [live[i] and i not in killed for i in range(n)]
        )
        if pk_pots != merged_pots or pk_contenders != [p for p in players if p not in killed]:
            raise self.fail(
                f"PokerKit's pots {pk_pots} (contenders {pk_contenders}) are not ours {our_pots} "
                f"without the hopeless hands {sorted(killed)}: {merged_pots}"
            )

        expected_ours = payout(our_pots, True, True)
        expected_theirs = payout(pk_pots, False, False)
        if theirs_final != expected_theirs:
            raise self.fail(
                f"PokerKit paid {theirs_final}, the reference of its rules says {expected_theirs} "
                f"(pots {pk_pots})"
            )
        if ours_final != expected_ours:
            raise self.fail(
                f"we paid {ours_final}, the reference of our rules says {expected_ours} "
                f"(pots {our_pots}; PokerKit paid {theirs_final})"
            )
        if ours_final != theirs_final:
            fired = False
            if payout(our_pots, False, True) != expected_ours:
                self.translate("odd_chips")
                fired = True
            if payout(our_pots, True, False) != expected_ours:
                self.translate("hi_lo_side_pot")
                fired = True
            if merged_pots != our_pots and payout(merged_pots, True, True) != expected_ours:
                self.translate("pot_merging")
                fired = True
            if not fired:
                raise self.fail("final stacks differ for none of the documented reasons")


def play_random_hand(
    seed: int,
    variant: Variant,
    structure: BettingStructure,
    n: int,
    verbose: bool = False,
) -> HandResult:
    """Play one seeded random hand in both engines; raises AssertionError on a difference."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return _Duel(seed, variant, structure, n, verbose).play()


def main(argv: Sequence[str]) -> int:
    if len(argv) != 4:
        print(__doc__)
        return 2
    seed, variant, structure, n = argv
    result = play_random_hand(
        int(seed), Variant(variant), BettingStructure(structure), int(n), verbose=True
    )
    print(result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
