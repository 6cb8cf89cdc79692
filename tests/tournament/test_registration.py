"""Registration, unregistration, the start and cancellation: wallet-saga steps decided once per
key, refunds owed exactly once, and every refusal leaving the state as it was."""

from __future__ import annotations

from dataclasses import replace

import pytest

from libs.errors import AlreadyExists, DomainError, InvalidArgument, NotFound, PreconditionFailed
from libs.tournament import commands as C
from libs.tournament import decide
from libs.tournament import errors as TE
from libs.tournament import events as E
from libs.tournament.config import TournamentConfig, TournamentKind
from libs.tournament.state import Status, TournamentState, initial
from libs.tournament.structure import LevelUnit, preset

from .sim import Sim

SNG = TournamentConfig("sng", TournamentKind.SIT_AND_GO, max_entrants=6, buy_in=100)
MTT = TournamentConfig(
    "mtt",
    TournamentKind.SCHEDULED,
    min_entrants=3,
    max_entrants=30,
    start_at=1000.0,
    late_registration_levels=2,
    buy_in=50,
    fee=5,
    structure=preset("turbo", LevelUnit.HANDS),
)


def refused(state: TournamentState, command: C.Command, kind: type[DomainError], code: str) -> str:
    """``command`` is refused with ``kind``/``code`` and decides nothing."""
    with pytest.raises(kind) as caught:
        decide(state, command)
    assert caught.value.code == code
    return caught.value.message


def registered(config: TournamentConfig, n: int) -> Sim:
    sim = Sim(config)
    for i in range(n):
        sim.run(C.Register(f"p{i}", f"k{i}", 1.0))
    return sim


def test_an_unknown_tournament_is_not_found() -> None:
    refused(initial("nope"), C.Register("p", "k", 1.0), NotFound, TE.TOURNAMENT_NOT_FOUND)
    refused(initial("nope"), C.Start("seed", 1.0), NotFound, TE.TOURNAMENT_NOT_FOUND)


def test_creating_again_is_a_retry_and_another_config_is_refused() -> None:
    sim = Sim(SNG)
    assert decide(sim.s, C.CreateTournament("T1", SNG, "director", 5.0)) == []
    other = replace(SNG, buy_in=7)
    refused(
        sim.s, C.CreateTournament("T1", other, "director", 5.0), AlreadyExists, TE.ALREADY_CREATED
    )


def test_an_impossible_config_is_not_created() -> None:
    bad = replace(SNG, starting_stack=5)
    refused(
        initial("T"),
        C.CreateTournament("T", bad, "d", 0.0),
        InvalidArgument,
        TE.INVALID_TOURNAMENT_CONFIG,
    )


def test_a_registration_pays_into_the_pool_and_its_retry_decides_nothing() -> None:
    sim = registered(MTT, 1)
    entrant = sim.s.entrants["p0"]
    assert (entrant.entry, entrant.paid, sim.s.prize_pool) == (1, 55, 50)  # the fee is the house's
    assert decide(sim.s, C.Register("p0", "k0", 2.0)) == []


def test_a_double_registration_is_refused() -> None:
    sim = registered(SNG, 1)
    refused(sim.s, C.Register("p0", "another-key", 2.0), AlreadyExists, TE.ALREADY_REGISTERED)


def test_a_key_used_for_another_player_is_refused() -> None:
    sim = registered(SNG, 1)
    refused(sim.s, C.Register("p1", "k0", 2.0), InvalidArgument, TE.INVALID_COMMAND)


def test_a_full_sit_and_go_takes_no_more_entries() -> None:
    sim = registered(SNG, 6)
    refused(sim.s, C.Register("p6", "k6", 2.0), PreconditionFailed, TE.TOURNAMENT_FULL)


def test_a_bot_names_its_level() -> None:
    sim = Sim(SNG)
    refused(sim.s, C.Register("b", "kb", 1.0, is_bot=True), InvalidArgument, TE.INVALID_COMMAND)
    refused(
        sim.s,
        C.Register("b", "kb", 1.0, is_bot=True, bot_level="godlike"),
        InvalidArgument,
        TE.INVALID_COMMAND,
    )
    sim.run(C.Register("b", "kb", 1.0, is_bot=True, bot_level="hard"))
    assert sim.s.entrants["b"].bot_level == "hard"


def test_an_unregistration_owes_the_entry_back_once() -> None:
    sim = registered(MTT, 2)
    events = sim.run(C.Unregister("p0", "u0", 2.0))
    (gone,) = events
    assert isinstance(gone, E.PlayerUnregistered) and gone.refund is not None
    assert (gone.refund.player_id, gone.refund.amount) == ("p0", 55)
    assert gone.refund.key == "T1:refund:k0"
    assert "p0" not in sim.s.entrants and sim.s.prize_pool == 50
    assert sim.credits == {"T1:refund:k0": 55}
    assert decide(sim.s, C.Unregister("p0", "u0", 3.0)) == []  # a retry
    sim.settle_payments()
    assert decide(sim.s, C.SettlePayment("T1:refund:k0", 4.0)) == []
    refused(sim.s, C.SettlePayment("T1:refund:zz", 4.0), NotFound, TE.PAYMENT_NOT_FOUND)
    refused(sim.s, C.Unregister("p0", "u1", 3.0), NotFound, TE.NOT_REGISTERED)


