"""What the director drives: the tables of a tournament and the wallets. Each call is keyed by
the directive's key and may be repeated after a crash: the far side does each key once (a table
command's idempotency key, a wallet credit's key), so a repeat changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from libs.tournament import directives as D
from libs.tournament import events as E


@dataclass(frozen=True, slots=True)
class HandReport:
    """A released hand that ended: every dealt player's stacks at its start and end, the
    button (the table's ``HandBegan``/``HandEnded``)."""

    table_id: str
    hand: int
    results: tuple[E.HandResult, ...]
    button: int


class Tables(Protocol):
    """Tournament tables: hands only on ``deal``, seats and chips only by these calls."""

    async def open(self, d: D.OpenTable) -> None: ...

    async def seat(self, d: D.SeatPlayer) -> None: ...

    async def move(self, d: D.MovePlayer, stack: int, is_bot: bool, bot_level: str) -> None:
        """The move saga to its end: the player left ``from_table`` with their stack (``stack``:
        the books', which the table holds: it is between hands and held, and every hand of
        it reported) and sits at ``to_seat`` of ``to_table`` with exactly that stack (each
        step keyed: a redo after a crash finds the steps done)."""
        ...

    async def remove(self, d: D.RemovePlayer) -> None: ...

    async def add_chips(self, d: D.AddChips) -> None: ...

    async def deal(self, d: D.DealHand) -> None: ...

    async def close(self, d: D.CloseTable) -> None: ...

    async def hand_result(self, table_id: str, hand: int) -> HandReport | None:
        """The hand's report once it ended (None: still being played), as often as asked."""
        ...

    async def wait(self, timeout: float) -> None:
        """Return when a hand may have ended, or after ``timeout`` seconds."""
        ...


class Wallets(Protocol):
    async def credit(self, payment: E.Payment) -> None:
        """Credit ``payment.amount`` to ``payment.player_id``'s wallet once by ``payment.key``
        (a repeat of a credited key changes nothing)."""
        ...
