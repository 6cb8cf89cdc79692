"""Eliminations, places and prizes; rebuys and the add-on. Busts of one hand rank by the stacks
they began it with, equal stacks tie and split the prizes of the places they share (the odd
chips in registration order); every entrant ends with one place; the prizes add up to the
pool, paid once each."""

from __future__ import annotations

from dataclasses import replace

from libs.errors import PreconditionFailed
from libs.tournament import commands as C
from libs.tournament import decide
from libs.tournament import errors as TE
from libs.tournament import events as E
from libs.tournament.config import AddOnRule, RebuyRule, TournamentConfig, TournamentKind
from libs.tournament.payouts import PayoutTable, PayoutTier, from_percentages
from libs.tournament.ranking import rank
from libs.tournament.state import Bust, Entrant, Status
from libs.tournament.structure import BlindLevel, BlindStructure, LevelUnit

from .sim import Sim
from .test_floor import at, bust, of
from .test_registration import refused

LEVELS = BlindStructure(
    "elim",
    LevelUnit.HANDS,
    (
        BlindLevel(10, 20, length=3),
        BlindLevel(20, 40, length=3, break_minutes=5),
        BlindLevel(30, 60, length=3),
    ),
)
FIVE = TournamentConfig(
    "elim",
    TournamentKind.SIT_AND_GO,
    max_entrants=5,
    seats_per_table=6,
    buy_in=101,
    structure=LEVELS,
    payouts=PayoutTable((PayoutTier(10, from_percentages([50, 30, 20])),)),
)


def started(config: TournamentConfig = FIVE) -> tuple[Sim, str]:
    sim = Sim(config)
    for i in range(config.max_entrants):
        sim.run(C.Register(f"p{i}", f"k{i}", 1.0))
    sim.run(C.Start("elim-seed", 2.0))
    (table,) = sim.s.tables
    return sim, table


def entrant(pid: str, entry: int, order: int, stack: int) -> Entrant:
    return Entrant(pid, entry, pid, False, "", 0, bust=Bust("t", stack, order, None, False))


def test_busts_of_one_hand_rank_by_starting_stack_and_equal_stacks_tie() -> None:
    busts = [entrant("a", 1, 7, 500), entrant("b", 2, 7, 900), entrant("c", 3, 7, 500)]
    assert rank(busts, 10) == (E.Placing("a", 9, 2), E.Placing("c", 9, 2), E.Placing("b", 8))


def test_a_later_bust_ranks_above_an_earlier_one_whatever_the_stacks() -> None:
    busts = [entrant("early", 1, 3, 5000), entrant("late", 2, 4, 10)]
    assert rank(busts, 6) == (E.Placing("early", 6), E.Placing("late", 5))


def test_a_tie_across_a_paid_place_splits_it_with_the_odd_chip_to_the_first_entry() -> None:
    sim, table = started()
    seats = sorted(sim.s.tables[table].seats)
    first, second, third = (at(sim, table, seat) for seat in seats[:3])
    bust(sim, table, [third, at(sim, table, seats[3])], winner=at(sim, table, seats[4]))
    assert sim.tables[table].start[first] == sim.tables[table].start[second] == 1500
    events = bust(sim, table, [first, second])  # equal stacks: they share 2nd and 3rd
    placed = next(e for e in events if isinstance(e, E.PlayersPlaced) and e.placings[0].tied > 1)
    assert {p.player_id: (p.place, p.tied) for p in placed.placings} == {
        first: (2, 2),
        second: (2, 2),
    }
    (awarded,) = of(events, E.PrizesAwarded)
    assert isinstance(awarded, E.PrizesAwarded)
    pool = 5 * 101  # 505: 50 % 252 (+1 remainder) = 253, 30 % 151, 20 % 101
    assert awarded.prize_pool == pool
    by_player = {p.player_id: p.amount for p in awarded.prizes}
    early, late = sorted([first, second], key=lambda p: sim.s.entrants[p].entry)
    assert (by_player[early], by_player[late]) == (126, 126)  # 151 + 101 = 252 split evenly
    assert sum(by_player.values()) == pool
    assert sim.s.status is Status.FINISHED
    sim.settle_payments()
    sim.check_final()


