"""The hand decider: ``start_hand`` posts forced bets, ``decide`` validates a command and returns
the events it causes (including the automatic ones: uncalled bets, round ends, runout reveals, pot
awards), ``legal_actions`` says exactly what the player to act may do.

Illegal commands raise a ``PokerError`` and change nothing: ``decide`` works on a private copy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from . import errors as E
from .cards import Card
from .commands import (
    AllIn,
    BetOrRaise,
    Call,
    Check,
    Command,
    DealBoard,
    DealHands,
    DealHoleCards,
    Fold,
    Muck,
    Show,
    VoidHand,
)
from .config import BettingStructure, HandConfig, Variant
from .evaluation import DEFAULT_EVALUATOR, HandEvaluator
from .events import (
    ActionKind,
    ActionTaken,
    AntePosted,
    BettingRoundEnded,
    BlindPosted,
    DeadBlindPosted,
    Event,
    HandEnded,
    HandMucked,
    HandShown,
    HandStarted,
    HandVoided,
    HoleCardsDealt,
    PotAwarded,
    RakeTaken,
    StreetDealt,
    UncalledBetReturned,
)
from .hand_values import describe_high, describe_low
from .pots import Pot, build_pots, rake_amount, split_evenly, take_rake
from .state import APPLIERS, HandState, Phase, apply, apply_action, initial_state

_Emit = Callable[[Event], None]

FIXED_LIMIT_BETS_PER_ROUND = 4  # one bet and three raises (preflop the big blind is the bet)
BOARD_SIZES = {1: 3, 2: 1, 3: 1}


class LegalActions(NamedTuple):
    """What the player to act may do. Amounts are totals on this street (``to``).

    (A named tuple: immutable, and cheap to build on the hot path.)
    """

    player: int
    can_fold: bool
    can_check: bool
    can_call: bool
    call_amount: int  # chips a call adds (may be a short all-in call)
    can_raise: bool  # bet (``is_bet``) or raise
    is_bet: bool
    min_to: int  # 0 when raising is not allowed
    max_to: int
    stack: int
    bet: int  # what the player already has in front of them on this street


@dataclass(frozen=True, slots=True)
class ShowdownTurn:
    """The player whose turn it is to show or muck."""

    player: int
    can_muck: bool


# --------------------------------------------------------------------------- starting a hand


def start_hand(config: HandConfig, stacks: Sequence[int], hand_id: str = "") -> list[Event]:
    """Events that open a hand: ``HandStarted`` then antes, then blinds and straddle.

    Raises ``InvalidCommand`` for stacks that do not fit the table (``IllegalAction`` for a
    player without chips).
    """
    if len(stacks) != config.player_count:
        raise E.InvalidCommand(
            E.UNKNOWN_PLAYER,
            f"{len(stacks)} stacks for {config.player_count} positions",
        )
    if any(stack <= 0 for stack in stacks):
        raise E.IllegalAction(E.ABOVE_STACK, "every player dealt in needs chips")
    events: list[Event] = [HandStarted(config, tuple(stacks), hand_id)]
    remaining = list(stacks)
    for i, ante in enumerate(config.antes):
        amount = min(ante, remaining[i])
        if amount:
            remaining[i] -= amount
            events.append(AntePosted(i, amount))
    for i, dead in enumerate(config.dead_blinds):
        amount = min(dead, remaining[i])
        if amount:
            remaining[i] -= amount
            events.append(DeadBlindPosted(i, amount))
    for i, blind in enumerate(config.blinds):
        amount = min(blind, remaining[i])
        if blind:
            remaining[i] -= amount
            events.append(BlindPosted(i, amount, blind))
    return events


def new_hand(config: HandConfig, stacks: Sequence[int], hand_id: str = "") -> HandState:
    """A hand with forced bets posted, waiting for hole cards."""
    events = start_hand(config, stacks, hand_id)
    first = events[0]
    assert isinstance(first, HandStarted)
    s = initial_state(first)
    for event in events[1:]:
        apply(s, event)
    return s


# --------------------------------------------------------------------------- betting queries


def _raise_denial(s: HandState, p: int) -> tuple[str, str] | None:
    """Why ``p`` may not bet or raise now (code, message), or None if they may."""
    current = s.current_bet
    bets = s.bets
    owed = current - bets[p]
    stacks = s.stacks
    if stacks[p] <= owed:
        return E.CANNOT_RAISE, "you do not have chips beyond the call"
    config = s.config
    if config.structure is BettingStructure.FIXED_LIMIT and (
        s.raise_count >= FIXED_LIMIT_BETS_PER_ROUND
    ):
        return E.CAP_REACHED, "betting is capped (one bet and three raises): call or fold"
    if s.acted[p] and owed < max(s.increment, config.street_bet(s.street)):
        return (
            E.ACTION_NOT_REOPENED,
            "an all-in for less than a full raise does not reopen the betting: call or fold",
        )
    folded = s.folded
    for j in range(len(stacks)):
        if j != p and not folded[j] and stacks[j] + bets[j] > current:
            return None
    return E.CANNOT_RAISE, "every other player is all-in or has folded: call or fold"


def _raise_bounds(s: HandState, p: int) -> tuple[int, int]:
    all_in = s.stacks[p] + s.bets[p]
    config = s.config
    structure = config.structure
    current = s.current_bet
    street_bet = config.street_bet(s.street)
    increment = s.increment
    min_to = min(all_in, current + (increment if increment > street_bet else street_bet))
    if structure is BettingStructure.NO_LIMIT:
        return min_to, all_in
    if structure is BettingStructure.FIXED_LIMIT:
        return min_to, min_to
    pot_after_call = s.pot + sum(s.bets) + (current - s.bets[p])
    return min_to, min(all_in, max(min_to, current + pot_after_call))


def legal_actions(s: HandState) -> LegalActions | None:
    """Exactly what the player to act may do, with amount bounds; None outside betting."""
    d = s.__dict__
    cached: LegalActions | None = d.get("_legal")
    if cached is not None:
        return cached
    actors = s.actors
    if s.phase is not Phase.BETTING or not actors:
        return None
    p = actors[0]
    bet = s.bets[p]
    stack = s.stacks[p]
    current = s.current_bet
    owed = current - bet
    if _raise_denial(s, p) is None:
        min_to, max_to = _raise_bounds(s, p)
        can_raise = True
    else:
        min_to = max_to = 0
        can_raise = False
    # States are never changed once built, so the answer is kept with the state: ``step`` then
    # reuses the bounds a client just asked for instead of computing them again.
    d["_legal"] = legal = LegalActions(
        p,  # player
        owed > 0,  # can_fold
        owed <= 0,  # can_check
        owed > 0,  # can_call
        (owed if owed < stack else stack) if owed > 0 else 0,  # call_amount
        can_raise,
        current == 0,  # is_bet
        min_to,
        max_to,
        stack,
        bet,
    )
    return legal


def showdown_turn(s: HandState) -> ShowdownTurn | None:
    """Whose turn it is to show or muck, else None."""
    if s.phase is not Phase.SHOWDOWN or not s.showdown_queue:
        return None
    p = s.showdown_queue[0]
    return ShowdownTurn(p, _can_muck(s, p))


def _contenders(s: HandState) -> list[bool]:
    return [not s.folded[i] and not s.mucked[i] for i in range(len(s.stacks))]


def pots_of(s: HandState) -> list[Pot]:
    """The pots' shape: who paid how much and did not fold. Mucking does not change it (each pot
    is still awarded separately), it only takes the mucked hand out of contention."""
    folded = s.folded
    return build_pots(s.committed, s.antes, [not f for f in folded], s.config.dead_antes, s.dead)


def _can_muck(s: HandState, p: int) -> bool:
    """A player may muck unless they are the last one left in some pot (they win it unshown)."""
    return all(
        any(q != p and not s.mucked[q] for q in pot.eligible)
        for pot in pots_of(s)
        if p in pot.eligible
    )


# --------------------------------------------------------------------------- decide


def decide(
    state: HandState,
    command: Command,
    evaluator: HandEvaluator = DEFAULT_EVALUATOR,
    hand_id: str | None = None,
) -> list[Event]:
    """Validate ``command`` against ``state`` and return the events it causes."""
    return step(state, command, evaluator, hand_id)[1]


_BETTING_COMMANDS = frozenset((Fold, Check, Call, BetOrRaise, AllIn))


def step(
    state: HandState,
    command: Command,
    evaluator: HandEvaluator = DEFAULT_EVALUATOR,
    hand_id: str | None = None,
) -> tuple[HandState, list[Event]]:
    """``decide`` and ``evolve`` in one: the new state and the events. ``state`` is unchanged."""
    if hand_id is not None and hand_id != state.hand_id:
        raise E.IllegalAction(
            E.WRONG_HAND, f"command for hand {hand_id!r} but hand {state.hand_id!r} is in play"
        )
    kind = type(command)
    if kind is VoidHand:
        assert isinstance(command, VoidHand)
        if state.phase is Phase.COMPLETE:
            raise E.IllegalAction(E.HAND_OVER, "the hand is over")
        void = HandVoided(command.reason, state.starting_stacks)
        s = state.copy()
        apply(s, void)
        return s, [void]
    if state.phase is Phase.COMPLETE and kind is not Show:
        raise E.IllegalAction(E.HAND_OVER, "the hand is over")
    s = state.copy()
    events: list[Event] = []
    add = events.append

    def emit(event: Event) -> None:
        # ``apply`` without dropping a cached ``legal_actions``: ``copy`` already did, and
        # nothing asks for the legal actions of this private copy until the step is over.
        APPLIERS[type(event)](s, event)
        add(event)

    if kind in _BETTING_COMMANDS:
        action = _decide_action(s, command, state.__dict__.get("_legal"))  # type: ignore[arg-type]
        apply_action(s, action)
        add(action)
    elif kind is DealHands:
        _decide_hands(s, command, emit)  # type: ignore[arg-type]
    elif kind is DealBoard:
        _decide_board(s, command, emit)  # type: ignore[arg-type]
    elif kind is DealHoleCards:
        _decide_hole(s, command, emit)  # type: ignore[arg-type]
    elif kind is Show or kind is Muck:
        _decide_showdown(s, command, emit)  # type: ignore[arg-type]
    else:
        raise E.InvalidCommand("UNKNOWN_COMMAND", f"unknown command {command!r}")
    _advance(s, emit, evaluator)
    return s, events


def _check_player(s: HandState, player: int) -> None:
    if not 0 <= player < len(s.stacks):
        raise E.InvalidCommand(E.UNKNOWN_PLAYER, f"no player at position {player}")


def _check_new_cards(s: HandState, cards: Sequence[Card]) -> None:
    if len(set(cards)) != len(cards):
        raise E.InvalidCommand(E.DUPLICATE_CARD, "the same card twice in one deal")
    dealt = s.dealt_mask
    for card in cards:
        if not isinstance(card, int) or not 0 <= card < 52:
            raise E.InvalidCommand(E.BAD_CARDS, f"not a card: {card!r}")
        if dealt >> card & 1:
            raise E.InvalidCommand(E.DUPLICATE_CARD, f"{Card(card)} has already been dealt")


def _check_hole(s: HandState, player: int, cards: Sequence[Card]) -> None:
    """What dealing ``cards`` to ``player`` needs, except that the cards are new."""
    if s.phase is not Phase.DEALING_HOLE:
        raise E.IllegalAction(E.WRONG_PHASE, "hole cards are dealt only before the betting")
    _check_player(s, player)
    if s.hole[player]:
        raise E.IllegalAction(E.ALREADY_DEALT, f"position {player} already has cards")
    expected = s.config.variant.hole_card_count
    if len(cards) != expected:
        raise E.InvalidCommand(
            E.BAD_CARDS, f"{s.config.variant.value} deals {expected} hole cards, not {len(cards)}"
        )


def _decide_hole(s: HandState, command: DealHoleCards, emit: _Emit) -> None:
    _check_hole(s, command.player, command.cards)
    _check_new_cards(s, command.cards)
    emit(HoleCardsDealt(command.player, tuple(command.cards)))


def _decide_hands(s: HandState, command: DealHands, emit: _Emit) -> None:
    """Every player's hole cards at once: checked together, then dealt in position order."""
    holes = command.holes
    n = len(s.stacks)
    if len(holes) != n:
        raise E.InvalidCommand(E.BAD_CARDS, f"{len(holes)} hands for {n} players")
    cards: list[Card] = []
    for player, hole in enumerate(holes):
        _check_hole(s, player, hole)
        cards.extend(hole)
    _check_new_cards(s, cards)
    for player, hole in enumerate(holes):
        emit(HoleCardsDealt(player, tuple(hole)))