def test_a_free_entry_owes_nothing_back() -> None:
    sim = registered(replace(SNG, buy_in=0), 1)
    (gone,) = sim.run(C.Unregister("p0", "u0", 2.0))
    assert isinstance(gone, E.PlayerUnregistered) and gone.refund is None and not sim.s.payments


def test_a_sit_and_go_starts_only_when_full() -> None:
    sim = registered(SNG, 5)
    refused(sim.s, C.Start("seed", 2.0), PreconditionFailed, TE.NOT_FULL)
    sim.run(C.Register("p5", "k5", 2.0))
    sim.run(C.Start("seed", 3.0))
    assert sim.s.status is Status.RUNNING and len(sim.tables) == 1
    refused(sim.s, C.Start("seed", 4.0), PreconditionFailed, TE.ALREADY_STARTED)
    refused(sim.s, C.Register("late", "kl", 4.0), PreconditionFailed, TE.REGISTRATION_CLOSED)
    refused(sim.s, C.Unregister("p0", "u0", 4.0), PreconditionFailed, TE.UNREGISTRATION_CLOSED)


def test_a_scheduled_start_waits_for_its_time() -> None:
    sim = registered(MTT, 3)
    refused(sim.s, C.Start("seed", 999.0), PreconditionFailed, TE.NOT_TIME_YET)
    sim.run(C.Start("seed", 1000.0))
    assert sim.s.status is Status.RUNNING


def test_too_few_entrants_at_the_start_cancel_it_and_refund_each_once() -> None:
    sim = registered(MTT, 2)
    (cancelled,) = sim.run(C.Start("seed", 1000.0))
    assert isinstance(cancelled, E.TournamentCancelled)
    assert sorted((p.player_id, p.amount) for p in cancelled.refunds) == [("p0", 55), ("p1", 55)]
    assert sim.s.status is Status.CANCELLED
    sim.settle_payments()
    assert sum(sim.credits.values()) == 110 and not sim.s.payments
    refused(sim.s, C.Register("p9", "k9", 1001.0), PreconditionFailed, TE.TOURNAMENT_OVER)


def test_late_registration_seats_at_the_smallest_table_until_its_level_ends() -> None:
    sim = registered(MTT, 20)
    sim.run(C.Start("seed", 1000.0))
    sizes = sorted(len(t.seats) for t in sim.s.tables.values())
    sim.run(C.Register("late", "kl", 1001.0))
    late = sim.s.entrants["late"]
    assert late.table_id and late.stack == MTT.starting_stack
    assert len(sim.s.tables[late.table_id].seats) == sizes[0] + 1
    assert sim.s.prize_pool == 21 * 50
    while sim.s.level <= MTT.late_registration_levels:  # levels by hands: play them out
        for table in [t for t, w in sim.tables.items() if w.hand]:
            sim.report(table)
    refused(
        sim.s, C.Register("later", "k-later", 1002.0), PreconditionFailed, TE.REGISTRATION_CLOSED
    )


def test_a_late_entry_opens_a_table_when_every_seat_is_taken() -> None:
    sim = registered(replace(MTT, seats_per_table=2), 4)
    sim.run(C.Start("seed", 1000.0))
    events = sim.run(C.Register("late", "kl", 1001.0))
    opened = [e for e in events if isinstance(e, E.TableOpened)]
    assert [e.table_id for e in opened] == ["T1-t3"]
    assert sim.s.entrants["late"].table_id == "T1-t3"


def test_a_cancelled_tournament_refunds_everything_each_paid_once() -> None:
    sim = registered(SNG, 6)
    sim.run(C.Start("seed", 2.0))
    events = sim.run(C.Cancel("server maintenance", 3.0))
    assert [type(e) for e in events] == [E.TableClosed, E.TournamentCancelled]
    sim.settle_payments()
    assert sim.credits == {f"T1:refund:k{i}": 100 for i in range(6)}
    assert decide(sim.s, C.Cancel("again", 4.0)) == []
    assert not sim.tables


def test_a_refused_command_changes_nothing() -> None:
    sim = registered(SNG, 6)
    before = sim.s
    for command in (
        C.Register("p0", "kx", 2.0),
        C.Unregister("nobody", "u", 2.0),
        C.Start("", 2.0),
        C.Cancel("", 2.0),
        C.Register("p7", "k7", -1.0),
    ):
        with pytest.raises(DomainError):
            decide(sim.s, command)
    assert sim.s is before and sim.s == before


def test_a_late_entry_moves_everyone_already_out_one_place_down() -> None:
    sim = registered(replace(MTT, seats_per_table=6), 6)
    sim.run(C.Start("seed", 1000.0))
    (table,) = sim.s.tables
    start = sim.tables[table].start
    loser, winner = sorted(start)[:2]
    sim.report(table, {loser: 0, winner: start[winner] + start[loser]})
    assert sim.s.entrants[loser].place == 6
    sim.run(C.Register("late", "kl", 1001.0))
    assert sim.s.entrants[loser].place == 7
