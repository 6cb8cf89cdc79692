"""Request validation: the input rules of the protos, checked before any handler runs.

Every request field may carry ``(holdem.common.v1.rules)`` (protos/holdem/common/v1/validate.proto)
and a oneof ``(holdem.common.v1.oneof_required)``. :func:`validate` walks a request message with
its descriptor and raises :class:`RequestInvalid` (INVALID_ARGUMENT, code ``INVALID_FIELD``) naming
every field in breach (up to :data:`MAX_REPORTED`), as a path such as ``holdings[2].board[0].rank``.
The server's validation interceptor (``libs.platform.server``) calls it for every unary request of
every service, so handlers only ever see well-formed input.

What a message says about a bad value never repeats more than :data:`ECHO_CHARS` characters of it,
escaped (:func:`echo`): an error about a 1 MB string is a short line, and control characters in
the input never reach a log or a client's terminal as such.

Rules (documented for clients in docs/platform.md):

- strings: ``ID`` = 1..64 of ``A-Z a-z 0-9 _ -`` (safe in NATS subjects, Redis keys and headers);
  ``KEY`` = up to 128 printable ASCII characters without spaces; ``TEXT`` = up to 256 printable
  Unicode characters (``str.isprintable``: the plain space is the only separator allowed);
  ``HEX`` = lower-case hex digits; any other string: at most 1,024 characters, no control
  characters. ``max_len`` / ``min_len`` override the lengths (counted in code points).
- integers: ``min`` / ``max`` inclusive, applied to every item of a repeated field; ``any`` = the
  whole range of the type is fine. Floating-point values must be finite.
- enums: a defined value always (an unknown number is refused); ``required`` = not 0 (the
  ``*_UNSPECIFIED`` value). Items of a repeated enum field are never 0.
- repeated: at most ``max_items`` (default 1,000) items, ``unique`` = no value twice, ``required``
  = at least one.
- messages: ``required`` = present; their own fields are checked at any depth.
  ``google.protobuf.Timestamp`` and ``Duration`` must be within their documented ranges.
- a field with presence (``optional`` or in a oneof) that is unset is not checked.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf.descriptor import EnumDescriptor, FieldDescriptor, OneofDescriptor
from google.protobuf.message import Message
from holdem.common.v1 import validate_pb2

from libs.platform.errors import InvalidArgument

INVALID_FIELD = "INVALID_FIELD"
MALFORMED_REQUEST = "MALFORMED_REQUEST"
#: Characters of an untrusted value an error message may repeat.
ECHO_CHARS = 32
#: Violations named in one error (the count of the others is given).
MAX_REPORTED = 5

ID_MAX = 64
KEY_MAX = 128
TEXT_MAX = 256
DEFAULT_STRING_MAX = 1024
DEFAULT_BYTES_MAX = 64 * 1024
DEFAULT_MAX_ITEMS = 1000
#: Nesting deeper than this is refused (our schemas are a few levels deep; protobuf allows 100).
MAX_DEPTH = 32

Chars = validate_pb2.FieldRules.Chars
_ID = re.compile(r"[A-Za-z0-9_-]+")
_KEY = re.compile(r"[!-~]+")
_HEX = re.compile(r"[0-9a-f]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")

# Seconds range of Timestamp (0001-01-01 .. 9999-12-31) and Duration (about +-10,000 years).
_TIMESTAMP_SECONDS = (-62_135_596_800, 253_402_300_799)
_DURATION_SECONDS = 315_576_000_000


@dataclass(frozen=True, slots=True)
class Violation:
    """One field in breach of its rules: where (a path) and what is wrong, for people."""

    field: str
    problem: str

    def __str__(self) -> str:
        return f"{self.field}: {self.problem}"


class RequestInvalid(InvalidArgument):
    """A request breaks its proto's rules (INVALID_ARGUMENT, code ``INVALID_FIELD``)."""

    def __init__(self, violations: Sequence[Violation]) -> None:
        self.violations = tuple(violations)
        shown = "; ".join(str(v) for v in self.violations[:MAX_REPORTED])
        more = len(self.violations) - MAX_REPORTED
        suffix = f" (and {more} more)" if more > 0 else ""
        super().__init__(INVALID_FIELD, f"invalid request: {shown}{suffix}")


def echo(value: str | bytes) -> str:
    """A short, escaped prefix of an untrusted value, safe to put in a message or a log line."""
    if len(value) <= ECHO_CHARS:
        return ascii(value)
    return f"{value[:ECHO_CHARS]!a}... ({len(value)} {_unit(value)})"


def _unit(value: str | bytes) -> str:
    return "characters" if isinstance(value, str) else "bytes"


