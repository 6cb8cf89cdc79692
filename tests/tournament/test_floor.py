"""The floor's decisions: the draw, balancing (the player who would be big blind next moves
from the largest table to the smallest, to the worst seat), breaking tables down to the final
one, hand-for-hand at the bubble, breaks taken together. Tables are touched only between hands
(the simulated world refuses a move at a table in a hand)."""

from __future__ import annotations

from typing import TypeVar

from libs.tournament import commands as C
from libs.tournament import events as E
from libs.tournament.config import TournamentConfig, TournamentKind
from libs.tournament.seating import initial_draw
from libs.tournament.state import players_left
from libs.tournament.structure import BlindLevel, BlindStructure, LevelUnit

from .sim import Sim

T = TypeVar("T")


def sng(n: int, seats: int, **settings: object) -> Sim:
    config = TournamentConfig(
        "floor",
        TournamentKind.SIT_AND_GO,
        max_entrants=n,
        seats_per_table=seats,
        **settings,  # type: ignore[arg-type]
    )
    sim = Sim(config)
    for i in range(n):
        sim.run(C.Register(f"p{i}", f"k{i}", 1.0))
    sim.run(C.Start("draw-seed", 2.0))
    return sim


def bust(
    sim: Sim,
    table_id: str,
    losers: list[str],
    button: int | None = None,
    winner: str | None = None,
) -> list[E.Event]:
    """Report ``table_id``'s hand: ``losers`` lose every chip to ``winner`` (else the first
    other player by id)."""
    start = sim.tables[table_id].start
    winner = winner or next(p for p in sorted(start) if p not in losers)
    ends = {p: 0 for p in losers}
    ends[winner] = start[winner] + sum(start[p] for p in losers)
    return sim.report(table_id, ends, button)


def at(sim: Sim, table_id: str, seat: int) -> str:
    return sim.s.tables[table_id].seats[seat]


def of(events: list[E.Event], kind: type[T]) -> list[T]:
    return [e for e in events if isinstance(e, kind)]


def test_the_draw_fills_as_few_tables_as_hold_the_field_evenly() -> None:
    players = [f"p{i}" for i in range(20)]
    draw = initial_draw(players, 6, "seed")
    tables: dict[int, set[int]] = {}
    for number, seat, _ in draw:
        tables.setdefault(number, set()).add(seat)
    assert sorted(p for _, _, p in draw) == sorted(players)
    assert sorted(len(s) for s in tables.values()) == [5, 5, 5, 5]
    assert initial_draw(players, 6, "seed") == draw
    assert initial_draw(players, 6, "other seed") != draw


def test_the_start_seats_everyone_and_deals_at_every_table() -> None:
    sim = sng(20, 6)
    assert len(sim.s.tables) == 4
    assert all(e.table_id for e in sim.s.entrants.values())
    assert sorted(t for t, _, _ in sim.releases) == sorted(sim.s.tables)


def test_balancing_moves_the_next_big_blind_from_the_largest_table_to_the_worst_seat() -> None:
    sim = sng(12, 6)  # two full tables: seats 0..5 each
    a, b = sorted(sim.s.tables)
    losers = [at(sim, a, 1), at(sim, a, 2)]
    events = bust(sim, a, losers, button=0)  # a: 4 left, at 0, 3, 4, 5
    assert not of(events, E.HandReleased)  # out of balance: held until b can give
    assert not of(events, E.MoveOrdered)  # b is in a hand: nothing touches it
    events = bust(sim, b, [], button=2)  # b: button 3 next, small blind 4, big blind 5
    (move,) = of(events, E.MoveOrdered)
    assert isinstance(move, E.MoveOrdered)
    assert (move.from_table, move.from_seat, move.player_id) == (b, 5, at(sim, b, 5))
    # at a the button goes to 3, the blinds to 4 and 5: the first free seat after 5 is 1
    assert (move.to_table, move.to_seat, move.reason) == (a, 1, "balance")
    assert not of(events, E.HandReleased)  # both held until the move lands
    events = sim.run(C.CompleteMove(move.move_id, 10.0))
    assert {e.table_id for e in of(events, E.HandReleased)} == {a, b}
    assert sorted(len(t.seats) for t in sim.s.tables.values()) == [5, 5]
    assert sim.s.entrants[move.player_id].table_id == a


def test_a_table_is_broken_player_by_player_down_to_the_final_table() -> None:
    sim = sng(12, 6)
    a, b = sorted(sim.s.tables)
    bust(sim, a, [at(sim, a, s) for s in (0, 1, 2)])
    events = bust(sim, b, [at(sim, b, s) for s in (0, 1, 2)])  # 6 left: one table holds them
    assert of(events, E.TableBreaking) == [E.TableBreaking(b)]  # tied at 3: the last one
    moves = 0
    while move := next(iter(sim.s.moves), None):
        events = sim.run(C.CompleteMove(move, 20.0))
        moves += 1
    assert moves == 3
    assert of(events, E.TableClosed) == [E.TableClosed(b)]
    assert [e.table_id for e in of(events, E.HandReleased)] == [a]
    assert list(sim.s.tables) == [a] and len(sim.s.tables[a].seats) == 6