def test_an_odd_split_gives_the_extra_chip_to_the_earlier_entry() -> None:
    sim, table = started(replace(FIVE, buy_in=100))  # pool 500: 250, 150, 100 -> 250 shared
    seats = sorted(sim.s.tables[table].seats)
    bust(
        sim,
        table,
        [at(sim, table, seats[2]), at(sim, table, seats[3])],
        winner=at(sim, table, seats[4]),
    )
    first, second = at(sim, table, seats[0]), at(sim, table, seats[1])
    events = bust(sim, table, [first, second])
    (awarded,) = of(events, E.PrizesAwarded)
    amounts = sorted(
        (sim.s.entrants[p.player_id].entry, p.amount) for p in awarded.prizes if p.place == 2
    )
    assert [a for _, a in amounts] == [125, 125]
    sim2, table2 = started(
        replace(
            FIVE, buy_in=101, payouts=PayoutTable((PayoutTier(10, from_percentages([60, 25, 15])),))
        )
    )
    seats = sorted(sim2.s.tables[table2].seats)
    bust(
        sim2,
        table2,
        [at(sim2, table2, seats[2]), at(sim2, table2, seats[3])],
        winner=at(sim2, table2, seats[4]),
    )
    first, second = at(sim2, table2, seats[0]), at(sim2, table2, seats[1])
    events = bust(sim2, table2, [first, second])
    (awarded,) = of(events, E.PrizesAwarded)
    # 505: 15 % = 75, 25 % = 126: 201 shared -> 101 to the earlier entry, 100 to the later
    shared = sorted(
        (sim2.s.entrants[p.player_id].entry, p.amount) for p in awarded.prizes if p.place == 2
    )
    assert [a for _, a in shared] == [101, 100]


REBUYS = replace(
    FIVE,
    rebuy=RebuyRule(chips=1000, cost=50, last_level=1, max_rebuys=1, decision_seconds=30.0),
    add_on=AddOnRule(chips=2000, cost=60, after_level=2),
)


def test_a_bust_in_the_rebuy_period_waits_for_the_decision_and_a_rebuy_plays_on() -> None:
    sim, table = started(REBUYS)
    loser = at(sim, table, sorted(sim.s.tables[table].seats)[0])
    events = bust(sim, table, [loser])
    (busted,) = of(events, E.PlayerBusted)
    assert busted.rebuy_until == sim.now + 30.0
    assert not of(events, E.PlayersPlaced)
    sim.run(C.Rebuy(loser, "r1", sim.now))
    assert sim.s.entrants[loser].stack == 1000 and sim.s.prize_pool == 5 * 101 + 50
    assert decide(sim.s, C.Rebuy(loser, "r1", sim.now)) == []  # the saga's retry
    sim.report(table)  # the hand dealt while they were out; the next deals them in
    events = bust(sim, table, [loser])  # out again: no rebuy left
    (busted,) = of(events, E.PlayerBusted)
    assert busted.rebuy_until is None
    (placed,) = of(events, E.PlayersPlaced)
    assert placed.placings == (E.Placing(loser, 5),)


def test_a_declined_or_expired_rebuy_eliminates_in_the_order_of_the_busts() -> None:
    sim, table = started(REBUYS)
    seats = sorted(sim.s.tables[table].seats)
    one, two = at(sim, table, seats[0]), at(sim, table, seats[1])
    bust(sim, table, [one, two])  # equal stacks: they tie whoever decides first
    assert not of(sim.run(C.DeclineRebuy(one, sim.now)), E.PlayersPlaced)  # waits for two
    assert sim.run(C.Tick(sim.now + 29.0)) == []
    (placed,) = of(sim.run(C.Tick(sim.now + 30.0)), E.PlayersPlaced)
    assert placed.placings == (E.Placing(one, 4, 2), E.Placing(two, 4, 2))