def validate(message: Message) -> None:
    """Raise :class:`RequestInvalid` unless ``message`` follows its proto's rules."""
    found = violations(message)
    if found:
        raise RequestInvalid(found)


def violations(message: Message) -> list[Violation]:
    """Every rule ``message`` breaks (empty when it is valid)."""
    out: list[Violation] = []
    _check_message(message, "", out, 0)
    return out


# ---- compiled checks, one list per message type -------------------------------------------------

Out = list[Violation]
_Check = Callable[[Message, str, Out, int], None]
_PLANS: dict[str, tuple[_Check, ...]] = {}


def _check_message(message: Message, prefix: str, out: Out, depth: int) -> None:
    if depth > MAX_DEPTH:
        out.append(Violation(prefix or "(request)", f"nested deeper than {MAX_DEPTH} levels"))
        return
    descriptor = message.DESCRIPTOR
    plan = _PLANS.get(descriptor.full_name)
    if plan is None:
        plan = _PLANS[descriptor.full_name] = _compile(descriptor)
    for check in plan:
        check(message, prefix, out, depth)


def _compile(descriptor: Any) -> tuple[_Check, ...]:
    special = _WELL_KNOWN.get(descriptor.full_name)
    if special is not None:
        return (special,)
    checks: list[_Check] = [_field_check(field) for field in descriptor.fields]
    checks += [_oneof_check(o) for o in descriptor.oneofs if _oneof_required(o)]
    return tuple(checks)


def _rules(field: FieldDescriptor) -> validate_pb2.FieldRules:
    options = field.GetOptions()
    if options.HasExtension(validate_pb2.rules):
        return options.Extensions[validate_pb2.rules]
    return validate_pb2.FieldRules()


def _oneof_required(oneof: OneofDescriptor) -> bool:
    return bool(oneof.GetOptions().Extensions[validate_pb2.oneof_required])


def _oneof_check(oneof: OneofDescriptor) -> _Check:
    name = oneof.name
    choices = ", ".join(f.name for f in oneof.fields)

    def check(message: Message, prefix: str, out: Out, depth: int) -> None:
        if message.WhichOneof(name) is None:
            out.append(Violation(prefix + name, f"one of {choices} is required"))

    return check


def _is_map(field: FieldDescriptor) -> bool:
    message_type = field.message_type
    return message_type is not None and bool(message_type.GetOptions().map_entry)


def _field_check(field: FieldDescriptor) -> _Check:
    rules = _rules(field)
    name = field.name
    item = _item_check(field, rules)
    if field.is_repeated:
        max_items = rules.max_items or DEFAULT_MAX_ITEMS
        required, unique = rules.required, rules.unique
        is_map = _is_map(field)
        scalar = field.type != FieldDescriptor.TYPE_MESSAGE

        def repeated(message: Message, prefix: str, out: Out, depth: int) -> None:
            values = getattr(message, name)
            count = len(values)
            path = prefix + name
            if count == 0:
                if required:
                    out.append(Violation(path, "is required (at least one item)"))
                return
            if count > max_items:
                out.append(Violation(path, f"at most {max_items} items (got {count})"))
                return
            if is_map:
                out.append(Violation(path, "map fields are not accepted in requests"))
                return
            if unique and scalar and len(set(values)) != count:
                out.append(Violation(path, "items must be distinct"))
            for index, value in enumerate(values):
                item(value, f"{path}[{index}]", out, depth)

        return repeated

    presence = field.has_presence
    is_message = field.type == FieldDescriptor.TYPE_MESSAGE
    required = rules.required
    missing = "is required"
    if field.type == FieldDescriptor.TYPE_ENUM:
        missing = f"is required (one of {_enum_names(field)})"

    def singular(message: Message, prefix: str, out: Out, depth: int) -> None:
        path = prefix + name
        if presence and not message.HasField(name):
            if required:
                out.append(Violation(path, "is required"))
            return
        value = getattr(message, name)
        if required and not is_message and not value:
            out.append(Violation(path, missing))
            return
        item(value, path, out, depth)

    return singular


_Item = Callable[[Any, str, Out, int], None]


def _item_check(field: FieldDescriptor, rules: validate_pb2.FieldRules) -> _Item:
    """The check of one value of ``field`` (the field itself, or one item when repeated)."""
    kind = field.type
    if kind == FieldDescriptor.TYPE_MESSAGE:

        def nested(value: Message, path: str, out: Out, depth: int) -> None:
            _check_message(value, path + ".", out, depth + 1)

        return nested
    if kind == FieldDescriptor.TYPE_STRING:
        return _string_check(rules)
    if kind == FieldDescriptor.TYPE_BYTES:
        limit = rules.max_len or DEFAULT_BYTES_MAX

        def raw(value: bytes, path: str, out: Out, depth: int) -> None:
            if len(value) > limit:
                out.append(Violation(path, f"at most {limit} bytes (got {len(value)})"))

        return raw
    if kind == FieldDescriptor.TYPE_ENUM:
        return _enum_check(field)
    if kind == FieldDescriptor.TYPE_BOOL:
        return _nothing
    if kind in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return _number_check(rules, finite=True)
    return _number_check(rules, finite=False)


