"""A table knows who was ever dealt into one of its hands (``TableState.dealt_players``), so a
history asked for anybody else is empty without reading the stream (services/table/server.py):
set from each HandBegan, kept through closing, snapshots and replays; bounded (past
``MAX_DEALT_PLAYERS`` it says "unknown", None, as does a snapshot from before it was kept)."""

from __future__ import annotations

import json

from libs.table import TableState, apply, codec, replay
from libs.table import commands as tc
from libs.table.decide import step_table
from libs.table.events import Event, HandBegan
from libs.table.state import MAX_DEALT_PLAYERS
from tests.history.tables import PLAYERS, play


def _events(hands: int) -> list[Event]:
    return [event for _, _, events in play(hands, seed=3) for event in events]


def test_the_players_dealt_in_are_kept_and_nobody_else() -> None:
    state = replay(_events(4))
    assert set(state.dealt_players or ()) == set(PLAYERS)
    assert len(state.dealt_players or ()) == len(PLAYERS)  # each once
    state, _ = step_table(state, tc.SitDown("dave", 4, 200))  # seated, never dealt
    assert "dave" not in (state.dealt_players or ())
    state, _ = step_table(state, tc.Leave("alice", 9.0))  # gone, but was dealt in
    state, _ = step_table(state, tc.CloseTable("closed", 10.0))
    assert state.closed and set(state.dealt_players or ()) == set(PLAYERS)


def test_a_table_never_dealt_knows_it_and_an_unopened_one_does_not() -> None:
    assert TableState().dealt_players is None
    opened = replay(_events(1)[:2])
    assert opened.config is not None and opened.dealt_players == ()


def test_snapshots_and_replays_keep_them_and_old_snapshots_read_as_unknown() -> None:
    events = _events(3)
    state = replay(events)
    again, _ = codec.snapshot_loads(codec.snapshot_dumps(state, []))
    assert again.dealt_players == state.dealt_players
    # snapshot halfway, then the rest of the stream: the same as a full replay
    half = len(events) // 2
    tail = codec.snapshot_loads(codec.snapshot_dumps(replay(events[:half]), []))[0]
    for event in events[half:]:
        apply(tail, event)
    assert tail.dealt_players == state.dealt_players
    # a snapshot written before the field was kept
    data = json.loads(codec.snapshot_dumps(state, []))
    del data["state"]["dealt_players"]
    old, _ = codec.snapshot_loads(json.dumps(data).encode())
    assert old.dealt_players is None
    assert old == TableState(**{**state.__dict__, "dealt_players": None})


def test_past_the_bound_the_table_no_longer_says_who_was_dealt() -> None:
    events = _events(2)
    last_hand = max(i for i, e in enumerate(events) if isinstance(e, HandBegan))
    for room, expected_known in ((len(PLAYERS), True), (len(PLAYERS) - 1, False)):
        state = replay(events[:last_hand])
        others = tuple(f"x{i}" for i in range(MAX_DEALT_PLAYERS - room))
        state.dealt_players = others
        state.hand_players = ()
        for event in events[last_hand:]:
            apply(state, event)
        if expected_known:
            assert state.dealt_players is not None
            assert len(state.dealt_players) == MAX_DEALT_PLAYERS
        else:
            assert state.dealt_players is None  # unknown for good: histories read the stream
