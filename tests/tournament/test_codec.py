"""Events and state as JSON: every event and state of whole tournaments round-trips; a field
added with a default reads from older JSON; an upcaster brings an older schema to today's; a
field the record does not have, or bytes that are no commit, are refused."""

from __future__ import annotations

import json
import random

import pytest

from libs.tournament import codec
from libs.tournament import commands as C
from libs.tournament import events as E
from libs.tournament.config import AddOnRule, RebuyRule, TournamentConfig, TournamentKind
from libs.tournament.evolve import fold
from libs.tournament.state import initial
from libs.tournament.structure import LevelUnit, preset

from .sim import Sim


def played(seed: int) -> Sim:
    config = TournamentConfig(
        "codec",
        TournamentKind.SIT_AND_GO,
        max_entrants=14,
        seats_per_table=4,
        structure=preset("turbo", LevelUnit.HANDS),
        rebuy=RebuyRule(chips=1500, cost=100, last_level=2),
        add_on=AddOnRule(chips=3000, cost=100, after_level=8),
    )
    sim = Sim(config)
    for i in range(14):
        sim.run(
            C.Register(f"p{i}", f"k{i}", 1.0, is_bot=i % 2 == 1, bot_level="easy" if i % 2 else "")
        )
    sim.run(C.Start(f"codec-{seed}", 2.0))
    sim.walk(random.Random(seed))
    return sim


def test_a_whole_tournament_replays_from_its_encoded_commits() -> None:
    sim = played(3)
    assert len({type(e) for e in sim.log}) >= 15
    replayed = fold(initial("T1"), codec.decode_events(codec.encode_events(sim.log)))
    assert replayed == sim.s
    assert codec.decode_state(codec.encode_state(sim.s)) == sim.s


def test_a_field_added_with_a_default_reads_from_older_json() -> None:
    data = codec.encode_events([E.PlayerBusted("p", "t", 10, 3, None, in_round=True)])
    body = json.loads(data)
    del body["events"][0]["in_round"]  # as written before the field existed
    (event,) = codec.decode_events(json.dumps(body).encode())
    assert event == E.PlayerBusted("p", "t", 10, 3, None, in_round=False)


def test_an_upcaster_brings_an_older_schema_to_todays() -> None:
    old = {"v": 1, "events": [{"type": "TableClosed", "table": "T1-t3"}]}  # a renamed field

    def rename(item: dict[str, object]) -> dict[str, object]:
        item = dict(item)
        if item.get("type") == "TableClosed":
            item["table_id"] = item.pop("table")
        return item

    data = json.dumps(old).encode()
    with pytest.raises(codec.CodecError):
        codec.decode_events(data)
    assert codec.decode_events(data, {1: rename}, current=2) == [E.TableClosed("T1-t3")]


def test_an_unknown_field_or_version_is_refused_not_dropped() -> None:
    body = {"v": 1, "events": [{"type": "TableClosed", "table_id": "t", "extra": 1}]}
    with pytest.raises(codec.CodecError, match="no field 'extra'"):
        codec.decode_events(json.dumps(body).encode())
    body = {"v": 9, "events": [{"type": "TableClosed", "table_id": "t"}]}
    with pytest.raises(codec.CodecError, match="version"):
        codec.decode_events(json.dumps(body).encode())
    for junk in (b"", b"[]", b'{"v": 1, "events": [{"type": "Nope"}]}', b'{"v":1,"state":3}'):
        with pytest.raises(codec.CodecError):
            codec.decode_events(junk)
        with pytest.raises(codec.CodecError):
            codec.decode_state(junk)


def test_values_are_rebuilt_by_their_declared_types() -> None:
    s = played(5).s
    data = json.loads(codec.encode_state(s))
    some_table = next(iter(data["state"]["closed"]))
    assert isinstance(some_table, str)
    back = codec.decode_state(codec.encode_state(s))
    assert isinstance(back.config, TournamentConfig)
    assert back.config.structure.unit is LevelUnit.HANDS
    assert isinstance(back.settled, frozenset)
