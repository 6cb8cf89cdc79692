"""Privacy of the table's views in every shape of showdown: after every command of a hand, each
viewer (every player at the table, a spectator, a stranger) sees exactly the hole cards it may:
its own while the hand is on, and those shown (at the showdown, or turned up for an all-in
runout), nobody else's: not a folded hand, not a mucked one, not an all-in hand before it is
shown, never after the hand. What may be seen is worked out from the hand's events, not from the
view's own logic.

The shapes: heads-up (show/show, show/muck), three and four ways with folds, every show/muck
order the table allows (a muck between and after shows, the river bettor first; only a hand a
shown hand beats is asked, so no muck comes before the first show, and a hand that could still
win, or any Omaha hi-lo hand, is shown by the table), all-in runouts (heads-up and three ways) and
an all-in hand the others play on past, split pots, and Omaha hi-lo."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from libs.poker import DealBoard, DealHoleCards, IllegalAction, Phase, legal_actions
from libs.poker.cards import Card, parse_cards
from libs.poker.config import BettingStructure, Variant
from libs.poker.events import HandMucked, HandShown, HoleCardsDealt
from libs.table import TableConfig, TableState, step_table
from libs.table import commands as tc
from libs.table.commands import PlayerAction
from libs.table.events import Event, HandBegan
from services.table.views import player_view

NOW = 1.0
#: Seat -> the hole cards one viewer sees there, as (rank 2..14, suit 1..4), sorted.
Visible = dict[int, list[tuple[int, int]]]


@dataclass(frozen=True)
class Shape:
    """A hand with stacked cards and a script: seats ``holes`` (seat -> cards), the board
    (flop, turn, river), seats that fold at their first turn, seats that go all in at their
    first turn, a seat that bets the river (it shows first), who mucks when asked, and the
    showdown's moves expected, in order (``("show" | "muck", seat)``)."""

    name: str
    holes: dict[int, str]
    board: tuple[str, str, str]
    expected: tuple[tuple[str, int], ...]
    folds: frozenset[int] = frozenset()
    shoves: frozenset[int] = frozenset()
    river_bettor: int | None = None
    mucks: frozenset[int] = frozenset()
    stacks: dict[int, int] = field(default_factory=dict)
    variant: Variant = Variant.HOLDEM
    structure: BettingStructure = BettingStructure.NO_LIMIT


