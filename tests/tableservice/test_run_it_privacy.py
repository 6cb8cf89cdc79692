"""Privacy of run-it-twice and rabbit-hunt cards: after every command, every viewer (each player, a
spectator, a stranger) sees only cards that are public by then (the boards dealt, each further
run once its ``RunDealt`` is in, the rabbit once hunted, the hands shown) plus its own hole cards;
and the public projection of every event carries no burn card of any run. What is public is
worked out from the events, not from the views' own logic."""

from __future__ import annotations

from libs.poker.events import HandShown, HoleCardsDealt, RunDealt, StreetDealt
from libs.table import TableConfig
from libs.table import commands as tc
from libs.table.events import Event, RabbitHunted
from libs.table.extras import rabbit_positions
from libs.tableproto.envelope import public_event
from services.table.views import player_view
from tests.table.seeded_table import DECK_OF_SEED
from tests.table.test_table_extras import Table

VIEWERS = ("ann", "bob", "cat", None, "stranger")
CONFIG = TableConfig(seats=3, run_it_max=3, rabbit_hunt=True)


def _seen(table: Table, viewer: str | None) -> set[int]:
    view = player_view("t", table.state, 1, viewer)
    cards = [*view.board, *view.rabbit.cards]
    for run in view.run_boards:
        cards.extend(run.cards)
    for seat in view.seats:
        cards.extend(seat.hole_cards)
    return {(c.rank - 2) * 4 + (c.suit - 1) for c in cards}


def _allowed(events: list[Event], viewer: str | None, table: Table) -> set[int]:
    public: set[int] = set()
    mine: set[int] = set()
    position = None
    if viewer is not None and table.state.seat_of(viewer) is not None:
        position = table.state.position_of(table.state.seat_of(viewer) or 0)
    for event in events:
        if isinstance(event, (StreetDealt, RunDealt, RabbitHunted, HandShown)):
            public.update(int(c) for c in event.cards)
        elif isinstance(event, HoleCardsDealt) and event.player == position:
            mine.update(int(c) for c in event.cards)
    return public | (mine if table.state.hand_in_progress else set())


class Watched(Table):
    """A table whose every command is followed by every viewer's view being checked."""

    def run(self, command: tc.TableCommand) -> list[Event]:
        new = super().run(command)
        for viewer in VIEWERS:
            seen = _seen(self, viewer)
            allowed = _allowed(self.events, viewer, self)
            assert seen <= allowed, (viewer, type(command).__name__, seen - allowed)
        for event in new:
            shown = public_event(event)
            if isinstance(shown, RunDealt):
                assert shown.burns == ()
            if isinstance(shown, StreetDealt):
                assert shown.burn is None
        return new


def test_further_runs_are_seen_only_once_dealt() -> None:
    t = Watched(CONFIG, "ann", "bob", "cat")
    t.start()
    first = t.acting()
    t.run(tc.Act(first, tc.PlayerAction.ALL_IN, now=1.0))
    t.run(tc.Act(t.acting(), tc.PlayerAction.ALL_IN, now=1.0))
    t.run(tc.Act(t.acting(), tc.PlayerAction.ALL_IN, now=1.0))
    for player in ("ann", "bob", "cat"):
        view = player_view("t", t.state, 1, player)
        assert not view.run_boards  # asked, nothing dealt: no run seen
    for player in ("ann", "bob", "cat"):
        t.run(tc.AnswerRunIt(player, 3, 2.0))
    t.automatic(2.0)
    runs = [e for e in t.events if isinstance(e, RunDealt)]
    assert [r.run for r in runs] == [2, 3]
    assert not t.state.hand_in_progress


def test_the_rabbit_is_seen_by_nobody_before_it_is_hunted() -> None:
    t = Watched(CONFIG, "ann", "bob", "cat")
    t.start()
    t.run(tc.Act(t.acting(), tc.PlayerAction.FOLD, now=1.0))
    t.run(tc.Act(t.acting(), tc.PlayerAction.FOLD, now=1.0))
    t.automatic()
    positions = rabbit_positions(t.state, "cat")
    rabbit = {DECK_OF_SEED[i] for i in positions}
    for viewer in VIEWERS:
        assert not _seen(t, viewer) & rabbit
    from libs.poker.cards import DECK

    t.run(tc.RabbitHunt("cat", "h1", tuple(DECK[DECK_OF_SEED[i]] for i in positions), 3.0))
    for viewer in VIEWERS:  # everyone at the table and watching it sees it now
        assert rabbit <= _seen(t, viewer)
    t.run(tc.StartHand("h2", "c2", 4.0, "deck-2"))
    for viewer in VIEWERS:  # and no longer once the next hand began
        assert not _seen(t, viewer) & rabbit
