"""A table driven like the table service drives it (deals from one seed's deck, reveals), for
the table-feature tests (bomb pots, straddles, run it twice, rabbit hunts): start hands by
number, act, check chips."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from libs.fairdeck import commitment, deck_from_seed
from libs.poker import commands as hc
from libs.poker.cards import DECK
from libs.poker.events import HandStarted
from libs.table import TableConfig, TableState, step_table
from libs.table import commands as tc
from libs.table.automation import BoardDue, HoleCardsDue, RevealDue, RunDue, next_due
from libs.table.events import Event

SEED = bytes(range(32))
DECK_OF_SEED = deck_from_seed(SEED)


class SeededTable:
    """Players sit in ``names``' order, seat 0 first, each with ``stack`` chips."""

    def __init__(
        self,
        config: TableConfig,
        names: Sequence[str],
        stack: int = 100,
        bots: Collection[str] = (),
    ) -> None:
        self.state = TableState()
        self.events: list[Event] = []
        self.run(tc.OpenTable("t", config, 0.0))
        self.granted = 0
        for number, name in enumerate(names):
            self.run(tc.SitDown(name, number, stack, is_bot=name in bots))
            self.granted += stack

    def run(self, command: tc.TableCommand) -> list[Event]:
        self.state, new = step_table(self.state, command)
        self.events.extend(new)
        return list(new)

    def automatic(self, now: float = 1.0) -> None:
        """Deal and reveal until a player (or the clock) is waited for."""
        while True:
            due = next_due(self.state, now)
            if isinstance(due, HoleCardsDue):
                deals = tuple(
                    hc.DealHoleCards(p, tuple(DECK[DECK_OF_SEED[i]] for i in indexes))
                    for p, indexes in enumerate(due.positions)
                )
                self.run(tc.Deal(deals, now))
            elif isinstance(due, BoardDue):
                board = tuple(DECK[DECK_OF_SEED[i]] for i in due.cards)
                self.run(tc.Deal((hc.DealBoard(board, DECK[DECK_OF_SEED[due.burn]]),), now))
            elif isinstance(due, RunDue):
                cards = tuple(DECK[DECK_OF_SEED[i]] for i in due.cards)
                burns = tuple(DECK[DECK_OF_SEED[i]] for i in due.burns)
                self.run(tc.Deal((hc.DealRun(cards, burns),), now))
            elif isinstance(due, RevealDue):
                self.run(tc.RevealSeed(due.hand_id, SEED.hex(), now))
            else:
                return

    def start(self, now: float = 1.0) -> HandStarted:
        number = self.state.hands_started + 1
        new = self.run(tc.StartHand(f"h{number}", commitment(SEED), now, f"deck-{number}"))
        self.automatic(now)
        return next(e for e in new if isinstance(e, HandStarted))

    def acting(self) -> str:
        seat = self.state.acting_seat()
        assert seat is not None
        return self.state.seats[seat].player_id

    def check_down(self, now: float = 1.0) -> None:
        """Every player checks (or calls), and shows at showdown, until the hand is over."""
        self.automatic(now)
        while self.state.hand_in_progress:
            hand = self.state.hand
            assert hand is not None
            seat = self.state.acting_seat()
            assert seat is not None, f"the hand waits for nobody: {hand.phase}"
            player = self.state.seats[seat].player_id
            if hand.actor is None:  # a showdown turn
                self.run(tc.ShowOrMuck(player, True, now))
            else:
                owed = hand.current_bet - hand.bets[hand.actor]
                action = tc.PlayerAction.CALL if owed > 0 else tc.PlayerAction.CHECK
                self.run(tc.Act(player, action, now=now))
            self.automatic(now)

    def chips(self) -> int:
        return self.state.total_chips()


class BombTable(SeededTable):
    """``players`` numbered players, p0 in seat 0 on; ``bots`` by number."""

    def __init__(
        self, config: TableConfig, players: int, stack: int = 100, bots: tuple[int, ...] = ()
    ) -> None:
        names = [f"p{number}" for number in range(players)]
        super().__init__(config, names, stack, {names[number] for number in bots})
