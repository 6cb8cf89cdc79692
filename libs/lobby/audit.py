"""The chip invariant (ARCHITECTURE.md, "Chips across services"): at any moment every chip ever
granted is in exactly one place, a wallet's balance, a reservation of a saga in flight, a table
(stacks, bets and pots), a cash-out on its way from a table commit to a wallet, or the rake::

    grants == wallets + reserved + on_tables + in_flight + rake + in_tournaments

(``in_tournaments``: chips paid into tournaments and not yet paid out of them, the prize pools.)

Pure: the lobby gathers the figures (services/lobby/app.py, ``Lobby.audit``).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class TableChips:
    table_id: str
    on_table: int
    rake: int
    sequence: int


@dataclass(frozen=True)
class ChipAudit:
    grants: int
    wallets: int
    reserved: int
    on_tables: int
    in_flight: int
    rake: int
    tables: list[TableChips] = field(default_factory=list)
    open_sagas: int = 0
    seated_players: int = 0
    in_tournaments: int = 0

    @property
    def accounted(self) -> int:
        return (
            self.wallets
            + self.reserved
            + self.on_tables
            + self.in_flight
            + self.rake
            + self.in_tournaments
        )

    @property
    def holds(self) -> bool:
        return self.grants == self.accounted

    def describe(self) -> str:
        verdict = "holds" if self.holds else f"BROKEN by {self.accounted - self.grants:+d}"
        return (
            f"grants {self.grants} = wallets {self.wallets} + reserved {self.reserved}"
            f" + on tables {self.on_tables} + in flight {self.in_flight} + rake {self.rake}"
            f" + in tournaments {self.in_tournaments}:"
            f" {verdict}"
        )