def _decide_board(s: HandState, command: DealBoard, emit: _Emit) -> None:
    if s.phase is not Phase.DEALING_BOARD:
        raise E.IllegalAction(E.WRONG_PHASE, "the board is dealt only between betting rounds")
    street = s.street + 1
    expected = BOARD_SIZES[street]
    if len(command.cards) != expected:
        raise E.InvalidCommand(
            E.BAD_CARDS, f"the {('flop', 'turn', 'river')[street - 1]} is {expected} card(s)"
        )
    cards = list(command.cards)
    if command.burn is not None:
        cards.append(command.burn)
    _check_new_cards(s, cards)
    emit(StreetDealt(street, tuple(command.cards), command.burn))


def _decide_action(
    s: HandState,
    command: Fold | Check | Call | BetOrRaise | AllIn,
    known: LegalActions | None = None,
) -> ActionTaken:
    """The one event a betting command causes (the caller applies it)."""
    actors = s.actors
    if s.phase is not Phase.BETTING or not actors:
        raise E.IllegalAction(E.WRONG_PHASE, "nobody is to act: the betting round is not open")
    p = command.player
    stacks = s.stacks
    if not 0 <= p < len(stacks):
        _check_player(s, p)
    if p != actors[0]:
        raise E.IllegalAction(
            E.NOT_YOUR_TURN, f"it is position {actors[0]}'s turn, not position {p}'s"
        )
    bet = s.bets[p]
    stack = stacks[p]
    owed = s.current_bet - bet
    kind = type(command)
    if kind is AllIn:
        if stack <= owed:
            kind = Call
        else:
            kind, command = BetOrRaise, BetOrRaise(p, stack + bet)
    if kind is Call:
        if owed <= 0:
            raise E.IllegalAction(E.NOTHING_TO_CALL, "nothing to call: check instead")
        amount = owed if owed < stack else stack
        return ActionTaken(p, ActionKind.CALL, amount, bet + amount, amount == stack)
    elif kind is Check:
        if owed > 0:
            raise E.IllegalAction(E.CANNOT_CHECK, f"there is a bet: call {owed} or fold")
        return ActionTaken(p, ActionKind.CHECK, 0, bet, False)
    elif kind is Fold:
        if owed <= 0:
            raise E.IllegalAction(E.CANNOT_FOLD, "nothing to call: check instead of folding")
        return ActionTaken(p, ActionKind.FOLD, 0, bet, False)
    else:
        assert isinstance(command, BetOrRaise)
        trusted = known is not None and known.player == p and known.can_raise
        if not trusted:
            denial = _raise_denial(s, p)
            if denial is not None:
                raise E.IllegalAction(*denial)
        to = command.to
        all_in = stack + bet
        if to > all_in:
            raise E.IllegalAction(E.ABOVE_STACK, f"raise to {to} is more than your {all_in} chips")
        if trusted:
            assert known is not None
            min_to, max_to = known.min_to, known.max_to
        else:
            min_to, max_to = _raise_bounds(s, p)
        if to < min_to:
            raise E.IllegalAction(E.BELOW_MINIMUM, f"the minimum is {min_to}, not {to}")
        if to > max_to:
            raise E.IllegalAction(E.ABOVE_MAXIMUM, f"the maximum is {max_to}, not {to}")
        action = ActionKind.BET if s.current_bet == 0 else ActionKind.RAISE
        amount = to - bet
        return ActionTaken(p, action, amount, to, amount == stack)


