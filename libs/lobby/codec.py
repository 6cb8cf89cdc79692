"""Events and states as JSON: a commit is ``{"v": 1, "events": [{"type": ..., ...fields}]}``;
a state snapshot is the state's fields. Dataclasses only: every field is a JSON value (str, int,
float, bool, None, lists and dicts of those) or a nested dataclass named in ``nested``."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

SCHEMA_VERSION = 1
T = TypeVar("T")


class CodecError(ValueError):
    """Bytes that are not a commit or snapshot of this schema."""


def encode_events(events: Iterable[Any]) -> bytes:
    items = []
    for event in events:
        fields = dataclasses.asdict(event)
        fields["type"] = type(event).__name__
        items.append(fields)
    return json.dumps({"v": SCHEMA_VERSION, "events": items}, separators=(",", ":")).encode()


def decode_events(data: bytes, types: Mapping[str, type[Any]]) -> list[Any]:
    try:
        body = json.loads(data)
        out = []
        for item in body["events"]:
            fields = dict(item)
            kind = types[fields.pop("type")]
            out.append(kind(**fields))
        return out
    except (ValueError, KeyError, TypeError) as exc:
        raise CodecError(f"not a lobby commit: {exc}") from None


def encode_state(state: Any) -> bytes:
    return json.dumps(dataclasses.asdict(state), separators=(",", ":")).encode()


def decode_state(
    data: bytes,
    kind: type[T],
    nested: Mapping[str, type[Any]] = {},
    migrate: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> T:
    """``nested``: field name -> dataclass of the values of that dict/list field; ``migrate``:
    brings the fields of a snapshot written by an older version to today's (JSON values)."""
    try:
        fields = json.loads(data)
        if migrate is not None:
            fields = migrate(fields)
        for name, inner in nested.items():
            value = fields.get(name)
            if isinstance(value, dict):
                fields[name] = {k: inner(**v) for k, v in value.items()}
            elif isinstance(value, list):
                fields[name] = [inner(**v) for v in value]
        return kind(**fields)
    except (ValueError, KeyError, TypeError) as exc:
        raise CodecError(f"not a lobby snapshot: {exc}") from None
