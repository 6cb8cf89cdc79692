"""The automation driver: turns what ``libs.table.automation.next_due`` says a table needs next
into a command, by asking the dealer (cards by deck position, a new deck, a seed) or, for a bot's
turn, the ai service (``bots``: one Decide per decision). Deciding and committing that command
is the command path's job (app.py); which step is due is the pure function's."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import assert_never

import structlog

from libs.poker import commands as hc
from libs.poker.cards import DECK, Card
from libs.poker.events import HandEnded, HandVoided
from libs.table import TableState, step_table
from libs.table import commands as tc
from libs.table.automation import (
    BlindsDue,
    BoardDue,
    BombPotClockDue,
    BotTurn,
    ClockDue,
    Due,
    HandDue,
    HoleCardsDue,
    RevealDue,
    RunDue,
    RunItClockDue,
    next_due,
)
from libs.table.events import Event
from services.table.bots import Bots, LocalDecider
from services.table.dealing import DealerPort, DeckLost

log = structlog.get_logger("table")


class Automation:
    def __init__(
        self, dealer: DealerPort, clock: Callable[[], float], bots: Bots | None = None
    ) -> None:
        self.dealer = dealer
        self.clock = clock
        self.bots = bots or Bots(LocalDecider(), clock=clock)

    async def next_command(
        self, table_id: str, s: TableState, *, start_hands: bool = True
    ) -> tc.TableCommand | None:
        """The command for what ``s`` needs next, or None when it waits for a player (or, with
        ``start_hands`` off, for somebody to start the next hand)."""
        now = self.clock()
        due = next_due(s, now)
        if due is None or (isinstance(due, (HandDue, BlindsDue)) and not start_hands):
            return None
        try:
            return await self._command(table_id, s, due, now)
        except DeckLost as exc:
            if s.hand_in_progress:
                return tc.VoidCurrentHand(f"the dealer lost the deck ({exc})", self.clock())
            if s.hand_id and s.hand_id not in s.revealed_seeds:
                return tc.RevealSeed(s.hand_id, "", self.clock())  # nothing left to reveal
            raise

    async def _command(self, table_id: str, s: TableState, due: Due, now: float) -> tc.TableCommand:
        match due:
            case RevealDue():
                return tc.RevealSeed(due.hand_id, await self.dealer.reveal(due.deck_id), now)
            case HoleCardsDue():
                # every position's cards in ONE dealer call (a round trip per player made the
                # deal the slowest step of a bot table), then split back by position
                flat = [i for indexes in due.positions for i in indexes]
                cards = list(await self.dealer.deal(due.deck_id, flat))
                deals: list[hc.DealHoleCards | hc.DealBoard] = []
                for position, indexes in enumerate(due.positions):
                    mine, cards = cards[: len(indexes)], cards[len(indexes) :]
                    deals.append(hc.DealHoleCards(position, tuple(_cards(mine))))
                return tc.Deal(tuple(deals), now)
            case BoardDue():
                burn, *board = await self.dealer.deal(due.deck_id, (due.burn, *due.cards))
                return tc.Deal((hc.DealBoard(tuple(_cards(board)), DECK[burn]),), now)
            case BotTurn():
                if due.options is None:
                    return tc.ShowOrMuck(due.player_id, True, now)
                return await self.bots.act(table_id, s, due.player_id)
            case RunDue():
                burns_and_cards = await self.dealer.deal(due.deck_id, (*due.burns, *due.cards))
                burns = burns_and_cards[: len(due.burns)]
                cards = burns_and_cards[len(due.burns) :]
                run = hc.DealRun(tuple(_cards(cards)), tuple(_cards(burns)))
                return tc.Deal((run,), now)
            case ClockDue() | RunItClockDue() | BombPotClockDue() | BlindsDue():
                return tc.Tick(now)
            case HandDue():
                deck_id, commitment = await self.dealer.start_deck(table_id, due.hand_id)
                return tc.StartHand(due.hand_id, commitment, now, deck_id)
            case _:
                assert_never(due)

    async def reveal_at_hand_end(
        self, state: TableState, events: list[Event]
    ) -> tuple[TableState, list[Event]]:
        """When a command ends a hand, its commit also reveals the deck's seed: the hand-end
        commit carries what anyone needs to check every card. If the dealer cannot answer now,
        the seed is revealed by a later automatic step instead (``RevealDue``)."""
        if not any(isinstance(e, (HandEnded, HandVoided)) for e in events):
            return state, events
        if not state.deck_id or state.hand_id in state.revealed_seeds:
            return state, events
        try:
            seed = await self.dealer.reveal(state.deck_id)
        except DeckLost:
            return state, events
        except Exception as exc:  # dealer unreachable: reveal later
            log.warning("reveal_deferred", hand_id=state.hand_id, error=str(exc))
            return state, events
        state, more = step_table(state, tc.RevealSeed(state.hand_id, seed, self.clock()))
        return state, [*events, *more]


def _cards(indexes: Sequence[int]) -> list[Card]:
    return [DECK[i] for i in indexes]