SHAPES = [
    Shape("heads-up, both show", {0: "AsAh", 1: "KdKc"}, ("2c7d9h", "Js", "3d"),
          expected=(("show", 1), ("show", 0))),
    Shape("heads-up, the loser mucks", {0: "7c2d", 1: "AsAh"}, ("AdAcKs", "9h", "4c"),
          river_bettor=1, mucks=frozenset({0}), expected=(("show", 1), ("muck", 0))),
    Shape("three ways, a muck between two shows", {0: "AsAh", 1: "7c2d", 2: "KdKc"},
          ("AdQcJs", "9h", "4c"), river_bettor=0, mucks=frozenset({1}),
          expected=(("show", 0), ("muck", 1), ("show", 2))),
    Shape("three ways, two mucks after the first show", {0: "7c2d", 1: "AsAh", 2: "8c3d"},
          ("AdQcJs", "9h", "4c"), river_bettor=1, mucks=frozenset({0, 2}),
          expected=(("show", 1), ("muck", 2), ("muck", 0))),
    Shape("three ways, the river bettor (not first left of the button) shows first, then a muck",
          {0: "KdKc", 1: "AsAh", 2: "7c2d"}, ("AdQcJs", "9h", "4c"), river_bettor=1,
          mucks=frozenset({2}), expected=(("show", 1), ("muck", 2), ("show", 0))),
    Shape("four ways, one folds, a muck before the last show",
          {0: "AsAh", 1: "QdQh", 2: "7c2d", 3: "KdKc"}, ("AdJcTs", "9h", "4c"),
          folds=frozenset({1}), river_bettor=3, mucks=frozenset({2}),
          expected=(("show", 3), ("show", 0), ("muck", 2))),
    Shape("heads-up all in: both turned up for the runout", {0: "AsAh", 1: "KdKc"},
          ("2c7d9h", "Js", "3d"), shoves=frozenset({0, 1}), expected=(("show", 0), ("show", 1))),
    Shape("three ways, two all in: everybody turned up for the runout",
          {0: "AsAh", 1: "KdKc", 2: "QdQc"}, ("2c7d9h", "Js", "3d"),
          shoves=frozenset({0, 1, 2}), stacks={0: 40, 1: 60},
          expected=(("show", 1), ("show", 2), ("show", 0))),
    Shape("three ways, a short all-in hidden while the others bet on, then mucked",
          {0: "7c2d", 1: "AsAh", 2: "KdKc"}, ("AdQcJs", "9h", "4c"),
          shoves=frozenset({0}), stacks={0: 10}, river_bettor=2, mucks=frozenset({0}),
          expected=(("show", 2), ("muck", 0), ("show", 1))),
    Shape("three ways, a split pot: one mucks, two share", {0: "9c2h", 1: "2d3c", 2: "9h4d"},
          ("5c6d7h", "8s", "Kc"), river_bettor=0, mucks=frozenset({1}),
          expected=(("show", 0), ("muck", 1), ("show", 2))),
    Shape("omaha hi-lo, high and low shown, a hand beaten both ways shown by the table",
          {0: "AsKsQdJd", 1: "7c7d8c8d", 2: "2h3h9s9h"}, ("AdKc4s", "5d", "Th"),
          river_bettor=0, mucks=frozenset({1}), variant=Variant.OMAHA_HI_LO,
          structure=BettingStructure.POT_LIMIT,
          expected=(("show", 0), ("show", 1), ("show", 2))),
]  # fmt: skip


def player(seat: int) -> str:
    return f"p{seat}"


def _face_up(cards: tuple[Card, ...]) -> list[tuple[int, int]]:
    """Cards as the wire gives them (rank 2..14, suit 1..4), in a canonical order."""
    return sorted((card.rank + 2, card.suit + 1) for card in cards)


class Hand:
    """Plays one shape's hand command by command; ``states()`` yields the table after each."""

    def __init__(self, shape: Shape) -> None:
        self.shape = shape
        self.state = TableState()
        self.events: list[Event] = []
        self.acted: set[int] = set()
        self.streets = iter(shape.board)

    def run(self, command: tc.TableCommand) -> None:
        self.state, new = step_table(self.state, command)
        self.events.extend(new)

    def states(self) -> Iterator[TableState]:
        shape = self.shape
        config = TableConfig(
            variant=shape.variant,
            structure=shape.structure,
            seats=6,
            small_blind=1,
            big_blind=2,
            min_buy_in=10,
        )
        self.run(tc.OpenTable("t", config, 0.0))
        for seat in sorted(shape.holes):
            stack = shape.stacks.get(seat, 100)
            self.run(tc.SitDown(player(seat), seat, stack, post_entry_bet=True, now=0.0))
        self.run(tc.StartHand("h1", "commitment", NOW))
        yield self.state
        assert self.state.hand is not None
        deals = tuple(
            DealHoleCards(position, parse_cards(shape.holes[seat]))
            for position, seat in enumerate(self.state.hand_seats)
        )
        self.run(tc.Deal(deals, NOW))
        yield self.state
        while self.state.hand_in_progress:
            self.run(self._next())
            yield self.state

    def _next(self) -> tc.TableCommand:
        state, shape = self.state, self.shape
        hand = state.hand
        assert hand is not None
        if hand.phase is Phase.DEALING_BOARD:
            return tc.Deal((DealBoard(parse_cards(next(self.streets))),), NOW)
        seat = state.acting_seat()
        assert seat is not None, f"{shape.name}: nobody to act in {hand.phase}"
        if hand.phase is Phase.SHOWDOWN:
            show = seat not in shape.mucks or not self._may_muck(seat)
            return tc.ShowOrMuck(player(seat), show, NOW)
        options = legal_actions(hand)
        assert options is not None
        first = seat not in self.acted
        self.acted.add(seat)
        if first and seat in shape.folds:
            return tc.Act(player(seat), PlayerAction.FOLD, now=NOW)
        if first and seat in shape.shoves:
            if options.can_raise:
                return tc.Act(player(seat), PlayerAction.RAISE, options.max_to, now=NOW)
            return tc.Act(player(seat), PlayerAction.CALL, now=NOW)
        if seat == shape.river_bettor and len(hand.board) == 5 and options.can_check:
            return tc.Act(player(seat), PlayerAction.BET, options.min_to, now=NOW)
        if options.can_check:
            return tc.Act(player(seat), PlayerAction.CHECK, now=NOW)
        return tc.Act(player(seat), PlayerAction.CALL, now=NOW)

    def _may_muck(self, seat: int) -> bool:
        try:
            step_table(self.state, tc.ShowOrMuck(player(seat), False, NOW))
        except IllegalAction:
            return False  # the last player in a pot shows to win it
        return True


