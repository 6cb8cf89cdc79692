"""Hands played to a script through the table aggregate, for the statistics tests: each
decision is the next word of the script (``f`` fold, ``x`` check, ``c`` call, ``r40`` raise or
bet to 40, ``a`` all in); at the showdown everyone shows unless named in ``muck``. The deck is
dealt in order from ``deck`` (default: a fixed shuffle), so a hand is the same every run."""

from __future__ import annotations

import random
from collections.abc import Sequence

from libs.history import PlayedHand, played_hands
from libs.poker import DealBoard, DealHoleCards, Phase, legal_actions
from libs.poker.cards import DECK, Card
from libs.table import TableConfig, TableState, step_table
from libs.table import commands as tc
from libs.table.commands import PlayerAction
from libs.table.events import Event

Commits = list[tuple[int, float, list[Event]]]
WORDS = {
    "f": PlayerAction.FOLD,
    "x": PlayerAction.CHECK,
    "c": PlayerAction.CALL,
    "a": PlayerAction.ALL_IN,
}


def play_script(
    hands: Sequence[str],
    *,
    players: tuple[str, ...] = ("alice", "bob", "carol"),
    config: TableConfig | None = None,
    stacks: tuple[int, ...] = (),
    muck: frozenset[str] = frozenset(),
    deck: Sequence[Card] | None = None,
) -> Commits:
    """The table's commits after playing one hand per script in ``hands``."""
    state = TableState()
    commits: Commits = []

    def run(command: tc.TableCommand) -> None:
        nonlocal state
        state, events = step_table(state, command)
        commits.append((len(commits) + 1, 1_700_000_000.0 + len(commits), list(events)))

    cfg = config or TableConfig(seats=6, min_buy_in=2, max_buy_in=10_000)
    run(tc.OpenTable("t1", cfg, 0.0))
    for number, name in enumerate(players):
        run(tc.SitDown(name, number, stacks[number] if stacks else 200))
    now = 1.0
    for number, script in enumerate(hands, start=1):
        words = script.split()
        now += 100.0
        run(tc.StartHand(str(number), "c", now))
        cards = list(deck) if deck is not None else _shuffled(number)
        assert state.hand is not None
        count = cfg.variant.hole_card_count
        for p in range(state.hand.player_count):
            run(tc.Deal((DealHoleCards(p, tuple(cards.pop(0) for _ in range(count))),), now))
        while state.hand_in_progress:
            hand = state.hand
            assert hand is not None
            if hand.phase is Phase.DEALING_BOARD:
                n = 3 if hand.street == 0 else 1
                run(tc.Deal((DealBoard(tuple(cards.pop(0) for _ in range(n))),), now))
                continue
            acting = state.acting_seat()
            assert acting is not None
            player = state.seats[acting].player_id
            if legal_actions(hand) is None:
                run(tc.ShowOrMuck(player, player not in muck, now))
                continue
            word = words.pop(0)
            if word[0] == "r":
                options = legal_actions(hand)
                assert options is not None
                kind = PlayerAction.BET if options.is_bet else PlayerAction.RAISE
                run(tc.Act(player, kind, int(word[1:]), now))
            else:
                run(tc.Act(player, WORDS[word], now=now))
        assert not words, f"hand {number}: script left over: {words}"
    return commits


def _shuffled(seed: int) -> list[Card]:
    deck = list(DECK)
    random.Random(seed).shuffle(deck)
    return deck


def hands_seen(commits: Commits, viewer: str | None) -> list[PlayedHand]:
    return played_hands(commits, viewer)
