"""The C reader of stored commits (``libs/tableproto/_wire.c``) gives a replay what the protobuf
runtime gives it, for every commit a table writes and for damaged ones: the same time,
``automatic`` flag and events, or the same refusal. What it does not take on it refuses, and
``decode_stored`` reads the payload with protobuf instead."""

from __future__ import annotations

import random

import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from holdem.events.v1 import events_pb2

from libs.tableproto import envelope
from libs.tableproto.envelope import decode_commit, decode_stored, encode_commit, encode_records
from tests.table.test_codec import _played_table

wire = vars(envelope)["_wire"]  # the module decode_stored uses (None when not built)
needs_wire = pytest.mark.skipif(wire is None, reason="the C reader is not built here")


def _by_protobuf(payload: bytes) -> tuple[float, bool, list[object]] | str:
    try:
        commit, events = decode_commit(payload)
    except Exception as exc:
        return type(exc).__name__
    return envelope.recorded_seconds(commit), commit.automatic, list(events)


def _by_decode_stored(payload: bytes) -> tuple[float, bool, list[object]] | str:
    try:
        at, automatic, events = decode_stored(payload)
    except Exception as exc:
        return type(exc).__name__
    return at, automatic, list(events)


def _payloads() -> list[bytes]:
    _, played = _played_table()
    payloads = [encode_commit("t", [], "k", "Act", 1.0)]
    for size in (1, 2, 5):
        for start in range(0, len(played), size):
            events = played[start : start + size]
            automatic = start % 2 == 0
            payloads.append(
                encode_commit(
                    "table-" + "x" * start,
                    events,
                    f"key{start}",
                    "Deal",
                    1e9 + start / 7,
                    automatic,
                )
            )
    return payloads


@needs_wire
def test_every_commit_of_a_played_table_reads_as_protobuf_reads_it() -> None:
    payloads = _payloads()
    assert len(payloads) > 30
    for payload in payloads:
        assert wire is not None
        wire.split(payload)  # taken on by the C reader itself, not handed back to protobuf
        assert _by_decode_stored(payload) == _by_protobuf(payload)


@needs_wire
def test_damaged_commits_read_as_protobuf_reads_them_or_are_refused_the_same_way() -> None:
    rng = random.Random(2026)
    payloads = _payloads()
    taken = readable = 0
    for _ in range(6000):
        data = bytearray(rng.choice(payloads))
        for _ in range(rng.randrange(1, 4)):
            kind = rng.randrange(4)
            at = rng.randrange(len(data) + 1)
            if kind == 0 and data:
                data[min(at, len(data) - 1)] = rng.randrange(256)
            elif kind == 1:
                del data[at:]
            elif kind == 2:
                data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 6)))
            else:
                data[at:at] = rng.choice(payloads)[: rng.randrange(1, 40)]
        payload = bytes(data)
        expected = _by_protobuf(payload)
        assert _by_decode_stored(payload) == expected, payload
        readable += isinstance(expected, tuple)
        assert wire is not None
        try:
            wire.split(payload)
            taken += isinstance(expected, tuple)
        except ValueError:
            pass
    # most damage that protobuf reads the C reader reads too (not only refuses and hands back)
    assert readable > 200 and taken > readable * 0.8, (taken, readable)


@needs_wire
@pytest.mark.parametrize(
    "raw",
    [
        b"",  # an empty commit
        b"\x00\x01",  # field number 0
        b"\x50\x02",  # automatic = 2: still True
        b"\x50\x01\x50\x00",  # automatic twice: the last wins
        b"\x22\x02\x08\x05\x22\x02\x10\x07",  # recorded_at twice: merged by protobuf
        b"\x22\x0b\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",  # seconds = -1
        b"\x4a\x04\x0a\x02\xc3\x28",  # a record whose type is not UTF-8
        b"\x4a\x07\x0a\x01A\x0a\x01B\x1a\x00",  # a record's type twice: the last wins
        b"\x0a\x02\xff\xfe",  # a table id that is not UTF-8
        b"\x42\x00",  # client-shaped events (never stored)
        b"\x1b\x0c",  # a group (unknown field)
        b"\xf8\xff\xff\xff\x0f\x01",  # the largest field number, unknown
        b"\x80\x80\x80\x80\x80\x01\x01",  # a field number beyond the largest
        b"\x10\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f",  # a varint of 10 bytes, high bits set
        b"\x10\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",  # a varint of 11 bytes
    ],
)
def test_odd_wire_reads_as_protobuf_reads_it(raw: bytes) -> None:
    assert _by_decode_stored(raw) == _by_protobuf(raw)


def test_without_the_c_reader_a_replay_reads_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    payloads = _payloads()
    with_reader = [_by_decode_stored(p) for p in payloads]
    monkeypatch.setattr(envelope, "_wire", None)
    assert [_by_decode_stored(p) for p in payloads] == with_reader
    assert with_reader == [_by_protobuf(p) for p in payloads]


def test_a_commit_recorded_before_the_epoch_or_with_odd_nanos_keeps_its_time() -> None:
    _, played = _played_table()
    records = encode_records(played[:2])
    for seconds, nanos in ((-5, 250_000_000), (0, 999_999_999), (2**40, 1), (7, -3)):
        commit = events_pb2.Commit(
            table_id="t", recorded_at=Timestamp(seconds=seconds, nanos=nanos)
        )
        for kind, version, data in records:
            commit.recorded.add(type=kind, schema_version=version, data=data)
        payload = commit.SerializeToString()
        assert _by_decode_stored(payload) == _by_protobuf(payload)
        assert decode_stored(payload)[0] == seconds + nanos / 1e9


def test_numbers_beyond_64_bits_in_a_record_read_as_the_standard_parser_reads_them() -> None:
    """The C reader says when the data hold 19 digits in a row, and those go to the standard
    JSON parser (orjson would read a big integer as a float)."""
    commit = events_pb2.Commit(table_id="t")
    commit.recorded.add(
        type="ChipsAdded", schema_version=1, data=b'{"seat":1,"player_id":"a","amount":5}'
    )
    commit.recorded.add(
        type="ChipsAdded", schema_version=1, data=b'{"seat":2,"player_id":"b","amount":%d}' % 2**70
    )
    payload = commit.SerializeToString()
    assert _by_decode_stored(payload) == _by_protobuf(payload)
    events = decode_stored(payload)[2]
    assert [getattr(e, "amount", None) for e in events] == [5, 2**70]
    if wire is not None:
        assert wire.split(payload)[6] is True
        assert wire.split(_payloads()[3])[6] is False
