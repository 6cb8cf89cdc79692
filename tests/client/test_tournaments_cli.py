"""What ``holdem tournaments`` prints (libs/cli/tournaments.py; its lines are
libs/client/tournament_text.py's): the clock line, the field, the player's seat and a move, the
standings; and the arguments it refuses before connecting. Over real services:
tests/gateway/test_gateway_tournaments.py."""

from __future__ import annotations

import pytest
from holdem.gateway.v1 import gateway_pb2
from holdem.tournament.v1 import tournament_pb2 as tpb

from libs.cli.main import main
from libs.client.tournament_text import (
    clock_line,
    seat_line,
    show_lines,
    summary_line,
    update_line,
)


def _summary(**fields: object) -> tpb.TournamentSummary:
    clock = tpb.TournamentClock(
        level=3, small_blind=20, big_blind=40, ante=5, next_change="level", seconds_left=94.6
    )
    base: dict[str, object] = {
        "tournament_id": "T1",
        "name": "Sunday",
        "status": "running",
        "entrants": 9,
        "max_entrants": 9,
        "players_left": 7,
        "average_stack": 1928,
        "largest_stack": 3120,
        "prize_pool": 900,
        "prizes": [450, 270, 180],
        "buy_in": 100,
        "clock": clock,
    }
    return tpb.TournamentSummary(**{**base, **fields})  # type: ignore[arg-type]


def test_the_clock_says_the_level_blinds_ante_and_what_comes_next() -> None:
    assert clock_line(_summary()) == "level 3  blinds 20/40 ante 5  level in 94 s"
    on_break = _summary(
        clock=tpb.TournamentClock(
            level=4,
            small_blind=25,
            big_blind=50,
            on_break=True,
            next_change="break end",
            seconds_left=30,
        )
    )
    assert "ON BREAK" in clock_line(on_break) and "break end in 30 s" in clock_line(on_break)
    waiting = tpb.TournamentSummary(status="registering", entrants=2, max_entrants=6)
    assert clock_line(waiting) == "registering: 2/6 registered"
    assert "not started" in summary_line(waiting)


def test_an_update_shows_the_field_and_the_player_s_seat_and_a_move() -> None:
    me = gateway_pb2.TournamentSeat(
        registered=True, table_id="t2", seat=3, stack=2210, moved_from_table_id="t1"
    )
    line = update_line(gateway_pb2.TournamentUpdate(tournament=_summary(), me=me))
    assert "7 of 9 left  average 1928  largest 3120  pool 900" in line
    assert "prizes 1: 450, 2: 270, 3: 180" in line
    assert line.endswith("you: table t2 seat 4 stack 2210  MOVED from t1")
    out = gateway_pb2.TournamentSeat(registered=True, place=2, prize=270)
    assert seat_line(out) == "you: finished 2, prize 270"
    assert seat_line(gateway_pb2.TournamentSeat()) == "you: not registered"


def test_show_lists_every_standing() -> None:
    tournament = tpb.Tournament(
        summary=_summary(),
        standings=[
            tpb.Standing(player_id="ann", stack=3120, table_id="t1", seat=0),
            tpb.Standing(player_id="bot7", is_bot=True, place=8, prize=0),
        ],
    )
    lines = show_lines(tournament)
    assert lines[3] == "standings:"
    assert lines[4] == "  ann  3120  table t1 seat 1"
    assert lines[5] == "  bot7 (AI)  0  place 8"


def test_an_action_on_one_tournament_needs_its_id(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournaments", "watch", "--gateway", "127.0.0.1:1"]) == 2
    assert "needs a tournament id" in capsys.readouterr().err