def _decide_showdown(s: HandState, command: Show | Muck, emit: _Emit) -> None:
    p = command.player
    _check_player(s, p)
    if isinstance(command, Show) and s.phase is Phase.COMPLETE:
        # A voluntary show after the hand (only the cards actually dealt to the player).
        if not s.hole[p]:
            raise E.InvalidCommand(E.WRONG_CARDS_SHOWN, "no cards to show")
        _check_shown_cards(s, p, command.cards)
        if s.shown[p] is None:
            emit(HandShown(p, s.hole[p]))
        return
    if s.phase is not Phase.SHOWDOWN or not s.showdown_queue:
        raise E.IllegalAction(E.WRONG_PHASE, "it is not the showdown")
    if p != s.showdown_queue[0]:
        raise E.IllegalAction(
            E.NOT_YOUR_TURN, f"position {s.showdown_queue[0]} shows or mucks first"
        )
    if isinstance(command, Show):
        _check_shown_cards(s, p, command.cards)
        emit(HandShown(p, s.hole[p]))
    else:
        if not _can_muck(s, p):
            raise E.IllegalAction(E.CANNOT_MUCK, "you are the last player in a pot: show to win it")
        emit(HandMucked(p))


def _check_shown_cards(s: HandState, p: int, cards: Sequence[Card] | None) -> None:
    if cards is not None and sorted(cards) != sorted(s.hole[p]):
        raise E.InvalidCommand(E.WRONG_CARDS_SHOWN, "only the cards dealt to you can be shown")


