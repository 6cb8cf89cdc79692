"""Tables and wallets that do what the director's ports promise, in memory, for the director's
tests: each keyed call is done once (a repeat changes nothing, as the table service's and the
wallet's idempotency keys make it), a released hand is played at once with random results that
conserve chips, and any call can be made to crash the director (``crash_at``), before or after
its effect, as a SIGKILL would.

This stands in for the table service's tournament mode (not built yet); the tournament's store,
checkpoints and the director under test are the real ones, on a real nats-server and Redis.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from dataclasses import dataclass, field

from libs.tournament import directives as D
from libs.tournament import events as E
from services.tournament.ports import HandReport


class Crash(Exception):
    """The director died here."""


@dataclass
class Table:
    seats: dict[int, tuple[str, int]] = field(default_factory=dict)  # seat -> (player, stack)
    hands: dict[int, HandReport] = field(default_factory=dict)
    dealing: int = 0  # the hand being played (0: none)
    closed: bool = False

    def seat_of(self, player_id: str) -> int | None:
        return next((n for n, (p, _) in self.seats.items() if p == player_id), None)


class World:
    def __init__(self, seed: int = 1, all_in: float = 0.3) -> None:
        self.rng = random.Random(seed)
        self.all_in = all_in
        self.tables: dict[str, Table] = {}
        self.done: Counter[str] = Counter()  # every key's effect, applied once each
        self.asked: Counter[str] = Counter()  # every key's calls (a redo asks again)
        self.credits: dict[str, E.Payment] = {}
        self.calls = 0
        self.crash_at: int | None = None  # the call that crashes
        self.crash_after = False  # after its effect (else before)
        self.moves = 0
        self.hands = 0

    def _call(self, key: str) -> bool:
        """Whether to apply ``key`` (not done yet); raises ``Crash`` at the chosen call."""
        self.calls += 1
        self.asked[key] += 1
        if self.crash_at == self.calls and not self.crash_after:
            self.crash_at = None
            raise Crash(key)
        return key not in self.done

    def after_append(self, msg_id: str) -> None:
        """A report was appended: the director may die before it learns so."""
        self.calls += 1
        if self.crash_at == self.calls:
            self.crash_at = None
            raise Crash(f"after appending {msg_id}")

    def _applied(self, key: str) -> None:
        self.done[key] += 1
        if self.crash_at == self.calls and self.crash_after:
            self.crash_at = None
            raise Crash(key)

    # ---- Tables ----

    async def open(self, d: D.OpenTable) -> None:
        if self._call(d.key):
            assert d.table_id not in self.tables
            self.tables[d.table_id] = Table()
        self._applied_once(d.key)

    def _applied_once(self, key: str) -> None:
        if key not in self.done:
            self._applied(key)
        elif self.crash_at == self.calls and self.crash_after:
            self.crash_at = None
            raise Crash(key)

    async def seat(self, d: D.SeatPlayer) -> None:
        if self._call(d.key):
            assert all(t.seat_of(d.player_id) is None for t in self.tables.values())
            table = self.tables[d.table_id]
            assert d.seat not in table.seats and not table.closed
            table.seats[d.seat] = (d.player_id, d.stack)
        self._applied_once(d.key)

    async def move(self, d: D.MovePlayer, stack: int, is_bot: bool, bot_level: str) -> None:
        if self._call(d.key):
            source, target = self.tables[d.from_table], self.tables[d.to_table]
            assert not source.dealing and not target.dealing, "a move touched a table in a hand"
            seat = source.seat_of(d.player_id)
            assert seat is not None and d.to_seat not in target.seats
            assert source.seats[seat] == (d.player_id, stack), "the books' stack is not the table's"
            target.seats[d.to_seat] = source.seats.pop(seat)
            self.moves += 1
        self._applied_once(d.key)

    async def remove(self, d: D.RemovePlayer) -> None:
        if self._call(d.key):
            table = self.tables[d.table_id]
            seat = table.seat_of(d.player_id)
            assert seat is not None and table.seats[seat][1] == 0, "removed with chips"
            del table.seats[seat]
        self._applied_once(d.key)

    async def add_chips(self, d: D.AddChips) -> None:
        raise AssertionError("no rebuys in these tournaments")

    async def deal(self, d: D.DealHand) -> None:
        if self._call(d.key):
            table = self.tables[d.table_id]
            assert not table.dealing and not table.closed, "dealt twice"
            table.dealing = d.hand
            self._play(table, d.table_id, d.hand)
        self._applied_once(d.key)

    def _play(self, table: Table, table_id: str, hand: int) -> None:
        """The hand, played at once: a winner takes part or all of some others' stacks."""
        start = {p: s for p, s in table.seats.values() if s > 0}
        assert len(start) >= 2
        end = dict(start)
        players = sorted(start)
        self.rng.shuffle(players)
        winner, losers = players[0], players[1 : 1 + self.rng.randint(1, len(players) - 1)]
        for loser in losers:
            lost = end[loser] if self.rng.random() < self.all_in else end[loser] // 3
            end[loser] -= lost
            end[winner] += lost
        for n, (p, s) in list(table.seats.items()):
            table.seats[n] = (p, end.get(p, s))
        results = tuple(E.HandResult(p, start[p], end[p]) for p in sorted(start))
        table.hands[hand] = HandReport(
            table_id, hand, results, self.rng.choice(sorted(table.seats))
        )
        table.dealing = 0
        self.hands += 1

    async def close(self, d: D.CloseTable) -> None:
        if self._call(d.key):
            table = self.tables[d.table_id]
            table.closed = True
        self._applied_once(d.key)

    async def hand_result(self, table_id: str, hand: int) -> HandReport | None:
        return self.tables[table_id].hands.get(hand)

    async def wait(self, timeout: float) -> None:
        await asyncio.sleep(min(timeout, 0.01))

    # ---- Wallets ----

    async def credit(self, payment: E.Payment) -> None:
        if self._call(payment.key):
            self.credits[payment.key] = payment
        self._applied_once(payment.key)

    # ---- what the tests check ----

    def chips(self) -> int:
        return sum(s for t in self.tables.values() if not t.closed for _, s in t.seats.values())
