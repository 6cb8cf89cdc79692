"""Tables of people playing random hands through the table aggregate: the stored commits a hand
history is cut from, for the history tests.

Every choice comes from one seeded ``random.Random``, so a seed is a table. Hands reach the
shapes a history must render: folds before the flop, showdowns where later players muck, all-in
runouts (hands shown before the board is out), side pots when stacks differ, split pots in
hi-lo, and a winner's voluntary show after the hand.
"""

from __future__ import annotations

import contextlib
import random

from libs.poker import DealBoard, DealHoleCards, Phase, PokerError, legal_actions
from libs.poker.cards import DECK
from libs.poker.events import PotAwarded
from libs.table import TableConfig, TableState, step_table
from libs.table import commands as tc
from libs.table.commands import PlayerAction
from libs.table.events import Event

PLAYERS = ("alice", "bob", "carol")

Commits = list[tuple[int, float, list[Event]]]


def play(
    hands: int,
    seed: int,
    *,
    config: TableConfig | None = None,
    players: tuple[str, ...] = PLAYERS,
    buy_ins: tuple[int, ...] = (),
    shove: float = 0.0,
) -> Commits:
    """A table of ``players`` playing ``hands`` random hands: its commits. ``buy_ins`` by player
    (default 200 each); ``shove``: the chance a player who may raise raises the most they may
    (all in at no limit). A busted player is topped up to the maximum buy-in after the hand."""
    rng = random.Random(seed)
    state = TableState()
    commits: Commits = []

    def run(command: tc.TableCommand) -> None:
        nonlocal state
        state, events = step_table(state, command)
        commits.append((len(commits) + 1, 1_700_000_000.0 + len(commits), list(events)))

    cfg = config or TableConfig(seats=6)
    run(tc.OpenTable("t1", cfg, 0.0))
    for number, name in enumerate(players):
        run(tc.SitDown(name, number, buy_ins[number] if buy_ins else 200))
    now = 1.0
    for number in range(1, hands + 1):
        now += 100.0
        run(tc.StartHand(str(number), "c", now))
        began = len(commits)
        deck = list(DECK)
        rng.shuffle(deck)
        assert state.hand is not None
        count = cfg.variant.hole_card_count
        for p in range(state.hand.player_count):
            run(tc.Deal((DealHoleCards(p, tuple(deck.pop() for _ in range(count))),), now))
        while state.hand_in_progress:
            hand = state.hand
            assert hand is not None
            if hand.phase is Phase.DEALING_BOARD:
                cards = 3 if hand.street == 0 else 1
                run(tc.Deal((DealBoard(tuple(deck.pop() for _ in range(cards))),), now))
                continue
            acting = state.acting_seat()
            assert acting is not None
            player = state.seats[acting].player_id
            options = legal_actions(hand)
            if options is None:  # showdown: the first shows, later ones muck half the time
                turn_can_muck = rng.random() < 0.5 and len(hand.board) == 5
                try:
                    run(tc.ShowOrMuck(player, not turn_can_muck, now))
                except PokerError:
                    run(tc.ShowOrMuck(player, True, now))
                continue
            if shove and options.can_raise and rng.random() < shove:
                run(tc.Act(player, PlayerAction.RAISE, options.max_to, now))
                continue
            roll = rng.random()
            if options.can_raise and roll < 0.2:
                run(tc.Act(player, PlayerAction.RAISE, options.min_to, now))
            elif options.can_check:
                run(tc.Act(player, PlayerAction.CHECK, now=now))
            elif roll < 0.75:
                run(tc.Act(player, PlayerAction.CALL, now=now))
            else:
                run(tc.Act(player, PlayerAction.FOLD, now=now))
        if number % 4 == 0 and not state.hand_in_progress:  # a winner shows voluntarily
            # the hand's winner (the most collected), not the biggest stack: that may have folded
            paid: dict[int, int] = {}
            for _, _, events in commits[began:]:
                for event in events:
                    if isinstance(event, PotAwarded):
                        for position, amount in event.winners:
                            paid[position] = paid.get(position, 0) + amount
            winner = state.seats[state.hand_seats[max(paid, key=paid.__getitem__)]].player_id
            with contextlib.suppress(PokerError):
                run(tc.ShowOrMuck(winner, True, now))
        for seat_number in sorted(state.seats):
            if state.seats[seat_number].stack == 0:
                name = state.seats[seat_number].player_id
                run(tc.AddChips(name, cfg.max_buy_in, now))
                if state.seats[seat_number].sitting_out:
                    run(tc.SitIn(name, now=now))
    return commits