# --------------------------------------------------------------------------- automatic steps


def _advance(s: HandState, emit: _Emit, evaluator: HandEvaluator) -> None:
    """Run every step that needs no decision, until the hand waits for one (or is over)."""
    while True:
        phase = s.phase
        if phase is Phase.BETTING:
            if s.actors and s.folded.count(False) > 1:  # mucking happens only later
                return
            _close_round(s, emit)
        elif phase is Phase.DEALING_BOARD:
            if s.runout:
                hidden = [i for i in _reveal_order(s) if s.shown[i] is None]
                if hidden:
                    for i in hidden:
                        emit(HandShown(i, s.hole[i]))
            return
        elif phase is Phase.SHOWDOWN:
            if s.showdown_queue and sum(_contenders(s)) > 1:
                return
            _award(s, emit, evaluator)
        elif phase is Phase.AWARDING:
            _award(s, emit, evaluator)
        else:
            return


def _reveal_order(s: HandState) -> list[int]:
    n = len(s.stacks)
    start = s.last_aggressor if s.last_aggressor is not None else 0
    return [(start + k) % n for k in range(n) if not s.folded[(start + k) % n]]


def _close_round(s: HandState, emit: _Emit) -> None:
    bets = s.bets
    top = max(bets)
    if top:
        leader = bets.index(top)
        second = max(b for i, b in enumerate(bets) if i != leader)
        if top > second:
            emit(UncalledBetReturned(leader, top - second))
    emit(BettingRoundEnded(s.street, s.pot + sum(s.bets)))


