"""What a tournament shows: the clock counting down to the next level or the break's end, the
field's numbers, and the standings (in play by stack, then out by place)."""

from __future__ import annotations

import random

from libs.tournament import commands as C
from libs.tournament.standings import standings, summary
from libs.tournament.structure import BlindLevel, BlindStructure, LevelUnit

from .test_floor import at, bust, sng

TIMED = BlindStructure(
    "timed",
    LevelUnit.MINUTES,
    (BlindLevel(10, 20, length=10, break_minutes=5), BlindLevel(20, 40, length=10)),
)


def test_the_clock_counts_down_to_the_level_and_the_break() -> None:
    sim = sng(12, 6, structure=TIMED)  # started at 2.0
    shown = summary(sim.s, 302.0)
    assert shown.clock is not None
    assert (shown.clock.level, shown.clock.blinds.big_blind) == (1, 20)
    assert (shown.clock.next_change, shown.clock.seconds_left) == ("level", 300.0)
    sim.run(C.Tick(602.0))
    assert summary(sim.s, 602.0).clock.break_due  # type: ignore[union-attr]
    sim.now = 650.0
    for table in sorted(sim.s.tables):
        bust(sim, table, [])  # the last hand over at 650: the break runs to 950
    shown = summary(sim.s, 700.0)
    assert shown.clock is not None and shown.clock.on_break
    assert (shown.clock.next_change, shown.clock.seconds_left) == ("break end", 250.0)


def test_the_field_and_the_standings() -> None:
    sim = sng(12, 6)
    a, _ = sorted(sim.s.tables)
    loser = at(sim, a, 0)
    bust(sim, a, [loser])
    shown = summary(sim.s, 10.0)
    assert (shown.entrants, shown.players_left, shown.tables, shown.most_tables) == (12, 11, 2, 2)
    assert shown.chips_in_play == 12 * 1500 and shown.average_stack == 12 * 1500 // 11
    assert shown.largest_stack == 3000
    assert sum(shown.prizes) == shown.prize_pool and len(shown.prizes) == shown.paid_places
    rows = standings(sim.s)
    assert rows[0].stack == 3000 and rows[-1].player_id == loser and rows[-1].place == 12


def test_the_standings_at_the_end_are_the_places() -> None:
    sim = sng(9, 3)
    sim.walk(random.Random(7))
    rows = standings(sim.s)
    assert [r.place for r in rows] == sorted(r.place for r in rows)
    assert rows[0].place == 1 and rows[0].stack == 9 * 1500
    assert summary(sim.s, sim.now).most_tables == 3
