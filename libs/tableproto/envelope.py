"""Commit envelopes, the table stream's storage format: the protobuf message one command's events
are appended as (``holdem.events.v1.Commit``), and the public projection published for clients
(no hidden cards). Each event inside is libs.table.codec's record (type, schema version, JSON
data). Shared by the table service and the tools that read its stream (``holdem chaos``,
``holdem verify``, the demo)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

import orjson
from google.protobuf.timestamp_pb2 import Timestamp
from holdem.events.v1 import events_pb2

from libs.poker.events import HoleCardsDealt, RunDealt, StreetDealt
from libs.table import codec
from libs.table.events import Event, SeatOptionsSet, SeedRevealed

#: ``API_VERSION`` of ``_wire.c`` this module is written for (a stale build is not used).
_WIRE_API = 1
try:  # the optional C reader of stored commits (setup.py); without it, protobuf reads them
    from libs.tableproto import _wire

    if getattr(_wire, "API_VERSION", None) != _WIRE_API:
        _wire = None  # type: ignore[assignment]
except ImportError:  # a build without a C compiler
    _wire = None  # type: ignore[assignment]

SCHEMA_VERSION = 1


_json_dumps = json.JSONEncoder(separators=(",", ":")).encode


def _dumps(data: object) -> bytes:
    """``data`` as compact JSON: by orjson (several times faster), except where its text would
    read back differently from the standard encoder's: it refuses integers beyond 64 bits and
    keys that are not strings, and writes NaN and infinities as null (so any null goes the
    standard way; events store no None: their converters leave such fields out)."""
    try:
        text = orjson.dumps(data)
    except TypeError:
        return _json_dumps(data).encode()
    return _json_dumps(data).encode() if b"null" in text else text


#: One event as a commit stores it: its type, schema version and JSON data.
Record = tuple[str, int, bytes]


def encode_records(events: Sequence[Event]) -> list[Record]:
    return [_record(event) for event in events]


def _record(event: Event) -> Record:
    record = codec.encode(event)
    return record["type"], record["v"], _dumps(record["data"])


def encode_commit(
    table_id: str,
    events: Sequence[Event],
    causation_id: str,
    command_type: str,
    now: float,
    automatic: bool = False,
    records: Sequence[Record] | None = None,
) -> bytes:
    """``automatic``: the table decided the command itself (no client will retry it);
    ``records``: ``encode_records(events)`` when the caller has them already."""
    if records is None:
        records = encode_records(events)
    return _commit(
        table_id, records, causation_id, command_type, now, automatic
    ).SerializeToString()


def _commit(
    table_id: str,
    records: Sequence[Record],
    causation_id: str,
    command_type: str,
    now: float,
    automatic: bool,
    sequence: int = 0,
) -> events_pb2.Commit:
    commit = events_pb2.Commit(
        table_id=table_id,
        schema_version=SCHEMA_VERSION,
        causation_id=causation_id,
        command_type=command_type,
        recorded_at=Timestamp(seconds=int(now), nanos=int((now % 1) * 1e9)),
        automatic=automatic,
        sequence=sequence,
    )
    add = commit.recorded.add
    for kind, version, data in records:
        add(type=kind, schema_version=version, data=data)
    return commit


def decode_commit(payload: bytes) -> tuple[events_pb2.Commit, list[Event]]:
    commit = events_pb2.Commit.FromString(payload)
    types, versions, datas = _records(commit)
    decode = codec.decode_data
    return commit, [decode(t, v, d) for t, v, d in zip(types, versions, datas, strict=True)]


def _records(commit: events_pb2.Commit) -> tuple[list[str], list[int], list[Any]]:
    """The types, schema versions and parsed JSON data of ``commit``'s records."""
    records = commit.recorded
    if not records:
        return [], [], []
    # each record's fields read once (every read of a protobuf field makes a new object)
    fields = [(r.type, r.schema_version, r.data) for r in records]
    # one JSON parse for the whole commit: its records' data side by side in one array
    datas = codec.parse_json(b"[" + b",".join([f[2] for f in fields]) + b"]")
    return [f[0] for f in fields], [f[1] for f in fields], datas


def decode_stored(payload: bytes) -> tuple[float, bool, list[Event]]:
    """What a replay needs of a stored commit: when it was recorded (seconds since the epoch),
    whether the table decided it itself (``automatic``), and its events."""
    at, automatic, types, versions, datas = split_stored(payload)
    decode = codec.decode_data
    return (
        at,
        automatic,
        [decode(t, v, d) for t, v, d in zip(types, versions, datas, strict=True)],
    )


