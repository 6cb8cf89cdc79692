"""The hand decider: ``start_hand`` posts forced bets, ``decide`` validates a command and returns
the events it causes, each command by its own rule (dealing, betting, showing or mucking), then
the automatic ones that follow (``automatic.advance``: uncalled bets, round ends, runout reveals,
pot awards). What the player to act may do is ``legal.legal_actions``, by the same rules.

Illegal commands raise a ``PokerError`` and change nothing: ``decide`` works on a private copy.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import errors as E
from . import runs
from .automatic import Emit, advance
from .cards import Card
from .commands import (
    AllIn,
    AnswerRunIt,
    BetOrRaise,
    Call,
    Check,
    Command,
    DealBoard,
    DealHands,
    DealHoleCards,
    DealRun,
    Fold,
    Muck,
    Show,
    VoidHand,
)
from .config import HandConfig
from .evaluation import DEFAULT_EVALUATOR, HandEvaluator
from .events import (
    ActionKind,
    ActionTaken,
    AntePosted,
    BlindPosted,
    DeadBlindPosted,
    Event,
    HandMucked,
    HandShown,
    HandStarted,
    HandVoided,
    HoleCardsDealt,
    StreetDealt,
)
from .evolve import APPLIERS, apply, apply_action
from .legal import LegalActions, can_muck, raise_bounds, raise_denial
from .state import HandState, Phase, initial_state

BOARD_SIZES = {1: 3, 2: 1, 3: 1}


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
    elif kind is AnswerRunIt:
        runs.decide_answer(s, command, emit)  # type: ignore[arg-type]
    elif kind is DealRun:
        runs.decide_run(s, command, emit, _check_new_cards)  # type: ignore[arg-type]
    elif kind is Show or kind is Muck:
        _decide_showdown(s, command, emit)  # type: ignore[arg-type]
    else:
        raise E.InvalidCommand("UNKNOWN_COMMAND", f"unknown command {command!r}")
    advance(s, emit, evaluator)
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


def _decide_hole(s: HandState, command: DealHoleCards, emit: Emit) -> None:
    _check_hole(s, command.player, command.cards)
    _check_new_cards(s, command.cards)
    emit(HoleCardsDealt(command.player, tuple(command.cards)))


def _decide_hands(s: HandState, command: DealHands, emit: Emit) -> None:
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


def _decide_board(s: HandState, command: DealBoard, emit: Emit) -> None:
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
            denial = raise_denial(s, p)
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
            min_to, max_to = raise_bounds(s, p)
        if to < min_to:
            raise E.IllegalAction(E.BELOW_MINIMUM, f"the minimum is {min_to}, not {to}")
        if to > max_to:
            raise E.IllegalAction(E.ABOVE_MAXIMUM, f"the maximum is {max_to}, not {to}")
        action = ActionKind.BET if s.current_bet == 0 else ActionKind.RAISE
        amount = to - bet
        return ActionTaken(p, action, amount, to, amount == stack)


def _decide_showdown(s: HandState, command: Show | Muck, emit: Emit) -> None:
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
        if not can_muck(s, p):
            raise E.IllegalAction(E.CANNOT_MUCK, "you are the last player in a pot: show to win it")
        emit(HandMucked(p))


def _check_shown_cards(s: HandState, p: int, cards: Sequence[Card] | None) -> None:
    if cards is not None and sorted(cards) != sorted(s.hole[p]):
        raise E.InvalidCommand(E.WRONG_CARDS_SHOWN, "only the cards dealt to you can be shown")
