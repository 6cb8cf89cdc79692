"""Events and snapshots survive storage exactly; old event versions are upcast on load."""

from __future__ import annotations

import json

import pytest

from libs.poker.cards import DECK
from libs.poker.commands import DealHoleCards
from libs.table import TableConfig, TableState, codec, replay, step_table
from libs.table import commands as tc
from libs.table.commands import PlayerAction
from libs.table.events import Event, PlayerSeated


def _played_table() -> tuple[TableState, list[Event]]:
    state = TableState()
    events: list[Event] = []
    commands: list[tc.TableCommand] = [
        tc.OpenTable("t", TableConfig(seats=4, ante=1), 0.0),
        tc.SitDown("a", 0, 100),
        tc.SitDown("b", 1, 100),
        tc.SitDown("c", 3, 100),
        tc.StartHand("h1", "commit", 1.0),
        *(tc.Deal((DealHoleCards(p, (DECK[2 * p], DECK[2 * p + 1])),)) for p in range(3)),
    ]
    for command in commands:
        state, new = step_table(state, command)
        events += new
    actor = state.acting_seat()
    assert actor is not None
    state, new = step_table(state, tc.Act(state.seats[actor].player_id, PlayerAction.ALL_IN))
    events += new
    return state, events


def test_every_event_round_trips_exactly() -> None:
    _, events = _played_table()
    assert codec.loads(codec.dumps(events)) == events


def test_a_snapshot_round_trips_to_an_equal_state() -> None:
    state, events = _played_table()
    again = codec.state_loads(codec.state_dumps(state))
    assert again == state
    # and the table can go on from the snapshot exactly as from the events
    actor = state.acting_seat()
    assert actor is not None
    command = tc.Act(state.seats[actor].player_id, PlayerAction.FOLD)
    assert step_table(again, command)[1] == step_table(replay(events), command)[1]


def test_an_old_event_version_is_upcast_when_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pretend PlayerSeated v2 renamed ``stack`` to ``buy_in``-era data stored as v1."""
    monkeypatch.setitem(codec.SCHEMA_VERSIONS, "PlayerSeated", 2)
    monkeypatch.setitem(
        codec.UPCASTERS,
        ("PlayerSeated", 1),
        lambda d: {**{k: v for k, v in d.items() if k != "chips"}, "stack": d["chips"]},
    )
    old = {
        "type": "PlayerSeated",
        "v": 1,
        "data": {"seat": 2, "player_id": "p", "chips": 80, "waits_for_big_blind": False},
    }
    assert codec.decode(old) == PlayerSeated(2, "p", 80, waits_for_big_blind=False)


def test_unknown_or_newer_events_are_refused_clearly() -> None:
    with pytest.raises(codec.CodecError, match="unknown event type"):
        codec.decode({"type": "Nope", "v": 1, "data": {}})
    with pytest.raises(codec.CodecError, match="newer"):
        codec.decode({"type": "PlayerSeated", "v": 99, "data": {}})


def test_a_snapshot_keeps_the_idempotency_keys_of_the_latest_commits() -> None:
    state, _ = _played_table()
    keys: list[codec.SnapshotKey] = [("open", 1, 10.0), ("sit-a", 2, 11.5), ("h1:deal", 7, 12.0)]
    again, restored = codec.snapshot_loads(codec.snapshot_dumps(state, keys))
    assert again == state and restored == keys
    with pytest.raises(codec.CodecError):
        codec.snapshot_loads(b'{"v": 1}')


def test_a_state_copy_equals_a_deep_copy_and_shares_nothing_mutable() -> None:
    import copy

    state, _ = _played_table()
    state.revealed_seeds["h0"] = "seed"
    again = state.copy()
    assert again == copy.deepcopy(state)
    assert again.hand is not None and state.hand is not None
    again.seats[0].stack += 1
    again.hand.stacks[0] += 1
    again.revealed_seeds["h9"] = "x"
    again.seats.pop(1)
    assert state.seats[0].stack + 1 == again.seats[0].stack
    assert state.hand.stacks[0] + 1 == again.hand.stacks[0]
    assert "h9" not in state.revealed_seeds and 1 in state.seats


def test_a_version_1_snapshot_reads_its_keys_without_their_time() -> None:
    state, _ = _played_table()
    payload = json.loads(codec.snapshot_dumps(state, []))
    payload.update(v=1, keys=[["open", 1], ["sit-a", 2]])
    again, keys = codec.snapshot_loads(json.dumps(payload).encode())
    assert again == state and keys == [("open", 1, None), ("sit-a", 2, None)]


def test_the_compiled_converters_write_and_read_what_the_generic_codec_does() -> None:
    state, events = _played_table()
    state.revealed_seeds["h0"] = "seed"
    for event in events:
        compiled, generic = codec.encode(event), codec.generic_encode(event)
        assert json.dumps(compiled) == json.dumps(generic)
        stored = json.loads(json.dumps(generic))
        assert codec.decode(stored) == codec.decode(stored, generic=True) == event
    assert codec.state_loads(codec.state_dumps(state)) == state
    generic_state = json.dumps(codec._to_data(state), separators=(",", ":")).encode()
    assert codec.state_dumps(state) == generic_state


def test_data_without_a_field_added_since_builds_it_with_its_default() -> None:
    stored = {"seat": 2, "player_id": "p", "stack": 80, "waits_for_big_blind": False}
    record = {"type": "PlayerSeated", "v": 1, "data": stored}  # no posts_entry_bet, is_bot
    assert codec.decode(record) == codec.decode(record, generic=True)
    assert codec.decode(record) == PlayerSeated(2, "p", 80, waits_for_big_blind=False)


def test_malformed_event_data_is_a_codec_error() -> None:
    with pytest.raises(codec.CodecError):
        codec.decode({"type": "PlayerSeated", "v": 1, "data": {"seat": 2}})
    with pytest.raises(codec.CodecError):
        codec.decode({"type": "HoleCardsDealt", "v": 1, "data": {"player": 0, "cards": [99]}})
    with pytest.raises(codec.CodecError):
        codec.decode({"type": "PlayerSeated", "v": 1, "data": [1, 2]})
