"""``evolve``: how each event changes a hand. It never fails and never mutates its input: it
returns a new state.

The engine (``decide``) works on a private copy with ``apply``, the in-place form of the same
function, so the two can never disagree. On its hot path the engine calls the in-place appliers
directly: ``APPLIERS`` (one per event type) for a copy that has no cached ``legal_actions``
answer to drop, and ``apply_action`` for the one ``ActionTaken`` a betting command causes.
``replay`` rebuilds a hand from its events.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

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
    RunDealt,
    RunItAnswered,
    RunItDecided,
    RunItOffered,
    StreetDealt,
    UncalledBetReturned,
)
from .runs import BOARD_CARDS
from .state import HandState, Phase, initial_state

_V = TypeVar("_V")


def _begin_round(s: HandState) -> None:
    """Open the betting round of ``s.street``: who acts, the bet to call, the raise size."""
    stacks, bets, folded = s.stacks, s.bets, s.folded
    n = len(stacks)
    if s.street == 0:
        nominal = [
            blind if blind > 0 and not folded[i] else 0 for i, blind in enumerate(s.config.blinds)
        ]
        top = max(nominal)
        s.current_bet = max(top, max(bets))
        s.increment = top
        s.raise_count = 1 if top > 0 else 0
        # Action starts left of the largest blind (the last one, if several are equal;
        # heads-up the big blind is position 0 even when both blinds are equal).
        opener = s.config.big_blind_position
        if opener is None:
            if top <= 0:
                opener = n - 1
            elif n == 2 and nominal[0] == top:
                opener = 0
            else:
                opener = n - 1 - nominal[::-1].index(top)
        first = (opener + 1) % n
    else:
        s.current_bet = 0
        s.increment = 0
        s.raise_count = 0
        first = 0
    s.last_aggressor = None
    s.acted = [False] * n
    totals = [-1 if folded[i] else bets[i] + stacks[i] for i in range(n)]
    top_total = max(totals)
    leader = totals.index(top_total)
    second_total = max(totals[:leader] + totals[leader + 1 :], default=-1)
    actors: list[int] = []
    for k in range(n):
        i = (first + k) % n
        if folded[i] or stacks[i] == 0:
            continue
        # Someone else must be able to put in more than this player already has in.
        others_best = second_total if i == leader else top_total
        if others_best <= bets[i]:
            continue
        actors.append(i)
    if len(actors) == 1 and bets[actors[0]] >= s.current_bet:
        actors = []
    if s.street == 0 and s.config.bomb_pot:
        actors = []  # a bomb pot has no preflop betting: the round closes at once
    s.actors = actors
    s.phase = Phase.BETTING


def _showdown_order(s: HandState) -> list[int]:
    n = len(s.stacks)
    start = s.last_aggressor if s.last_aggressor is not None else 0
    return [
        (start + k) % n
        for k in range(n)
        if not s.folded[(start + k) % n] and not s.mucked[(start + k) % n]
    ]


def apply_action(s: HandState, event: ActionTaken) -> None:
    """Apply one ``ActionTaken`` to ``s`` in place (``apply`` without the type dispatch)."""
    p = event.player
    amount = event.amount
    if amount:
        s.stacks[p] -= amount
        s.bets[p] += amount
        s.committed[p] += amount
    kind = event.kind
    if kind is ActionKind.FOLD:
        s.folded[p] = True
    if kind is ActionKind.BET or kind is ActionKind.RAISE:
        raised_by = event.to - s.current_bet
        n = len(s.stacks)
        if raised_by >= max(s.increment, s.config.street_bet(s.street)):
            # a full raise reopens the betting for everyone
            s.increment = raised_by
            s.acted = [False] * n
        s.current_bet = event.to
        s.raise_count += 1
        s.last_aggressor = p
        folded, stacks = s.folded, s.stacks
        s.actors = [
            (p + k) % n for k in range(1, n) if not folded[(p + k) % n] and stacks[(p + k) % n]
        ]
    else:
        s.actors.pop(0)
    s.acted[p] = True


def _with(values: tuple[_V, ...], index: int, value: _V) -> tuple[_V, ...]:
    """``values`` with ``values[index]`` replaced (the tuple fields are never mutated)."""
    return (*values[:index], value, *values[index + 1 :])


def _on_hole(s: HandState, event: HoleCardsDealt) -> None:
    p = event.player
    s.hole = _with(s.hole, p, event.cards)
    for card in event.cards:
        s.dealt_mask |= 1 << card
    if all(s.hole):
        _begin_round(s)


def _on_round_end(s: HandState, event: BettingRoundEnded) -> None:
    s.pot += sum(s.bets)
    s.bets = [0] * len(s.bets)
    s.actors = []
    live = s.live
    if len(live) <= 1:
        s.phase = Phase.AWARDING
        return
    if sum(1 for i in live if s.stacks[i] > 0) <= 1:
        s.runout = True
    if s.street == 3:
        if len(s.run_boards) + 1 < s.runs:
            s.phase = Phase.DEALING_RUN  # the first run is out: the others follow
            return
        s.phase = Phase.SHOWDOWN
        s.showdown_queue = tuple(i for i in _showdown_order(s) if s.shown[i] is None)
    else:
        s.phase = Phase.DEALING_BOARD


def _on_street(s: HandState, event: StreetDealt) -> None:
    if event.burn is not None:
        s.burns = (*s.burns, event.burn)
        s.dealt_mask |= 1 << event.burn
    for card in event.cards:
        s.dealt_mask |= 1 << card
    s.board = s.board + event.cards
    s.street = event.street
    s.flop_seen = True
    _begin_round(s)


def _on_run_offered(s: HandState, event: RunItOffered) -> None:
    s.run_asked = event.players
    s.run_answers = (0,) * len(s.stacks)
    s.run_most = event.most
    s.run_from = s.street
    s.phase = Phase.AGREEING_RUNS


def _on_run_answered(s: HandState, event: RunItAnswered) -> None:
    s.run_answers = _with(s.run_answers, event.player, event.times)


def _on_runs_decided(s: HandState, event: RunItDecided) -> None:
    s.runs = event.runs
    s.phase = Phase.DEALING_BOARD


def _on_run_dealt(s: HandState, event: RunDealt) -> None:
    common = s.board[: BOARD_CARDS[s.run_from]]
    s.run_boards = (*s.run_boards, common + event.cards)
    s.burns = s.burns + event.burns
    for card in (*event.cards, *event.burns):
        s.dealt_mask |= 1 << card
    if len(s.run_boards) + 1 >= s.runs:
        s.phase = Phase.SHOWDOWN
        s.showdown_queue = tuple(i for i in _showdown_order(s) if s.shown[i] is None)


def _on_uncalled(s: HandState, event: UncalledBetReturned) -> None:
    p = event.player
    s.bets[p] -= event.amount
    s.committed[p] -= event.amount
    s.stacks[p] += event.amount


def _on_shown(s: HandState, event: HandShown) -> None:
    p = event.player
    s.shown = _with(s.shown, p, event.cards)
    s.showdown_queue = tuple(q for q in s.showdown_queue if q != p)


def _on_mucked(s: HandState, event: HandMucked) -> None:
    p = event.player
    s.mucked = _with(s.mucked, p, True)
    s.showdown_queue = tuple(q for q in s.showdown_queue if q != p)


def _on_ante(s: HandState, event: AntePosted) -> None:
    p = event.player
    s.stacks[p] -= event.amount
    s.committed[p] += event.amount
    s.antes = _with(s.antes, p, s.antes[p] + event.amount)
    s.pot += event.amount


def _on_dead_blind(s: HandState, event: DeadBlindPosted) -> None:
    p = event.player
    s.stacks[p] -= event.amount
    s.committed[p] += event.amount
    s.dead = _with(s.dead, p, s.dead[p] + event.amount)
    s.pot += event.amount


def _on_blind(s: HandState, event: BlindPosted) -> None:
    p = event.player
    s.stacks[p] -= event.amount
    s.bets[p] += event.amount
    s.committed[p] += event.amount


def _on_rake(s: HandState, event: RakeTaken) -> None:
    s.rake += event.amount
    s.pot -= event.amount


def _on_award(s: HandState, event: PotAwarded) -> None:
    for player, amount in event.winners:
        s.stacks[player] += amount
    s.pot -= event.amount


def _on_end(s: HandState, event: HandEnded) -> None:
    s.phase = Phase.COMPLETE
    s.actors = []
    s.showdown_queue = ()


def _on_void(s: HandState, event: HandVoided) -> None:
    s.voided = True
    s.stacks = list(event.stacks)
    s.bets = [0] * len(s.bets)
    s.pot = 0
    s.actors = []
    s.showdown_queue = ()
    s.phase = Phase.COMPLETE


def _on_start(s: HandState, event: HandStarted) -> None:
    raise ValueError("HandStarted begins a new hand; use replay() or initial_state()")


#: The in-place applier of each event type (``apply`` minus dropping the cached legal actions).
APPLIERS: Mapping[type, Callable[[HandState, Any], None]] = {
    ActionTaken: apply_action,
    HoleCardsDealt: _on_hole,
    BettingRoundEnded: _on_round_end,
    StreetDealt: _on_street,
    RunItOffered: _on_run_offered,
    RunItAnswered: _on_run_answered,
    RunItDecided: _on_runs_decided,
    RunDealt: _on_run_dealt,
    UncalledBetReturned: _on_uncalled,
    HandShown: _on_shown,
    HandMucked: _on_mucked,
    AntePosted: _on_ante,
    DeadBlindPosted: _on_dead_blind,
    BlindPosted: _on_blind,
    RakeTaken: _on_rake,
    PotAwarded: _on_award,
    HandEnded: _on_end,
    HandVoided: _on_void,
    HandStarted: _on_start,
}


def apply(s: HandState, event: Event) -> None:
    """Apply ``event`` to ``s`` in place (the engine's private copy)."""
    s.__dict__.pop("_legal", None)  # a cached legal.legal_actions answer no longer holds
    APPLIERS[type(event)](s, event)


def evolve(state: HandState, event: Event) -> HandState:
    """Return the state after ``event``; ``state`` itself is left as it was."""
    new = state.copy()
    apply(new, event)
    return new


def replay(events: Iterable[Event]) -> HandState:
    """Rebuild a hand from its events; the first must be ``HandStarted``."""
    iterator = iter(events)
    first = next(iterator, None)
    if not isinstance(first, HandStarted):
        raise ValueError("a hand's events begin with HandStarted")
    s = initial_state(first)
    for event in iterator:
        apply(s, event)
    return s
