"""Events and snapshots survive storage exactly; old event versions are upcast on load."""

from __future__ import annotations

import json
import math

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


def test_a_snapshot_keeps_bot_levels_and_the_hands_public_history() -> None:
    from libs.table import BotDifficulty

    state = TableState()
    for command in (
        tc.OpenTable("t", TableConfig(seats=4), 0.0),
        tc.SitDown("easy", 0, 100, is_bot=True, bot_difficulty=BotDifficulty.EASY),
        tc.SitDown("bot", 1, 100, is_bot=True),
        tc.SitDown("human", 2, 100),
        tc.StartHand("h1", "commit", 1.0),
    ):
        state, _ = step_table(state, command)
    assert [s.bot_difficulty for s in state.seats.values()] == [
        BotDifficulty.EASY,
        BotDifficulty.NORMAL,  # a bot seated without a level plays Normal
        None,
    ]
    assert len(state.actions) == 2  # the blinds
    again = codec.state_loads(codec.state_dumps(state))
    assert again == state and again.actions == state.actions
    _, keys = codec.snapshot_loads(codec.snapshot_dumps(state, []))
    assert codec.snapshot_loads(codec.snapshot_dumps(state, []))[0] == state and keys == []


def test_a_bot_seated_before_levels_existed_loads_without_one() -> None:
    record = {
        "type": "PlayerSeated",
        "v": 1,
        "data": {
            "seat": 1,
            "player_id": "b",
            "stack": 100,
            "waits_for_big_blind": False,
            "posts_entry_bet": False,
            "is_bot": True,
        },
    }
    event = codec.decode(record)
    assert isinstance(event, PlayerSeated) and event.bot_difficulty is None


def test_deciding_never_changes_the_state_it_decides_on() -> None:
    """``step_table`` works on ``TableState.copy()``: nothing mutable may be shared."""
    from libs.poker.commands import DealBoard
    from libs.poker.state import Phase

    state = TableState()
    deck = iter(DECK)
    commands: list[tc.TableCommand] = [
        tc.OpenTable("t", TableConfig(seats=4, ante=1), 0.0),
        tc.SitDown("a", 0, 100),
        tc.SitDown("b", 1, 100, is_bot=True),
        tc.SitDown("c", 3, 100),
        tc.StartHand("h1", "commit", 1.0),
        *(tc.Deal((DealHoleCards(p, (next(deck), next(deck))),)) for p in range(3)),
    ]
    raised = False
    for _ in range(60):
        if commands:
            command = commands.pop(0)
        elif state.hand is not None and state.hand.phase is Phase.DEALING_BOARD:
            count = 3 if not state.hand.board else 1
            board = tuple(next(deck) for _ in range(count))
            command = tc.Deal((DealBoard(board, next(deck)),))
        elif state.hand_in_progress and (seat := state.acting_seat()) is not None:
            player = state.seats[seat].player_id
            if state.hand is not None and state.hand.phase is Phase.SHOWDOWN:
                command = tc.ShowOrMuck(player, True)
            elif not raised:
                command, raised = tc.Act(player, PlayerAction.RAISE, 6), True
            else:
                command = tc.Act(player, PlayerAction.CALL)
                if state.hand is not None and state.hand.bets[state.hand.actor or 0] == max(
                    state.hand.bets
                ):
                    command = tc.Act(player, PlayerAction.CHECK)
        else:
            break
        before = codec.state_dumps(state)
        new, _ = step_table(state, command)
        assert codec.state_dumps(state) == before, command
        state = new
    assert not state.hand_in_progress and sum(s.stack for s in state.seats.values()) == 300


@pytest.mark.parametrize(
    "payload",
    [
        b'[{"a":1,"b":[1.5,-0.0,1e-7,0.30000000000000004],"c":"caf\\u00e9","d":null}]',
        b"[123456789012345678901234567890, -9223372036854775809, 18446744073709551615]",
        b"[0.000123456789012345678, 1796123625.9677236, 9223372036854775807]",
        b"[NaN, Infinity, -Infinity, 1e400]",
        b'["\\ud800", {"k": 1, "k": 2}]',
        b'\xef\xbb\xbf{"bom": true}',
        b'{"nested": [[[[[]]]]], "t": true, "f": false}',
    ],
)
def test_json_is_parsed_exactly_as_the_standard_parser_does(payload: bytes) -> None:
    """orjson reads most stored data (faster); what it would read otherwise (a big integer as a
    float) or refuses goes to the standard parser, so the values are always the same."""
    expected, got = json.loads(payload), codec.parse_json(payload)
    assert repr(got) == repr(expected)  # NaN != NaN: compared by their text
    assert [type(v) for v in got] == [type(v) for v in expected] if isinstance(got, list) else True


