"""Events to and from plain JSON-able data, faithfully, with a schema version per event type.

The event store keeps every event of a commit as ``{"type", "v", "data"}``; ``decode`` upcasts an
older version of an event to the current one before building it, so old streams always load.
Cards are stored as their index (0..51), enums by value, nested configs as objects.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any

import orjson

from libs.poker import events as hand_events
from libs.poker.cards import DECK, Card
from libs.poker.config import HandConfig, RakeRule
from libs.poker.state import HandState, Phase

from . import events as table_events
from .config import TableConfig
from .converters import Converters
from .events import Event
from .state import Seat, TableState

_EVENT_TYPES: dict[str, type] = {}
for _module in (hand_events, table_events):
    for _name in dir(_module):
        _cls = getattr(_module, _name)
        if (
            isinstance(_cls, type)
            and dataclasses.is_dataclass(_cls)
            and _cls.__module__ == (_module.__name__)
        ):
            _EVENT_TYPES[_name] = _cls

#: Current schema version of each event type (bump it and add an upcaster when a change is not a
#: pure addition with a default).
SCHEMA_VERSIONS: dict[str, int] = {name: 1 for name in _EVENT_TYPES}

#: (type, version) -> function turning that version's data into the next version's data.
UPCASTERS: dict[tuple[str, int], Callable[[dict[str, Any]], dict[str, Any]]] = {}


class CodecError(ValueError):
    """Stored data that cannot be turned back into an event."""


def _to_data(value: Any) -> Any:
    if isinstance(value, Card):
        return int(value)
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _to_data(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [_to_data(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_data(v) for k, v in value.items()}
    return value


def encode(event: Event) -> dict[str, Any]:
    name = type(event).__name__
    if name not in _EVENT_TYPES:
        raise CodecError(f"not an event: {event!r}")
    return {
        "type": name,
        "v": SCHEMA_VERSIONS[name],
        "data": _CONVERTERS.encode(type(event), event),
    }


def generic_encode(event: Event) -> dict[str, Any]:
    """``encode`` by walking the value (the codec before ``converters``; the same data, slower:
    kept for the benchmark and the tests that compare the two)."""
    name = type(event).__name__
    return {"type": name, "v": SCHEMA_VERSIONS[name], "data": _to_data(event)}


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        module = vars(__import__(cls.__module__, fromlist=["_"]))
        hints = _HINTS[cls] = typing.get_type_hints(cls, globalns={**module, **_NAMESPACE})
    return hints


def _from_data(tp: Any, value: Any) -> Any:
    origin = typing.get_origin(tp)
    if tp is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(tp) if a is not type(None)]
        if value is None:
            return None
        return _from_data(options[0], value) if len(options) == 1 else value
    if tp is Card:
        return DECK[int(value)]
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_from_data(args[0], v) for v in value)
        return tuple(_from_data(a, v) for a, v in zip(args, value, strict=True))
    if origin is list:
        (arg,) = typing.get_args(tp)
        return [_from_data(arg, v) for v in value]
    if origin is dict:
        key_type, value_type = typing.get_args(tp)
        return {_from_data(key_type, k): _from_data(value_type, v) for k, v in value.items()}
    if tp is int and isinstance(value, str):
        return int(value)
    if isinstance(tp, type) and issubclass(tp, Enum):
        return tp(value)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        hints = _hints(tp)
        kwargs = {
            f.name: _from_data(hints[f.name], value[f.name])
            for f in dataclasses.fields(tp)
            if f.name in value
        }
        return tp(**kwargs)
    return value


_NAMESPACE: dict[str, Any] = {
    **vars(hand_events),
    **vars(table_events),
    "Card": Card,
    "HandConfig": HandConfig,
    "RakeRule": RakeRule,
    "TableConfig": TableConfig,
    "HandState": HandState,
    "Phase": Phase,
    "Seat": Seat,
    "TableState": TableState,
}


#: The compiled converters (``converters``) every encode and decode goes through.
_CONVERTERS = Converters(_hints, _to_data, _from_data)


#: Every digit a 0, every other byte a dot: 19 digits in a row may be an integer beyond 64
#: bits, which orjson reads as a float (a translation and a search: a fifth of a regex's time).
_DIGITS_ONLY = bytes(ord("0") if byte in b"0123456789" else ord(".") for byte in range(256))
_LONG_NUMBER = b"0" * 19


def parse_json(payload: bytes, long_numbers: bool | None = None) -> Any:
    """``json.loads(payload)``, by orjson (about four times faster) where it gives the same:
    what orjson refuses and the standard parser reads (NaN and Infinity, numbers beyond a
    float, lone surrogates, a byte order mark) and anything that may hold an integer beyond 64
    bits (which orjson would make a float) goes through the standard parser, so stored data
    read exactly as they always did (tests/table/test_codec.py). ``long_numbers``: whether the
    payload holds 19 digits in a row, when the caller knows (None: looked for here)."""
    if long_numbers is None:
        long_numbers = _LONG_NUMBER in payload.translate(_DIGITS_ONLY)
    if not long_numbers:
        try:
            return orjson.loads(payload)
        except orjson.JSONDecodeError:
            pass
    return json.loads(payload)


def decode(record: dict[str, Any], generic: bool = False) -> Event:
    """The event of a stored record (upcast to the current version first); ``generic``: with
    the codec before ``converters`` (for comparisons)."""
    try:
        name, version, data = record["type"], int(record["v"]), record["data"]
    except (KeyError, TypeError, ValueError) as exc:
        raise CodecError(f"not an event record: {record!r}") from exc
    return decode_data(name, version, data, generic)


#: The compiled decoder of each event type met so far, for data at its current schema version.
_CURRENT_DECODERS: dict[str, Callable[[Any], Any]] = {}


def decode_data(name: str, version: int, data: Any, generic: bool = False) -> Event:
    """The event of type ``name``, schema ``version``, from its stored ``data``."""
    if not generic and version == SCHEMA_VERSIONS.get(name) and type(data) is dict:
        convert = _CURRENT_DECODERS.get(name)
        if convert is not None:  # the common case, in as few steps as it takes
            try:
                event: Event = convert(data)
            except (KeyError, TypeError, ValueError, IndexError) as exc:
                raise CodecError(f"cannot build {name} from {str(data)[:200]}: {exc}") from exc
            return event
    if not isinstance(data, dict):
        raise CodecError(f"not an event record: {name} {data!r}")
    cls = _EVENT_TYPES.get(name)
    if cls is None:
        raise CodecError(f"unknown event type {name!r}")
    current = SCHEMA_VERSIONS[name]
    if version > current:
        raise CodecError(f"{name} v{version} is newer than this code (v{current})")
    while version < current:
        upcast = UPCASTERS.get((name, version))
        if upcast is None:
            raise CodecError(f"no upcaster for {name} v{version}")
        data = upcast(data)
        version += 1
    try:
        if generic:
            event = _from_data(cls, data)
        else:
            convert = _CONVERTERS.decoder(cls)
            assert convert is not None  # a dataclass always has one
            _CURRENT_DECODERS[name] = convert
            event = convert(data)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise CodecError(f"cannot build {name} from {str(data)[:200]}: {exc}") from exc
    return event


def state_dumps(state: TableState) -> bytes:
    """A snapshot of a table (its hand included) as JSON."""
    return json.dumps(_CONVERTERS.encode(TableState, state), separators=(",", ":")).encode()


def state_loads(payload: bytes) -> TableState:
    try:
        state = _CONVERTERS.decode(TableState, parse_json(payload))
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise CodecError(f"not a table snapshot: {exc}") from exc
    assert isinstance(state, TableState)
    return state


SNAPSHOT_VERSION = 2

#: An idempotency key kept in a snapshot: (key, sequence of its commit, commit time in seconds
#: since the epoch; None when read from a version 1 snapshot, which did not keep it).
SnapshotKey = tuple[str, int, float | None]


def snapshot_dumps(state: TableState, keys: Sequence[SnapshotKey]) -> bytes:
    """A stored snapshot: the table's state plus ``keys``, the idempotency keys of its recent
    commits with their sequences and commit times (so that a command retried after a restart
    is still recognised when its commit is older than the snapshot)."""
    data = {
        "v": SNAPSHOT_VERSION,
        "state": _CONVERTERS.encode(TableState, state),
        "keys": keys,  # (key, sequence, at) tuples: arrays to orjson and json alike
    }
    try:  # orjson: a snapshot is written at every hand end; what it cannot encode exactly
        return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)  # (beyond 64 bits): json
    except TypeError:
        return json.dumps(data, separators=(",", ":")).encode()


def snapshot_loads(payload: bytes) -> tuple[TableState, list[SnapshotKey]]:
    """The state and the idempotency keys (key, sequence, commit time) of a ``snapshot_dumps``
    snapshot; version 1 snapshots (keys without their time) read with a time of None."""
    try:
        data = parse_json(payload)
        if int(data.get("v", 1)) > SNAPSHOT_VERSION:
            raise CodecError(f"snapshot v{data['v']} is newer than this code")
        state = _CONVERTERS.decode(TableState, data["state"])
        keys: list[SnapshotKey] = []
        for key, sequence, *rest in data.get("keys", []):
            at = rest[0] if rest else None
            keys.append((str(key), int(sequence), None if at is None else float(at)))
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise CodecError(f"not a table snapshot: {exc}") from exc
    assert isinstance(state, TableState)
    return state, keys


def dumps(events: Sequence[Event]) -> bytes:
    return json.dumps([encode(e) for e in events], separators=(",", ":")).encode()


def loads(payload: bytes) -> list[Event]:
    return [decode(record) for record in json.loads(payload)]