def _award(s: HandState, emit: _Emit, evaluator: HandEvaluator) -> None:
    pots = pots_of(s)
    rake = rake_amount(sum(p.amount for p in pots), s.config.rake, s.flop_seen)
    if rake:
        emit(RakeTaken(rake))
        pots = take_rake(pots, rake)
    for index in range(len(pots) - 1, -1, -1):
        for award in _pot_awards(s, index, pots[index], evaluator):
            emit(award)
    emit(HandEnded(tuple(s.stacks)))


def _pot_awards(s: HandState, index: int, pot: Pot, evaluator: HandEvaluator) -> list[PotAwarded]:
    eligible = tuple(p for p in pot.eligible if not s.mucked[p])
    if len(eligible) == 1:
        return [PotAwarded(index, pot.amount, "whole", ((eligible[0], pot.amount),), eligible)]
    variant = s.config.variant
    board = s.board
    if variant is Variant.HOLDEM:
        highs = {p: evaluator.high(s.hole[p] + tuple(board)) for p in eligible}
    else:
        highs = {p: evaluator.omaha_high(s.hole[p], board) for p in eligible}
    best_high = max(highs.values())
    high_winners = [p for p in eligible if highs[p] == best_high]
    lows: dict[int, int] = {}
    if variant is Variant.OMAHA_HI_LO:
        for p in eligible:
            low = evaluator.omaha_low(s.hole[p], board)
            if low is not None:
                lows[p] = low
    if not lows:
        return [
            PotAwarded(
                index,
                pot.amount,
                "whole",
                tuple(split_evenly(pot.amount, high_winners)),
                eligible,
                describe_high(best_high),
            )
        ]
    best_low = min(lows.values())
    low_winners = [p for p in eligible if lows.get(p) == best_low]
    low_amount = pot.amount // 2
    high_amount = pot.amount - low_amount  # the odd chip of the split goes high
    return [
        PotAwarded(
            index,
            high_amount,
            "high",
            tuple(split_evenly(high_amount, high_winners)),
            eligible,
            describe_high(best_high),
        ),
        PotAwarded(
            index,
            low_amount,
            "low",
            tuple(split_evenly(low_amount, low_winners)),
            eligible,
            describe_low(best_low),
        ),
    ]
