"""What one seated player sees when it is their turn: the ``SeatView`` every bot decides from.

A view holds the seat's own hole cards, the board, the public action history of the hand (forced
bets included), every position's stack, bet and whether it folded, the pot, and the legal actions
with their amount bounds. It never holds another player's hidden cards: ``seat_view`` (the one
builder from an engine ``HandState``, used by the arena and by the table for its bot seats)
copies the hole cards of the requested position only. The public history itself
(``PublicAction``) is ``libs.poker.history``'s.

Positions are the engine's: 0 is the first seat left of the button, ``players - 1`` the button
(heads-up the button, position 1, posts the small blind and position 0 the big blind). Amounts are
whole chips; "to" amounts are a player's total bet on the current street.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from libs.poker.cards import Card
from libs.poker.config import BettingStructure, Variant
from libs.poker.history import (
    FLOP,
    PREFLOP,
    RIVER,
    TURN,
    Move,
    PublicAction,
    public_action,
    public_actions,
)
from libs.poker.legal import legal_actions, pots_of
from libs.poker.state import HandState, Phase

BOARD_SIZE_BY_STREET = (0, 3, 4, 5)


@dataclass(frozen=True, slots=True)
class Options:
    """The legal actions of the player to act, with bounds ("to" amounts, as the engine's)."""

    can_fold: bool
    can_check: bool
    can_call: bool
    call_amount: int  # chips a call adds (less than the bet when calling all-in)
    can_raise: bool  # a bet when nobody has bet this street, else a raise
    min_to: int
    max_to: int
    all_in_to: int  # the "to" amount of putting every chip in (stack + bet)


@dataclass(frozen=True, slots=True)
class Pot:
    """A pot and the positions that can win it (this street's bets included)."""

    amount: int
    eligible: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Prizes:
    """A tournament's prizes still to be won (first place first) and the chips of the players
    alive at other tables: what the independent chip model needs besides this table's stacks."""

    payouts: tuple[int, ...]
    others: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not self.payouts or any(p < 0 for p in self.payouts):
            raise ValueError(f"payouts are prizes, at least one, none negative: {self.payouts}")
        if any(a < b for a, b in pairwise(self.payouts)):
            raise ValueError(f"payouts run first place first, never rising: {self.payouts}")
        if any(s <= 0 for s in self.others):
            raise ValueError(f"other tables' stacks are players alive: above 0, {self.others}")


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything the seat to act may know. Sequences are indexed by position."""

    variant: Variant
    structure: BettingStructure
    small_blind: int
    big_blind: int  # also the minimum bet (the small bet in fixed limit)
    big_bet: int  # fixed limit: turn and river bet size; else 2 x big_blind
    me: int
    hole: tuple[Card, ...]
    board: tuple[Card, ...]
    street: int
    stacks: tuple[int, ...]  # behind, now
    bets: tuple[int, ...]  # on this street
    folded: tuple[bool, ...]
    pot: int  # every chip in the middle, this street's bets included
    actions: tuple[PublicAction, ...]
    options: Options
    pots: tuple[Pot, ...] = ()  # main pot first, then side pots (their sum is ``pot``)
    prizes: Prizes | None = None  # a tournament's (ICM); None in a cash game

    @property
    def players(self) -> int:
        return len(self.stacks)

    @property
    def button(self) -> int:
        """The button's position (the last one; heads-up it also posts the small blind)."""
        return len(self.stacks) - 1

    @property
    def to_call(self) -> int:
        return self.options.call_amount if self.options.can_call else 0

    @property
    def is_bet(self) -> bool:
        """True when a bet (not a raise) is what this street's first aggression would be."""
        return max(self.bets) == 0

    @property
    def live(self) -> tuple[int, ...]:
        """Positions still in the hand."""
        return tuple(i for i, f in enumerate(self.folded) if not f)

    @property
    def opponents(self) -> tuple[int, ...]:
        """Live positions other than ``me``."""
        return tuple(i for i in self.live if i != self.me)

    @property
    def starting_stacks(self) -> tuple[int, ...]:
        """Stacks at the start of the hand: what is behind now plus what went in."""
        put_in = [0] * self.players
        for action in self.actions:
            put_in[action.position] += action.amount
        return tuple(s + p for s, p in zip(self.stacks, put_in, strict=True))

    @property
    def effective_stack(self) -> int:
        """The most I can still win or lose from one opponent: my chips against the deepest
        live opponent's, both counted from this street's bets on."""
        mine = self.stacks[self.me] + self.bets[self.me]
        theirs = max((self.stacks[i] + self.bets[i] for i in self.opponents), default=0)
        return min(mine, theirs)

    def street_actions(self, street: int | None = None) -> tuple[PublicAction, ...]:
        wanted = self.street if street is None else street
        return tuple(a for a in self.actions if a.street == wanted and a.move.voluntary)

    @property
    def raises_this_street(self) -> int:
        """Voluntary bets and raises on this street (the blinds are not counted)."""
        return sum(1 for a in self.street_actions() if a.move.aggressive)

    def last_aggressor(self, street: int) -> int | None:
        """The last position that bet or raised on ``street``."""
        for action in reversed(self.street_actions(street)):
            if action.move.aggressive:
                return action.position
        return None

    @property
    def in_position(self) -> bool:
        """After the flop, nobody live acts after me (positions act in ascending order)."""
        return all(i < self.me for i in self.opponents)


def seat_view(
    state: HandState,
    position: int,
    actions: Sequence[PublicAction],
    prizes: Prizes | None = None,
) -> SeatView:
    """The view of ``position``, which must be the position to act, built from the engine state
    and the hand's public history (and a tournament's prizes). Only ``state.hole[position]`` is
    read of the hole cards."""
    options = legal_actions(state)
    if state.phase is not Phase.BETTING or options is None:
        raise ValueError("nobody is to act: a seat view is built for the player to act")
    if options.player != position:
        raise ValueError(f"position {options.player} is to act, not position {position}")
    config = state.config
    pots = tuple(Pot(p.amount, p.eligible) for p in pots_of(state))
    big_blind = config.min_bet
    small_blind = min((b for b in config.blinds if b > 0), default=big_blind)
    return SeatView(
        variant=config.variant,
        structure=config.structure,
        small_blind=small_blind,
        big_blind=big_blind,
        big_bet=config.big_bet,
        me=position,
        hole=tuple(state.hole[position]),
        board=tuple(state.board),
        street=state.street,
        stacks=tuple(state.stacks),
        bets=tuple(state.bets),
        folded=tuple(state.folded),
        pot=sum(p.amount for p in pots),
        actions=tuple(actions),
        pots=pots,
        prizes=prizes,
        options=Options(
            can_fold=options.can_fold,
            can_check=options.can_check,
            can_call=options.can_call,
            call_amount=options.call_amount,
            can_raise=options.can_raise,
            min_to=options.min_to,
            max_to=options.max_to,
            all_in_to=options.stack + options.bet,
        ),
    )


__all__ = [
    "BOARD_SIZE_BY_STREET",
    "FLOP",
    "PREFLOP",
    "RIVER",
    "TURN",
    "Move",
    "Options",
    "Pot",
    "Prizes",
    "PublicAction",
    "SeatView",
    "public_action",
    "public_actions",
    "seat_view",
]
