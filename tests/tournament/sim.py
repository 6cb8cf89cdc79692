"""A tournament driven through decide/evolve and a simulated world that carries out its
directives as the phase-2 director would: tables that deal only when told, seat and move
players, add chips between a seat's hands, and wallets credited once per payment key.

``Sim.run`` applies one command (decide, then evolve each event, then the directives in order)
and checks the invariants after it; tests call it directly or let ``Sim.walk`` drive a whole
tournament with random hands that conserve chips.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from libs.tournament import codec, decide, evolve, initial
from libs.tournament import commands as C
from libs.tournament import directives as D
from libs.tournament import events as E
from libs.tournament.config import TournamentConfig
from libs.tournament.state import (
    Status,
    TournamentState,
    add_on_open,
    chips_in_play,
    full,
    moving_tables,
    players_left,
    rebuy_open,
    registration_open,
    size,
    still_in,
)


@dataclass
class WorldSeat:
    player: str
    stack: int


@dataclass
class WorldTable:
    seats: dict[int, WorldSeat] = field(default_factory=dict)
    hand: int = 0  # the hand being dealt (0: none)
    batch: int = 0  # the command whose events released that hand
    start: dict[str, int] = field(default_factory=dict)  # dealt players' stacks at its start

    def seat_of(self, player_id: str) -> int | None:
        return next((n for n, seat in self.seats.items() if seat.player == player_id), None)


class Sim:
    def __init__(self, config: TournamentConfig, tid: str = "T1", now: float = 0.0) -> None:
        self.s: TournamentState = initial(tid)
        self.now = now
        self.tables: dict[str, WorldTable] = {}
        self.pending_chips: dict[str, int] = {}  # player -> chips the table adds after the hand
        self.moves: list[str] = []  # moves carried out, not reported yet
        self.credits: dict[str, int] = {}  # payment key -> chips credited
        self.commands = 0
        self.releases: list[tuple[str, int, int]] = []  # (table, hand, batch)
        self.hand_for_hand_deals = 0
        self.all_in = 0.15  # how often a loser of a hand loses every chip
        self.late: list[str] = []  # players who register once the tournament runs
        self.cancelling = False
        self.keys: dict[str, D.Directive] = {}  # every directive's idempotency key
        self.prized: list[D.DealHand] = []  # the releases that carried the prizes
        self.log: list[E.Event] = []
        self.run(C.CreateTournament(tid, config, "director", now))

    # ---- one command ----

    def run(self, command: C.Command) -> list[E.Event]:
        before = self.s
        events = decide(before, command)
        self.cancelling = isinstance(command, C.Cancel)
        assert codec.decode_events(codec.encode_events(events)) == events
        self.commands += 1
        for event in events:
            self._carry_out(self.s, event)
            self.s = evolve(self.s, event)
        self.log.extend(events)
        if self.commands % 25 == 0:
            assert codec.decode_state(codec.encode_state(self.s)) == self.s
        self.check()
        return events

    def _carry_out(self, s: TournamentState, event: E.Event) -> None:
        if isinstance(event, E.HandReleased):
            sizes = [size(s, t) for t in s.tables.values() if not t.breaking]
            mine = size(s, s.tables[event.table_id])
            assert max(sizes) - mine <= 1 and mine - min(sizes) <= 1, "released out of balance"
            if s.hand_for_hand:
                others = [w.batch for t, w in self.tables.items() if w.hand and t != event.table_id]
                assert all(b == self.commands for b in others), "hand-for-hand barrier broken"
                self.hand_for_hand_deals += 1
        for directive in D.directives(s, event):
            self._apply(directive)

    def _apply(self, d: D.Directive) -> None:
        key = d.payment.key if isinstance(d, D.PayPlayer) else d.key
        assert self.keys.setdefault(key, d) == d, f"key {key} names two directives"
        match d:
            case D.OpenTable():
                assert d.table_id not in self.tables
                self.tables[d.table_id] = WorldTable()
            case D.SeatPlayer():
                self._assert_nowhere(d.player_id)
                table = self.tables[d.table_id]
                assert d.seat not in table.seats
                table.seats[d.seat] = WorldSeat(d.player_id, d.stack)
            case D.MovePlayer():
                source, target = self.tables[d.from_table], self.tables[d.to_table]
                assert not source.hand and not target.hand, "a move touched a table in a hand"
                seat = source.seat_of(d.player_id)
                assert seat is not None and d.to_seat not in target.seats
                target.seats[d.to_seat] = source.seats.pop(seat)  # leave with it, sit with it
                self.moves.append(d.move_id)
            case D.RemovePlayer():
                table = self.tables[d.table_id]
                seat = table.seat_of(d.player_id)
                assert seat is not None and table.seats[seat].stack == 0, "removed with chips"
                del table.seats[seat]
            case D.AddChips():
                table = self.tables[d.table_id]
                seat = table.seat_of(d.player_id)
                assert seat is not None
                if table.hand and d.player_id in table.start:  # after the seat's hand
                    pending = self.pending_chips.get(d.player_id, 0)
                    self.pending_chips[d.player_id] = pending + d.amount
                else:
                    table.seats[seat].stack += d.amount
            case D.DealHand():
                table = self.tables[d.table_id]
                assert not table.hand, "dealt twice"
                table.hand, table.batch = d.hand, self.commands
                table.start = {x.player: x.stack for x in table.seats.values() if x.stack > 0}
                assert len(table.start) >= 2
                self.releases.append((d.table_id, d.hand, self.commands))
                self._check_prizes(d)
            case D.CloseTable():
                table = self.tables.pop(d.table_id)
                assert not table.hand or self.cancelling, "closed during a hand"
            case D.PayPlayer():
                key = d.payment.key
                if key not in self.credits:  # the wallet credits a key once
                    self.credits[key] = d.payment.amount

    def _check_prizes(self, d: D.DealHand) -> None:
        """A release's prizes are the places still to win and, exactly, the stacks with chips
        at every other table of the world (the books' chips on their way aside)."""
        if not d.payouts:
            left = players_left(self.s)
            assert left > D.PRIZES_FIELD, "a small field's release without the prizes"
            assert not self.s.hand_for_hand or left > D.PRIZES_MOST, "a round's without the prizes"
            return
        self.prized.append(d)
        cfg = self.s.cfg
        places = cfg.payouts.shares_for(len(self.s.entrants))
        assert d.payouts == places[: players_left(self.s)]
        assert list(d.payouts) == sorted(d.payouts, reverse=True)
        if not self.pending_chips:
            others = [
                x.stack
                for table_id, table in self.tables.items()
                if table_id != d.table_id
                for x in table.seats.values()
                if x.stack > 0
            ]
            assert sorted(d.others) == sorted(others), "a release's prizes miss other tables"

    def _assert_nowhere(self, player_id: str) -> None:
        for table in self.tables.values():
            assert table.seat_of(player_id) is None, f"{player_id} at two tables"

    # ---- invariants ----

    def check(self) -> None:
        s = self.s
        if s.status in (Status.NEW, Status.REGISTERING) or s.status is Status.CANCELLED:
            return
        cfg = s.cfg
        issued = len(s.entrants) * cfg.starting_stack
        issued += s.rebuys * (cfg.rebuy.chips if cfg.rebuy else 0)
        issued += s.add_ons * (cfg.add_on.chips if cfg.add_on else 0)
        assert chips_in_play(s) == issued == s.chips_issued, "chips created or lost in the books"
        if s.status is Status.FINISHED:
            return  # the tables are closed: the winner holds every chip in the books
        world = sum(x.stack for t in self.tables.values() for x in t.seats.values())
        assert world + sum(self.pending_chips.values()) == issued, "chips created or lost"
        seen: set[str] = set()
        for table in self.tables.values():
            for x in table.seats.values():
                assert x.player not in seen, f"{x.player} at two tables"
                seen.add(x.player)
        for entrant in still_in(s):
            assert entrant.table_id, f"{entrant.player_id} at no table"
            at = entrant.table_id
            if any(m.player_id == entrant.player_id for m in s.moves.values()):
                at = next(m.to_table for m in s.moves.values() if m.player_id == entrant.player_id)
            table = self.tables[at]
            seat = table.seat_of(entrant.player_id)
            assert seat is not None, f"{entrant.player_id} is not where the books say"
            stack = table.seats[seat].stack + self.pending_chips.get(entrant.player_id, 0)
            assert stack == entrant.stack, f"{entrant.player_id}: {stack} != {entrant.stack}"
        quiet = not s.moves and not any(t.in_hand for t in s.tables.values())
        deciding = any(e.bust for e in still_in(s))  # a seat held by a rebuy decision
        if quiet and s.running and not deciding:
            playing = [size(s, t) for t in s.tables.values() if not t.breaking]
            assert not playing or max(playing) - min(playing) <= 1, "left out of balance"
        assert not (moving_tables(s) - set(s.tables)), "a move between closed tables"

    # ---- driving ----

    def finish_hand(self, rng: random.Random, table_id: str) -> list[E.Event]:
        """A random hand: a winner takes part or all of some others' stacks."""
        start = self.tables[table_id].start
        end = dict(start)
        players = sorted(start)
        rng.shuffle(players)
        winner, losers = players[0], players[1 : 1 + rng.randint(1, len(players) - 1)]
        for loser in losers:
            lost = end[loser] if rng.random() < self.all_in else rng.randint(0, end[loser] // 3)
            end[loser] -= lost
            end[winner] += lost
        return self.report(table_id, end, rng.choice(sorted(self.tables[table_id].seats)))

    def report(
        self, table_id: str, ends: dict[str, int] | None = None, button: int | None = None
    ) -> list[E.Event]:
        """End ``table_id``'s hand: the players named in ``ends`` finish with those stacks
        (they must add up to what they began with), the others as they began."""
        table = self.tables[table_id]
        start = dict(table.start)
        end = {**start, **(ends or {})}
        for x in table.seats.values():
            if x.player in end:
                x.stack = end[x.player] + self.pending_chips.pop(x.player, 0)
        table.hand, table.start = 0, {}
        hand = self.s.tables[table_id].hand
        seat = min(table.seats) if button is None else button
        results = tuple(E.HandResult(p, start[p], end[p]) for p in sorted(start))
        return self.run(C.ReportHand(table_id, hand, results, seat, self.now))

    def settle_payments(self) -> None:
        for key in list(self.s.payments):
            assert key in self.credits
            self.run(C.SettlePayment(key, self.now))

    def step(self, rng: random.Random) -> None:
        """One random thing the world does next."""
        self.now += rng.choice((0.5, 1.0, 5.0, 30.0, 120.0))
        choice = rng.random()
        busy = [t for t, w in self.tables.items() if w.hand]
        if self.moves and (choice < 0.5 or not busy):
            move = self.moves.pop(rng.randrange(len(self.moves)))
            self.run(C.CompleteMove(move, self.now))
        elif busy and choice < 0.8:
            self.finish_hand(rng, rng.choice(busy))
        else:
            self._player_choice(rng)
            self.run(C.Tick(self.now))

    def _player_choice(self, rng: random.Random) -> None:
        """A player's move: a late entry, a rebuy (busted, or short), declining one, an add-on."""
        s = self.s
        alive = list(still_in(s))
        if not alive or not s.running:
            return
        key = f"buy-{self.commands}"
        if self.late and registration_open(s) and not full(s) and rng.random() < 0.3:
            self.run(C.Register(self.late.pop(), key, self.now))
            return
        entrant = rng.choice(alive)
        rule = s.cfg.rebuy
        if entrant.bust is not None and entrant.bust.rebuy_until is not None:
            if rng.random() < 0.6:
                self.run(C.Rebuy(entrant.player_id, key, self.now))
            else:
                self.run(C.DeclineRebuy(entrant.player_id, self.now))
        elif rule and rebuy_open(s) and 0 < entrant.stack <= s.cfg.rebuy_threshold:
            if not rule.max_rebuys or entrant.rebuys < rule.max_rebuys:
                self.run(C.Rebuy(entrant.player_id, key, self.now))
        elif add_on_open(s) and not entrant.add_ons and rng.random() < 0.7:
            self.run(C.AddOn(entrant.player_id, key, self.now))

    def walk(self, rng: random.Random, max_steps: int = 50_000) -> None:
        for _ in range(max_steps):
            if self.s.status is not Status.RUNNING:
                break
            self.step(rng)
        assert self.s.status is Status.FINISHED, f"stuck after {max_steps} steps"
        self.settle_payments()
        self.check_final()

    def check_final(self) -> None:
        s = self.s
        assert players_left(s) == 0
        places = sorted((e.place, e.tied) for e in s.entrants.values())
        expected, place = [], 1
        while place <= len(places):
            tied = places[place - 1][1]
            expected += [(place, tied)] * tied
            place += tied
        assert places == expected, "places are not a ranking of every entrant"
        assert sum(self.credits.values()) == s.prize_pool, "paid total differs from the pool"
        assert sum(e.prize for e in s.entrants.values()) == s.prize_pool
        assert not s.payments and len(s.settled) == len(self.credits)
        assert not self.tables, "a table was left open"
        assert codec.decode_state(codec.encode_state(s)) == s