def test_a_later_bust_waits_for_an_earlier_one_still_deciding() -> None:
    rule = RebuyRule(chips=1000, cost=50, last_level=3, max_rebuys=1, decision_seconds=30.0)
    sim, table = started(replace(REBUYS, rebuy=rule))
    seats = sorted(sim.s.tables[table].seats)
    early, late = at(sim, table, seats[0]), at(sim, table, seats[1])
    bust(sim, table, [early])
    sim.run(C.Rebuy(late, "r-late", sim.now))  # at 1500: allowed; the last one they have
    sim.report(table)
    events = bust(sim, table, [late])  # late has no rebuy left: out, but after early
    assert of(events, E.PlayerBusted)[0].rebuy_until is None
    assert not of(events, E.PlayersPlaced)
    (placed,) = of(sim.run(C.DeclineRebuy(early, sim.now)), E.PlayersPlaced)
    assert placed.placings == (E.Placing(early, 5), E.Placing(late, 4))


def test_rebuys_outside_their_period_or_above_the_threshold_are_refused() -> None:
    sim, table = started(REBUYS)
    winner, short, other = sorted(sim.tables[table].start)[:3]
    sim.report(table, {winner: 1500 + 300, short: 1200})
    before = sim.s
    refused(sim.s, C.Rebuy(winner, "r1", 3.0), PreconditionFailed, TE.REBUY_NOT_ALLOWED)
    assert sim.s == before
    sim.run(C.Rebuy(short, "r2", 3.0))  # 1200: at most the starting stack
    refused(sim.s, C.Rebuy(short, "r3", 3.0), PreconditionFailed, TE.REBUY_NOT_ALLOWED)  # 1 each
    while sim.s.level == 1:
        sim.report(table)
    refused(sim.s, C.Rebuy(other, "r4", 3.0), PreconditionFailed, TE.REBUY_CLOSED)
    freezeout, _ = started()
    refused(freezeout.s, C.Rebuy("p0", "r", 3.0), PreconditionFailed, TE.REBUY_CLOSED)


def test_the_add_on_is_sold_once_in_the_break_after_its_level() -> None:
    sim, table = started(REBUYS)
    player = at(sim, table, sorted(sim.s.tables[table].seats)[0])
    refused(sim.s, C.AddOn(player, "a1", 3.0), PreconditionFailed, TE.ADD_ON_CLOSED)
    while not sim.s.on_break:
        sim.report(table)
    before = sim.s.entrants[player].stack
    sim.run(C.AddOn(player, "a1", sim.now))
    assert sim.s.entrants[player].stack == before + 2000
    assert sim.tables[table].seats[sim.s.entrants[player].seat].stack == before + 2000
    refused(sim.s, C.AddOn(player, "a2", sim.now), PreconditionFailed, TE.ADD_ON_TAKEN)
    sim.run(C.Tick(sim.now + 300.0))
    other = next(p for p in sim.s.entrants if p != player)
    refused(sim.s, C.AddOn(other, "a3", sim.now + 300.0), PreconditionFailed, TE.ADD_ON_CLOSED)


def test_an_eliminated_player_buys_nothing() -> None:
    sim, table = started(REBUYS)
    loser = at(sim, table, sorted(sim.s.tables[table].seats)[0])
    bust(sim, table, [loser])
    sim.run(C.DeclineRebuy(loser, sim.now))
    refused(sim.s, C.Rebuy(loser, "r", sim.now), PreconditionFailed, TE.PLAYER_ELIMINATED)
    refused(sim.s, C.DeclineRebuy(loser, sim.now), PreconditionFailed, TE.PLAYER_ELIMINATED)


def test_the_prizes_are_paid_once_and_add_up_to_the_pool() -> None:
    sim, table = started(REBUYS)
    seats = sorted(sim.s.tables[table].seats)
    players = [at(sim, table, s) for s in seats]
    sim.run(C.Rebuy(players[0], "r0", 3.0))  # 1500 <= 1500: a rebuy at the starting stack
    for loser in players[1:]:
        events = bust(sim, table, [loser])
        if of(events, E.PlayerBusted) and sim.s.entrants[loser].place == 0:
            sim.run(C.DeclineRebuy(loser, sim.now))
    assert sim.s.status is Status.FINISHED and sim.s.winner == players[0]
    sim.settle_payments()
    sim.check_final()
    assert sum(sim.credits.values()) == 5 * 101 + 50