def _nothing(value: Any, path: str, out: Out, depth: int) -> None:
    return None


def _number_check(rules: validate_pb2.FieldRules, *, finite: bool) -> _Item:
    low = rules.min if rules.HasField("min") else None
    high = rules.max if rules.HasField("max") else None

    def check(value: float, path: str, out: Out, depth: int) -> None:
        if finite and not math.isfinite(value):
            out.append(Violation(path, f"must be a finite number (got {value})"))
        elif low is not None and value < low:
            out.append(Violation(path, f"at least {low} (got {value})"))
        elif high is not None and value > high:
            out.append(Violation(path, f"at most {high} (got {value})"))

    return check


def _enum_check(field: FieldDescriptor) -> _Item:
    enum = _enum_type(field)
    defined = frozenset(enum.values_by_number)
    nonzero = field.is_repeated  # a list item is never *_UNSPECIFIED
    names = _enum_names(field)

    def check(value: int, path: str, out: Out, depth: int) -> None:
        if value not in defined:
            out.append(Violation(path, f"{value} is not a {enum.name} (one of {names})"))
        elif nonzero and value == 0:
            out.append(Violation(path, f"must be one of {names}"))

    return check


def _enum_type(field: FieldDescriptor) -> EnumDescriptor:
    enum = field.enum_type
    if enum is None:
        raise TypeError(f"{field.full_name} is not an enum field")
    return enum


def _enum_names(field: FieldDescriptor) -> str:
    names = [v.name for v in _enum_type(field).values if v.number != 0]
    return ", ".join(names) if len(names) <= 6 else f"{names[0]} .. {names[-1]}"


_CHARSETS: dict[int, tuple[re.Pattern[str] | None, int, str]] = {
    Chars.ID: (_ID, ID_MAX, "an id (letters, digits, '_' and '-')"),
    Chars.KEY: (_KEY, KEY_MAX, "a key (printable ASCII, no spaces)"),
    Chars.HEX: (_HEX, 0, "lower-case hexadecimal"),
    Chars.TEXT: (None, TEXT_MAX, "printable text"),
}


def _string_check(rules: validate_pb2.FieldRules) -> _Item:
    pattern, default_max, meaning = _CHARSETS.get(
        rules.chars, (None, DEFAULT_STRING_MAX, "text without control characters")
    )
    longest = rules.max_len or default_max or DEFAULT_STRING_MAX
    shortest = rules.min_len
    text = rules.chars == Chars.TEXT

    def check(value: str, path: str, out: Out, depth: int) -> None:
        if not value and not shortest:
            return  # empty and not required: nothing to check
        length = len(value)
        if length > longest:
            out.append(Violation(path, f"at most {longest} characters, got {echo(value)}"))
        elif length < shortest:
            out.append(Violation(path, f"at least {shortest} characters, got {echo(value)}"))
        elif pattern is not None:
            if pattern.fullmatch(value) is None:
                out.append(Violation(path, f"must be {meaning}, got {echo(value)}"))
        elif text:
            if not value.isprintable():
                out.append(Violation(path, f"must be {meaning}, got {echo(value)}"))
        elif _CONTROL.search(value) is not None:
            out.append(Violation(path, f"must be {meaning}, got {echo(value)}"))

    return check


# ---- well-known types ---------------------------------------------------------------------------


def _time_check(low: int, high: int, nanos_low: int) -> _Check:
    def check(message: Message, prefix: str, out: Out, depth: int) -> None:
        seconds, nanos = getattr(message, "seconds"), getattr(message, "nanos")  # noqa: B009
        path = prefix.rstrip(".") or "(request)"
        if not low <= seconds <= high:
            out.append(Violation(path, f"seconds must be within {low}..{high}"))
        elif not nanos_low <= nanos <= 999_999_999:
            out.append(Violation(path, f"nanos must be within {nanos_low}..999999999"))

    return check


_WELL_KNOWN: dict[str, _Check] = {
    "google.protobuf.Timestamp": _time_check(*_TIMESTAMP_SECONDS, nanos_low=0),
    "google.protobuf.Duration": _time_check(
        -_DURATION_SECONDS, _DURATION_SECONDS, nanos_low=-999_999_999
    ),
}
