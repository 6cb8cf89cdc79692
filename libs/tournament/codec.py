"""Events and state as JSON. A commit is ``{"v": 1, "events": [{"type": ..., ...fields}]}``, a
snapshot ``{"v": 1, "state": {...}}``; every value is rebuilt by the type its dataclass field
declares (records, enums, tuples, frozensets, dicts with int keys, optional values).

Schema evolution: a field added with a default reads from older JSON as that default; any other
change bumps ``SCHEMA_VERSION`` and adds an upcaster (JSON of version ``v`` -> ``v + 1``) to
``EVENT_UPCASTERS`` / ``STATE_UPCASTERS``, so streams written by older code stay readable.
A key the record does not have is refused, never dropped: an older reader never loses data of a
newer writer silently.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import types
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, Union, get_args, get_origin, get_type_hints

from .events import EVENT_TYPES, Event
from .state import TournamentState

SCHEMA_VERSION = 1

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


class CodecError(ValueError):
    """Bytes that are not a tournament commit or snapshot."""


#: ``{v: upcaster}``: JSON of schema ``v`` to ``v + 1`` (an event with its "type"; a state).
EVENT_UPCASTERS: dict[int, Upcaster] = {}
STATE_UPCASTERS: dict[int, Upcaster] = {}

_BY_NAME: dict[str, type[Any]] = {t.__name__: t for t in EVENT_TYPES}


def to_json(value: Any) -> Any:
    """``value`` as JSON values (dataclasses as objects, enums by value, sets sorted)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, frozenset):
        return sorted(to_json(v) for v in value)
    if isinstance(value, tuple | list):
        return [to_json(v) for v in value]
    return value


@cache
def _hints(kind: Any) -> dict[str, Any]:
    return get_type_hints(kind)


def from_json(kind: Any, data: Any) -> Any:
    """The value of type ``kind`` that ``to_json`` gave ``data`` for."""
    origin, args = get_origin(kind), get_args(kind)
    if origin in (Union, types.UnionType):
        if data is None and type(None) in args:
            return None
        options = [a for a in args if a is not type(None)]
        if len(options) != 1:
            raise CodecError(f"cannot choose among {kind}")
        return from_json(options[0], data)
    if origin is tuple:
        return tuple(from_json(args[0], v) for v in _list(data))
    if origin is frozenset:
        return frozenset(from_json(args[0], v) for v in _list(data))
    if origin in (dict, Mapping):
        if not isinstance(data, dict):
            raise CodecError(f"expected an object, got {type(data).__name__}")
        return {from_json(args[0], k): from_json(args[1], v) for k, v in data.items()}
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        return _record(kind, data)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return kind(data)
    if kind is int:
        if isinstance(data, str) and data.lstrip("-").isdigit():  # a dict key
            return int(data)
        if type(data) is not int:
            raise CodecError(f"expected an integer, got {data!r:.40}")
        return data
    if kind is float:
        if type(data) not in (int, float):
            raise CodecError(f"expected a number, got {data!r:.40}")
        return float(data)
    if kind in (str, bool):
        if type(data) is not kind:
            raise CodecError(f"expected {kind.__name__}, got {data!r:.40}")
        return data
    raise CodecError(f"no JSON for {kind}")


def _list(data: Any) -> list[Any]:
    if not isinstance(data, list):
        raise CodecError(f"expected a list, got {type(data).__name__}")
    return data


def _record(kind: Any, data: Any) -> Any:
    if not isinstance(data, dict):
        raise CodecError(f"expected an object for {kind.__name__}")
    hints = _hints(kind)
    names = {f.name for f in dataclasses.fields(kind)}
    unknown = set(data) - names
    if unknown:
        raise CodecError(f"{kind.__name__} has no field {sorted(unknown)[0]!r}")
    return kind(**{name: from_json(hints[name], value) for name, value in data.items()})


def _upcast(
    item: dict[str, Any], version: int, upcasters: Mapping[int, Upcaster], current: int
) -> Any:
    if not isinstance(version, int) or not 1 <= version <= current:
        raise CodecError(f"unknown schema version {version!r}")
    for step in range(version, current):
        item = upcasters[step](item)
    return item


def encode_events(events: list[Event]) -> bytes:
    items = [{"type": type(e).__name__, **to_json(e)} for e in events]
    return json.dumps({"v": SCHEMA_VERSION, "events": items}, separators=(",", ":")).encode()


def decode_events(
    data: bytes,
    upcasters: Mapping[int, Upcaster] = EVENT_UPCASTERS,
    current: int = SCHEMA_VERSION,
) -> list[Event]:
    """The events of a commit of any schema version up to ``current``."""
    try:
        body = json.loads(data)
        out: list[Event] = []
        for raw in body["events"]:
            item = dict(_upcast(raw, body["v"], upcasters, current))
            kind = _BY_NAME[item.pop("type")]
            out.append(_record(kind, item))
        return out
    except (ValueError, KeyError, TypeError) as exc:
        raise CodecError(f"not a tournament commit: {exc}") from None


def encode_state(state: TournamentState) -> bytes:
    return json.dumps(
        {"v": SCHEMA_VERSION, "state": to_json(state)}, separators=(",", ":")
    ).encode()


def decode_state(
    data: bytes,
    upcasters: Mapping[int, Upcaster] = STATE_UPCASTERS,
    current: int = SCHEMA_VERSION,
) -> TournamentState:
    try:
        body = json.loads(data)
        state: TournamentState = _record(
            TournamentState, _upcast(body["state"], body["v"], upcasters, current)
        )
        return state
    except (ValueError, KeyError, TypeError) as exc:
        raise CodecError(f"not a tournament snapshot: {exc}") from None