def test_malformed_json_is_refused_as_the_standard_parser_refuses_it() -> None:
    for payload in (b"[1,]", b"", b'"\xff"', b"[1] x"):
        with pytest.raises(ValueError):
            codec.parse_json(payload)


def test_a_stored_commit_decodes_to_the_events_it_was_encoded_from() -> None:
    from libs.tableproto.envelope import decode_commit, encode_commit

    _, events = _played_table()
    envelope, decoded = decode_commit(encode_commit("t", events, "key", "Act", 12.5))
    assert decoded == events and envelope.causation_id == "key"
    assert decode_commit(encode_commit("t", [], "k", "Act", 1.0))[1] == []


def test_the_public_projection_is_the_same_from_the_stored_records() -> None:
    """The projection reuses the stored commit's records for the events the public sees as
    they are; hole cards and burns are encoded again without what is hidden."""
    from libs.poker.events import HoleCardsDealt, StreetDealt
    from libs.tableproto.envelope import encode_public, encode_records

    _, played = _played_table()
    events = [*played, StreetDealt(1, (DECK[40], DECK[41], DECK[42]), burn=DECK[39])]
    assert any(isinstance(e, HoleCardsDealt) for e in events)
    records = encode_records(events)
    fresh = encode_public("t", 9, events, "key", "Act", 12.5)
    assert encode_public("t", 9, events, "key", "Act", 12.5, records=records) == fresh


def test_a_projection_spliced_from_the_stored_commit_is_the_same_bytes() -> None:
    """When the public sees every event of a commit unchanged, its projection is the stored
    commit with the sequence written in: byte for byte what encoding it again gives, for every
    commit of a played table, any table id and sequence size; with hidden cards it is encoded
    again without them."""
    from libs.poker.events import HoleCardsDealt
    from libs.tableproto.envelope import encode_commit, encode_public, encode_records

    _, played = _played_table()
    for table_id in ("t", "a-much-longer-table-id-" * 8):
        for event in played:
            events = [event]
            records = encode_records(events)
            for sequence in (1, 127, 128, 300, 2**40):
                for automatic in (False, True):
                    stored = encode_commit(table_id, events, "key", "Act", 12.5, automatic, records)
                    fresh = encode_public(table_id, sequence, events, "key", "Act", 12.5, automatic)
                    spliced = encode_public(
                        table_id, sequence, events, "key", "Act", 12.5, automatic, records, stored
                    )
                    assert spliced == fresh, (event, sequence)
                    if isinstance(event, HoleCardsDealt):  # not spliced: the cards are gone
                        assert stored[: len(spliced)] != spliced


def test_records_are_written_as_json_that_reads_back_as_the_standard_encoders() -> None:
    """Records are encoded by orjson where its text reads back exactly as the standard
    encoder's; a NaN or infinity (which orjson writes as null), an integer beyond 64 bits or a
    key that is not a string are written by the standard encoder, byte for byte."""
    from libs.tableproto import envelope

    standard = json.JSONEncoder(separators=(",", ":")).encode
    _, played = _played_table()
    for event in played:
        data = codec.encode(event)["data"]
        assert json.loads(envelope._dumps(data)) == json.loads(standard(data)), event
    for data in (
        {"x": math.nan},
        {"x": [math.inf, -math.inf]},
        {"x": 2**64},
        {1: "a"},
        {"x": None},
    ):
        assert envelope._dumps(data) == standard(data).encode(), data  # the standard way
    data = {"x": "caf\u00e9", "y": [1.5, -0.0, 1e-7, 0.30000000000000004, 2**63 - 1, -(2**63)]}
    assert repr(json.loads(envelope._dumps(data))) == repr(json.loads(standard(data)))
