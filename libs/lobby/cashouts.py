"""What one public table commit means for the lobby's money (pure): the chips it sends back to
wallets (PlayerLeft, TableClosed), the players it sat out with no chips left (busted: their buy-in
is closed with a cash-out of 0), the change in seated players, the rake it took, and whether it
closed the table. The cash-out consumer (services/lobby/cashout.py) credits wallets from it,
and the chip audit counts what is still on its way."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from libs.poker.events import RakeTaken
from libs.table.events import PlayerLeft, PlayerSatOut, PlayerSeated, TableClosed

#: PlayerSatOut's reason when a player lost every chip.
NO_CHIPS = "no chips"


@dataclass
class Money:
    credits: list[tuple[str, int]] = field(default_factory=list)  # (player id, chips)
    busts: list[str] = field(default_factory=list)  # players sat out with no chips
    seated_delta: int = 0
    rake: int = 0
    closed_reason: str = ""

    @property
    def returned(self) -> int:
        return sum(amount for _, amount in self.credits)

    @property
    def relevant(self) -> bool:
        return bool(
            self.credits or self.busts or self.seated_delta or self.rake or self.closed_reason
        )


def money_of(events: Iterable[Any]) -> Money:
    money = Money()
    for event in events:
        if getattr(event, "tournament", False):
            continue  # a tournament's table: its chips are the tournament's, no wallet's
        if isinstance(event, PlayerSeated):
            money.seated_delta += 1
        elif isinstance(event, PlayerLeft):
            money.seated_delta -= 1
            money.credits.append((event.player_id, event.stack))
        elif isinstance(event, TableClosed):
            money.closed_reason = event.reason or "closed"
            for _, player_id, stack in event.stacks:
                money.credits.append((player_id, stack))
        elif isinstance(event, PlayerSatOut) and event.reason == NO_CHIPS and event.player_id:
            money.busts.append(event.player_id)
        elif isinstance(event, RakeTaken):
            money.rake += event.amount
    return money
