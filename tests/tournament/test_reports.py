"""What the director reports is checked before anything is recorded: the hand must be the one
released at that table, name only its players, and create no chip; a repeated report, move or
payment decides nothing; unknown ids are NOT_FOUND. A refusal leaves the state as it was."""

from __future__ import annotations

from libs.errors import InvalidArgument, NotFound, PreconditionFailed
from libs.tournament import commands as C
from libs.tournament import decide
from libs.tournament import errors as TE
from libs.tournament import events as E

from .test_floor import at, bust, sng
from .test_registration import SNG, refused, registered


def results(start: dict[str, int], **ends: int) -> tuple[E.HandResult, ...]:
    return tuple(E.HandResult(p, start[p], ends.get(p, start[p])) for p in sorted(start))


def test_a_result_that_creates_chips_is_refused_and_changes_nothing() -> None:
    sim = sng(6, 6)
    (table,) = sim.s.tables
    start = sim.tables[table].start
    first = sorted(start)[0]
    before = sim.s
    hand = sim.s.tables[table].hand
    command = C.ReportHand(table, hand, results(start, **{first: start[first] + 1}), 0, 5.0)
    msg = refused(sim.s, command, InvalidArgument, TE.CHIPS_NOT_CONSERVED)
    assert "began with 9000 chips and ended with 9001" in msg
    assert sim.s == before


def test_a_result_naming_a_player_of_another_table_is_refused() -> None:
    sim = sng(12, 6)
    a, b = sorted(sim.s.tables)
    start = dict(sim.tables[a].start)
    stranger = at(sim, b, 0)
    start[stranger] = 1500
    command = C.ReportHand(a, sim.s.tables[a].hand, results(start), 0, 5.0)
    refused(sim.s, command, InvalidArgument, TE.NOT_AT_TABLE)


def test_malformed_results_are_refused() -> None:
    sim = sng(6, 6)
    (table,) = sim.s.tables
    start = sim.tables[table].start
    hand = sim.s.tables[table].hand
    one = sorted(start)[0]
    for bad in (
        (E.HandResult(one, 1500, 1500),),  # one player is no hand
        (E.HandResult(one, 1500, 1500), E.HandResult(one, 1500, 1500)),
        (E.HandResult(one, 0, 0), E.HandResult(sorted(start)[1], 1500, 1500)),
    ):
        refused(
            sim.s, C.ReportHand(table, hand, bad, 0, 5.0), InvalidArgument, TE.INVALID_HAND_RESULT
        )
    refused(
        sim.s,
        C.ReportHand(table, hand, results(start), 6, 5.0),
        InvalidArgument,
        TE.INVALID_HAND_RESULT,
    )


def test_a_hand_not_released_is_refused_and_a_repeated_report_decides_nothing() -> None:
    sim = sng(6, 6)
    (table,) = sim.s.tables
    start = dict(sim.tables[table].start)
    hand = sim.s.tables[table].hand
    refused(
        sim.s,
        C.ReportHand(table, hand + 1, results(start), 0, 5.0),
        PreconditionFailed,
        TE.HAND_NOT_RELEASED,
    )
    sim.report(table)
    assert decide(sim.s, C.ReportHand(table, hand, results(start), 0, 6.0)) == []


def test_unknown_ids_are_not_found() -> None:
    sim = sng(6, 6)
    (table,) = sim.s.tables
    start = sim.tables[table].start
    refused(sim.s, C.ReportHand("T1-t9", 1, results(start), 0, 5.0), NotFound, TE.TABLE_NOT_FOUND)
    refused(sim.s, C.CompleteMove("T1-m1", 5.0), NotFound, TE.MOVE_NOT_FOUND)
    refused(sim.s, C.Rebuy("ghost", "r", 5.0), PreconditionFailed, TE.REBUY_CLOSED)  # freezeout
    refused(sim.s, C.DeclineRebuy("ghost", 5.0), NotFound, TE.NOT_REGISTERED)
    refused(sim.s, C.SettlePayment("T1:prize:ghost", 5.0), NotFound, TE.PAYMENT_NOT_FOUND)


def test_a_completed_move_reported_again_decides_nothing() -> None:
    sim = sng(12, 6)
    a, b = sorted(sim.s.tables)
    bust(sim, a, [at(sim, a, 0), at(sim, a, 1)])
    bust(sim, b, [])
    (move,) = sim.s.moves
    sim.run(C.CompleteMove(move, 9.0))
    assert decide(sim.s, C.CompleteMove(move, 10.0)) == []


def test_a_report_of_a_table_closed_since_decides_nothing() -> None:
    sim = sng(12, 6)
    a, b = sorted(sim.s.tables)
    bust(sim, a, [at(sim, a, s) for s in (0, 1, 2)])
    start_b, hand_b = dict(sim.tables[b].start), sim.s.tables[b].hand
    bust(sim, b, [at(sim, b, s) for s in (0, 1, 2)])
    while sim.s.moves:
        sim.run(C.CompleteMove(next(iter(sim.s.moves)), 9.0))
    assert b not in sim.s.tables
    assert decide(sim.s, C.ReportHand(b, hand_b, results(start_b), 0, 10.0)) == []


def test_play_before_the_start_is_refused() -> None:
    sim = registered(SNG, 3)
    hand = (E.HandResult("p0", 1500, 1500), E.HandResult("p1", 1500, 1500))
    refused(sim.s, C.ReportHand("T1-t1", 1, hand, 0, 1.0), PreconditionFailed, TE.NOT_STARTED)
    refused(sim.s, C.DeclineRebuy("p0", 1.0), PreconditionFailed, TE.NOT_STARTED)