def hand_for_hand_at_ten() -> tuple[Sim, str, str]:
    """12 at two tables of 6, the 10th place played hand for hand; a hand-for-hand round has
    just been dealt at both tables."""
    sim = sng(12, 6, hand_for_hand_places=(10,), hand_for_hand_at_bubble=False)
    a, b = sorted(sim.s.tables)
    bust(sim, a, [at(sim, a, 0)])  # 11 left
    events = bust(sim, b, [at(sim, b, 0)])  # 10 left: the next one out is 10th
    assert of(events, E.HandForHandStarted) == [E.HandForHandStarted(10, sim.now)]
    assert not of(events, E.HandReleased)  # b waits for a's hand, dealt before
    events = bust(sim, a, [])
    assert sorted(e.table_id for e in of(events, E.HandReleased)) == [a, b]
    return sim, a, b


def test_hand_for_hand_deals_every_table_together_and_ranks_a_bust_after_the_round() -> None:
    sim, a, b = hand_for_hand_at_ten()
    loser = min(sim.tables[a].start)
    events = bust(sim, a, [loser])
    assert not of(events, E.PlayersPlaced) and not of(events, E.HandReleased)
    events = bust(sim, b, [])
    (placed,) = of(events, E.PlayersPlaced)
    assert placed.placings == (E.Placing(loser, 10),)
    assert of(events, E.HandForHandEnded) == [E.HandForHandEnded(9, sim.now)]
    assert sim.s.hand_for_hand_rounds == 2  # a's hand in play when it began, then the round
    assert sorted(e.table_id for e in of(events, E.HandReleased)) == [a, b]


def test_busts_at_two_tables_of_one_round_rank_by_their_starting_stacks() -> None:
    sim, a, b = hand_for_hand_at_ten()
    big_a = max(sim.tables[a].start, key=lambda p: sim.tables[a].start[p])
    small_b = min(sim.tables[b].start, key=lambda p: sim.tables[b].start[p])
    assert sim.tables[a].start[big_a] > sim.tables[b].start[small_b]
    bust(sim, b, [small_b])  # out first, but with the smaller stack
    events = bust(sim, a, [big_a])
    (placed,) = of(events, E.PlayersPlaced)
    assert placed.placings == (E.Placing(small_b, 10), E.Placing(big_a, 9))


def test_no_hand_for_hand_once_the_field_fits_one_table() -> None:
    sim = sng(8, 4)  # 8 pay 3: the bubble is 4th, when 4 left fit one table of 4
    tables = sorted(sim.s.tables)
    for table in tables:
        bust(sim, table, [at(sim, table, 0), at(sim, table, 1)])
    assert players_left(sim.s) == 4
    assert not any(isinstance(e, E.HandForHandStarted) for e in sim.log)


LEVELS = (
    BlindLevel(10, 20, length=2, break_minutes=5),
    BlindLevel(20, 40, length=2),
    BlindLevel(30, 60, length=2),
)


def test_a_break_waits_for_every_table_to_finish_its_hand() -> None:
    structure = BlindStructure("brk", LevelUnit.HANDS, LEVELS)
    sim = sng(12, 6, structure=structure)
    a, b = sorted(sim.s.tables)
    bust(sim, a, [])
    events = bust(sim, a, [])  # a has played level 1's two hands
    assert of(events, E.BreakDue) and not of(events, E.HandReleased)
    sim.now = 100.0
    events = bust(sim, b, [])  # the last table's hand is over: the break starts now
    assert of(events, E.BreakStarted) == [E.BreakStarted(100.0, 400.0)]
    assert sim.run(C.Tick(399.0)) == []
    events = sim.run(C.Tick(401.0))
    assert events[:2] == [E.BreakEnded(400.0), E.LevelStarted(2, 400.0)]
    released = of(events, E.HandReleased)
    assert sorted(e.table_id for e in released) == [a, b]
    assert {e.level for e in released} == {2}


def test_levels_by_time_start_at_their_scheduled_moment_whenever_the_tick_comes() -> None:
    minutes = BlindStructure(
        "time",
        LevelUnit.MINUTES,
        tuple(BlindLevel(lv.small_blind, lv.big_blind, length=10) for lv in LEVELS),
    )
    sim = sng(6, 6, structure=minutes)
    (table,) = sim.s.tables
    assert sim.run(C.Tick(2.0 + 599.0)) == []
    events = sim.run(C.Tick(2.0 + 1300.0))  # two levels late: both happen, on schedule
    assert events == [E.LevelStarted(2, 602.0), E.LevelStarted(3, 1202.0)]
    events = bust(sim, table, [])
    assert of(events, E.HandReleased) == [E.HandReleased(table, 2, 3)]