def split_stored(payload: bytes) -> tuple[float, bool, list[str], list[int], list[Any]]:
    """A stored commit's time, ``automatic`` flag, and its records' types, schema versions
    and parsed JSON data (``codec.decode_data`` builds each event from them). The optional C
    reader (``_wire.split``) takes the fields from the wire without building the protobuf
    message; what it does not take on, and everything without it, goes through protobuf."""
    if _wire is not None:
        try:
            seconds, nanos, automatic, types, versions, data, long_numbers = _wire.split(payload)
        except ValueError:
            pass
        else:
            at = seconds + nanos / 1e9
            if not types:
                return at, automatic, [], [], []
            return at, automatic, types, versions, codec.parse_json(data, long_numbers)
    commit = events_pb2.Commit.FromString(payload)
    return recorded_seconds(commit), commit.automatic, *_records(commit)


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_TABLE_ID_TAG = b"\x0a"  # field 1 (table_id), length-delimited
_SEQUENCE_TAG = b"\x10"  # field 2 (sequence), varint


def with_sequence(payload: bytes, table_id: str, sequence: int) -> bytes:
    """Commit ``payload`` (serialized with ``table_id`` and no sequence) with ``sequence`` set:
    the field written right after the table id, where serializing the message writes it
    (fields go in number order), so the bytes are those of ``Commit.SerializeToString()``."""
    name = table_id.encode()
    head = _TABLE_ID_TAG + _varint(len(name)) + name
    if not name or not payload.startswith(head) or sequence <= 0:
        commit = events_pb2.Commit.FromString(payload)
        commit.sequence = sequence
        return commit.SerializeToString()
    return head + _SEQUENCE_TAG + _varint(sequence) + payload[len(head) :]


def public_event(event: Event, seeds: bool = False) -> Event:
    """What anyone may see of an event: hole cards are removed (their number follows from the
    variant), burn cards stay face down (a further run's burns too), and a revealed seed, from
    which every card of the hand follows (folded and mucked hands too), is left out unless
    ``seeds`` (a table that makes seeds public at the hand's end:
    ``HOLDEM_TABLE_SEED_DISCLOSURE_SECONDS=0``); it is public later, by the table service's
    ``GetDecks``. A seat's blind settings are its player's own business: the public sees that
    the seat changed them, with the defaults in place of the values (docs/table-features.md)."""
    if isinstance(event, SeatOptionsSet):
        return SeatOptionsSet(event.seat, False, True, True)  # the defaults: nothing told
    if isinstance(event, HoleCardsDealt):
        return dataclasses.replace(event, cards=())
    if isinstance(event, StreetDealt) and event.burn is not None:
        return dataclasses.replace(event, burn=None)
    if isinstance(event, RunDealt) and event.burns:
        return dataclasses.replace(event, burns=())
    if isinstance(event, SeedRevealed) and event.seed and not seeds:
        return dataclasses.replace(event, seed="")
    return event


def recorded_seconds(commit: events_pb2.Commit) -> float:
    """When ``commit`` was recorded, in seconds since the epoch."""
    at = commit.recorded_at  # read once: each read of a message field makes a new object
    return at.seconds + at.nanos / 1e9


def public_of_stored(payload: bytes, sequence: int, seeds: bool = False) -> tuple[bytes, float]:
    """The public projection of a stored commit (as ``encode_public`` made it when it was
    appended) and when it was recorded: for commits projected again after their owner died."""
    commit, events = decode_commit(payload)
    recorded = recorded_seconds(commit)
    public = encode_public(
        commit.table_id,
        sequence,
        events,
        commit.causation_id,
        commit.command_type,
        recorded,
        automatic=commit.automatic,
        seeds=seeds,
    )
    return public, recorded


def encode_public(
    table_id: str,
    sequence: int,
    events: Sequence[Event],
    causation_id: str,
    command_type: str,
    now: float,
    automatic: bool = False,
    records: Sequence[Record] | None = None,
    stored: bytes | None = None,
    seeds: bool = False,
) -> bytes:
    """``records``: the stored commit's records of ``events`` (``encode_records``), taken as
    they are for every event the public sees unchanged (all but hole cards and burns);
    ``stored``: the stored commit itself (``encode_commit`` of the same arguments and
    ``records``): when the public sees every event unchanged, the projection is that commit
    with its sequence written in (the same bytes as encoding it again, in a splice).
    ``seeds``: see ``public_event``."""
    public = [public_event(e, seeds) for e in events]
    unchanged = all(shown is event for shown, event in zip(public, events, strict=True))
    if stored is not None and unchanged:
        return with_sequence(stored, table_id, sequence)
    if records is None:
        public_records = encode_records(public)
    else:
        public_records = [
            record if shown is event else _record(shown)
            for shown, event, record in zip(public, events, records, strict=True)
        ]
    return _commit(
        table_id, public_records, causation_id, command_type, now, automatic, sequence
    ).SerializeToString()
