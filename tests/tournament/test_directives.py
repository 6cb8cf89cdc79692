"""What the director does for each event: table commands and wallet credits, each with a key
derived from the event (a director that runs the same events again repeats nothing)."""

from __future__ import annotations

import random
from dataclasses import replace

from libs.tournament import commands as C
from libs.tournament import directives as D
from libs.tournament import events as E
from libs.tournament.config import RebuyRule, TournamentConfig, TournamentKind, heads_up
from libs.tournament.state import Status, players_left

from .sim import Sim
from .test_floor import at, bust, of, sng


def test_the_start_opens_seats_and_deals() -> None:
    sim = sng(7, 4)
    opened = [d for d in sim.keys.values() if isinstance(d, D.OpenTable)]
    seated = [d for d in sim.keys.values() if isinstance(d, D.SeatPlayer)]
    dealt = [d for d in sim.keys.values() if isinstance(d, D.DealHand)]
    assert sorted(d.table_id for d in opened) == ["T1-t1", "T1-t2"]
    assert {d.blinds.big_blind for d in opened} == {20} and {d.seats for d in opened} == {4}
    assert sorted(d.player_id for d in seated) == [f"p{i}" for i in range(7)]
    assert {d.stack for d in seated} == {1500}
    assert sorted(d.key for d in dealt) == ["T1:deal:T1-t1:1", "T1:deal:T1-t2:1"]


def test_a_release_carries_the_prizes_and_the_other_tables_stacks() -> None:
    """For the bots' prize equity (ICM): a field of seven at two tables releases every hand with
    the payouts of the places still to win and the stacks at the other table (the simulated
    world checks them against its tables at every release); at the final table no others."""
    sim = sng(7, 4)
    first = [d for d in sim.keys.values() if isinstance(d, D.DealHand)]
    shares = sim.s.cfg.payouts.shares_for(7)
    assert len(first) == 2 and all(d.payouts == shares[:7] for d in first)
    assert sorted(len(d.others) for d in first) == [3, 4]
    assert {sum(d.others) for d in first} <= {3 * 1500, 4 * 1500}
    sim.walk(random.Random(5))
    assert sim.s.status is Status.FINISHED
    final = [d for d in sim.prized if not d.others]
    assert final and all(len(d.payouts) <= 4 for d in final)
    assert any(d.others for d in sim.prized[2:])  # two tables after the first hands too


def test_a_big_field_is_told_the_prizes_only_hand_for_hand() -> None:
    """Above ``PRIZES_FIELD`` players a release tells nothing (the bots play chips), except in a
    hand-for-hand round (the bubble, every table waiting): then every other table's stacks."""
    sim = sng(30, 6)
    assert not sim.prized and players_left(sim.s) > D.PRIZES_FIELD
    table = sorted(sim.s.tables)[0]
    assert D.prizes_of(sim.s, table) == ((), ())
    payouts, others = D.prizes_of(replace(sim.s, hand_for_hand=True), table)
    assert payouts == sim.s.cfg.payouts.shares_for(30)[:30]
    assert len(others) == 30 - len(sim.s.tables[table].seats) and set(others) == {1500}


def test_a_bust_removes_the_player_and_a_move_names_both_tables() -> None:
    sim = sng(12, 6)
    a, b = sorted(sim.s.tables)
    loser = at(sim, a, 0)
    before = sim.s
    events = bust(sim, a, [loser, at(sim, a, 1)])
    placed = of(events, E.PlayersPlaced)[0]
    assert D.directives(before, placed) == [
        D.RemovePlayer(a, p.player_id, f"T1:remove:{p.player_id}") for p in placed.placings
    ]
    before = sim.s
    (move,) = of(bust(sim, b, []), E.MoveOrdered)
    (directive,) = D.directives(before, move)
    assert directive == D.MovePlayer(
        move.move_id, move.player_id, b, a, move.to_seat, f"T1:move:{move.move_id}"
    )


def test_chips_bought_during_a_move_go_to_the_destination() -> None:
    config = TournamentConfig(
        "d",
        TournamentKind.SIT_AND_GO,
        max_entrants=12,
        seats_per_table=6,
        rebuy=RebuyRule(chips=500, cost=10, last_level=3),
    )
    sim = Sim(config)
    for i in range(12):
        sim.run(C.Register(f"p{i}", f"k{i}", 1.0))
    sim.run(C.Start("seed", 2.0))
    a, b = sorted(sim.s.tables)
    bust(sim, a, [at(sim, a, 0), at(sim, a, 1)])
    for p in list(sim.s.entrants):
        if sim.s.entrants[p].bust is not None:
            sim.run(C.DeclineRebuy(p, sim.now))
    sim.report(a)  # a dealt on while they decided: now it is short and held
    (move,) = of(bust(sim, b, []), E.MoveOrdered)
    before = sim.s
    (bought,) = of(sim.run(C.Rebuy(move.player_id, "r1", sim.now)), E.RebuyBought)
    assert D.directives(before, bought) == [D.AddChips(a, move.player_id, 500, "T1:chips:r1")]


def test_payments_are_credited_by_their_keys() -> None:
    sim = Sim(heads_up("hu", buy_in=30))
    sim.run(C.Register("p0", "k0", 1.0))
    sim.run(C.Register("p1", "k1", 1.0))
    sim.run(C.Start("seed", 2.0))
    sim.walk(random.Random(1))
    assert sim.s.status is Status.FINISHED
    assert sim.credits == {f"T1:prize:{sim.s.winner}": 60}