def may_see(state: TableState, events: list[Event], viewer: str | None) -> Visible:
    """Seat -> the cards ``viewer`` may see there, from the events of the hand in play: the
    viewer's own, and those shown; nothing once the hand is over."""
    if not state.hand_in_progress:
        return {}
    begun = max(i for i, e in enumerate(events) if isinstance(e, HandBegan))
    hand_events = events[begun:]
    seats = next(e for e in hand_events if isinstance(e, HandBegan)).seats
    dealt = {seats[e.player]: e.cards for e in hand_events if isinstance(e, HoleCardsDealt)}
    shown = {seats[e.player]: e.cards for e in hand_events if isinstance(e, HandShown)}
    visible = {seat: _face_up(cards) for seat, cards in shown.items()}
    mine = [seat for seat in dealt if player(seat) == viewer]
    for seat in mine:
        visible.setdefault(seat, _face_up(dealt[seat]))
    return visible


def seen(state: TableState, viewer: str | None) -> Visible:
    view = player_view("t", state, 1, viewer)
    return {
        s.seat: sorted((c.rank, c.suit) for c in s.hole_cards) for s in view.seats if s.hole_cards
    }


def moves(events: list[Event], seats: tuple[int, ...]) -> tuple[tuple[str, int], ...]:
    return tuple(
        ("show", seats[e.player]) if isinstance(e, HandShown) else ("muck", seats[e.player])
        for e in events
        if isinstance(e, HandShown | HandMucked)
    )


@pytest.mark.parametrize("shape", SHAPES, ids=[shape.name for shape in SHAPES])
def test_each_viewer_sees_exactly_its_own_cards_and_the_cards_shown(shape: Shape) -> None:
    hand = Hand(shape)
    viewers: list[str | None] = [*(player(seat) for seat in shape.holes), None, "stranger"]
    checked = 0
    for state in hand.states():
        for viewer in viewers:
            assert seen(state, viewer) == may_see(state, hand.events, viewer), (
                f"{shape.name}: {viewer or 'a spectator'} after "
                f"{type(hand.events[-1]).__name__ if hand.events else 'nothing'}"
            )
        checked += 1
    assert hand.state.hand is not None
    assert moves(hand.events, hand.state.hand_seats) == shape.expected  # the shape was played
    assert hand.state.total_chips() == sum(shape.stacks.get(s, 100) for s in shape.holes)
    assert checked > 6


def test_a_mucked_hand_stays_hidden_while_a_three_way_showdown_goes_on() -> None:
    """The state the random games never reached: one hand shown, one mucked, the third still to
    decide. Only the mucker itself sees its cards."""
    shape = SHAPES[2]
    hand = Hand(shape)
    for state in hand.states():
        if state.hand_in_progress and any(isinstance(e, HandMucked) for e in hand.events):
            break
    else:
        raise AssertionError("the showdown never stood between a muck and the last decision")
    mucker = 1
    assert state.acting_seat() == 2
    for viewer in (player(0), player(2), None, "stranger"):
        assert mucker not in seen(state, viewer)
    assert mucker in seen(state, player(mucker))
