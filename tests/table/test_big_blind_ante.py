"""A big blind's ante at a tournament's table (``ReleaseHand(..., big_blind_ante=True)``,
docs/tournaments.md "The big blind's ante"): the big blind alone posts ``ante`` for the whole
table, dead into the main pot (no part of their bet); posted before the blind (docs/rules.md's
order: antes, then blinds), so a big blind who cannot cover both posts the ante whole and what is
left of the blind. Chips exact in each case."""

from __future__ import annotations

from libs.poker import DealHoleCards
from libs.poker.cards import DECK
from libs.poker.events import AntePosted, BlindPosted
from libs.poker.events import Event as PokerEvent
from libs.poker.legal import pots_of
from libs.poker.phh import dumps, hand_from_events, replay_text
from libs.poker.pots import Pot
from libs.table import TableConfig, TableState
from libs.table import commands as tc
from libs.table.codec import decode, encode
from libs.table.events import Event, HandReleased
from tests.table.table_steps import deal_hole, given, when

CONFIG = TableConfig(seats=6, small_blind=10, big_blind=20, tournament=True)
CALL, CHECK, FOLD = tc.PlayerAction.CALL, tc.PlayerAction.CHECK, tc.PlayerAction.FOLD


def _hand(*stacks: int, ante: int = 20) -> tuple[TableState, list[Event]]:
    """Seats 0.. with ``stacks``, hand 1 released with a big blind's ante and started (button
    seat 0; with three players seat 1 small blind, seat 2 big blind)."""
    state = given(*(tc.SitDown(f"p{i}", i, s) for i, s in enumerate(stacks)), config=CONFIG)
    state, events = when(state, tc.ReleaseHand(1, 10, 20, ante, 1.0, big_blind_ante=True))
    assert events == [HandReleased(1, 10, 20, ante, big_blind_ante=True)]
    assert decode(encode(events[0])) == events[0]
    state, started = when(state, tc.StartHand("h1", "c", 1.0))
    return deal_hole(state, 1.0), started


def _posted(state: TableState, events: list[Event]) -> list[tuple[str, int, int]]:
    return [
        (type(e).__name__, state.hand_seats[e.player], e.amount)
        for e in events
        if isinstance(e, (AntePosted, BlindPosted))
    ]


def test_the_big_blind_alone_posts_the_tables_ante_dead() -> None:
    state, started = _hand(1000, 1000, 1000)
    assert _posted(state, started) == [
        ("AntePosted", 2, 20),
        ("BlindPosted", 1, 10),
        ("BlindPosted", 2, 20),
    ]
    assert state.hand is not None and state.hand.config.dead_antes
    state, _ = when(state, tc.Act("p0", CALL, now=2.0))
    state, _ = when(state, tc.Act("p1", CALL, now=2.0))
    # the big blind's ante is no part of their bet: the call of 20 closes the round, and the
    # big blind still has the option (checks)
    state, _ = when(state, tc.Act("p2", CHECK, now=2.0))
    assert state.hand is not None
    assert pots_of(state.hand) == [Pot(80, (0, 1, 2))]
    assert state.total_chips() == 3000


def test_everyone_folding_to_the_big_blind_gives_them_the_ante_back_and_the_small_blind() -> None:
    state, _ = _hand(1000, 1000, 1000)
    state, _ = when(state, tc.Act("p0", FOLD, now=2.0))
    state, _ = when(state, tc.Act("p1", FOLD, now=2.0))
    assert [state.seats[n].stack for n in range(3)] == [1000, 990, 1010]


def test_a_short_big_blind_posts_the_ante_first_and_is_all_in_for_the_rest() -> None:
    state, started = _hand(1000, 1000, 30)
    assert _posted(state, started)[0] == ("AntePosted", 2, 20)
    assert ("BlindPosted", 2, 10) in _posted(state, started)  # 10 of the blind's 20
    state, _ = when(state, tc.Act("p0", CALL, now=2.0))
    state, _ = when(state, tc.Act("p1", CALL, now=2.0))
    assert state.hand is not None
    # the dead ante is whole in the main pot the big blind can win: 20 + 3 x 10; the rest of
    # the two calls is a side pot without them
    assert pots_of(state.hand) == [Pot(50, (0, 1, 2)), Pot(20, (0, 2))]  # positions: SB, BB, BTN
    assert state.total_chips() == 2030


def test_heads_up_the_big_blind_is_the_player_off_the_button() -> None:
    state, started = _hand(500, 500, ante=10)
    assert _posted(state, started) == [
        ("AntePosted", 1, 10),
        ("BlindPosted", 1, 20),
        ("BlindPosted", 0, 10),
    ]


def test_the_phh_export_carries_the_big_blinds_ante_and_replays_to_the_same_stacks() -> None:
    state = given(*(tc.SitDown(f"p{i}", i, 1000) for i in range(3)), config=CONFIG)
    state, _ = when(state, tc.ReleaseHand(1, 10, 20, 20, 1.0, big_blind_ante=True))
    commands: list[tc.TableCommand] = [tc.StartHand("h1", "c", 1.0)]
    commands += [tc.Deal((DealHoleCards(p, (DECK[2 * p], DECK[2 * p + 1])),)) for p in range(3)]
    commands += [tc.Act("p0", CALL), tc.Act("p1", FOLD), tc.Act("p2", tc.PlayerAction.RAISE, 60)]
    commands += [tc.Act("p0", FOLD)]
    played: list[Event] = []
    for command in commands:
        state, events = when(state, command)
        played += events
    hand = [e for e in played if isinstance(e, PokerEvent)]
    text = dumps(hand_from_events(hand))
    # positions from the small blind: the big blind (seat 2) is the second; dead antes are
    # PHH's "no ante trimming"
    assert "antes = [0, 20, 0]\n" in text and "ante_trimming_status = false\n" in text
    outcome = replay_text(text)
    assert outcome.status == "matched", outcome.reason
    assert [state.seats[n].stack for n in range(3)] == [980, 990, 1030]
