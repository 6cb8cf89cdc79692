"""Request validation: the input rules of the protos, checked before any handler runs.

Every request field may carry ``(holdem.common.v1.rules)`` (protos/holdem/common/v1/validate.proto)
and a oneof ``(holdem.common.v1.oneof_required)``. This module holds what the rules are: the
check of one value of a field (:func:`scalar_check`, and the well-known message types), what a
breach is (:class:`Violation`) and the error naming them (:class:`RequestInvalid`, INVALID_ARGUMENT,
code ``INVALID_FIELD``, up to :data:`MAX_REPORTED` fields, each as a path such as
``holdings[2].board[0].rank``). ``libs.platform.validator`` walks a whole request with them; the
server's validation layer (``libs.platform.layers``) calls it for every unary request of every
service, so handlers only ever see well-formed input.

What a message says about a bad value never repeats more than ``ECHO_CHARS`` characters of it,
escaped (:func:`libs.errors.echo`): an error about a 1 MB string is a short line, and control
characters in the input never reach a log or a client's terminal as such.

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

from google.protobuf.descriptor import EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message
from holdem.common.v1 import validate_pb2

from libs.errors import InvalidArgument, echo

INVALID_FIELD = "INVALID_FIELD"
MALFORMED_REQUEST = "MALFORMED_REQUEST"
#: Characters of an untrusted value an error message may repeat.
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


# A check returns the violations it found (paths relative to its message), or None: valid requests
# build no paths and no lists, so the cost is a few attribute reads per field.
Found = list[Violation] | None
Check = Callable[[Message, int], Found]
_Scalar = Callable[[Any], str | None]  # one value -> its problem, or None


def scalar_check(field: FieldDescriptor, rules: validate_pb2.FieldRules) -> _Scalar:
    """The check of one scalar value of ``field`` (the field itself, or one item)."""
    kind = field.type
    if kind == FieldDescriptor.TYPE_STRING:
        return _string_check(rules, secret=field.name in SECRET_FIELDS)
    if kind == FieldDescriptor.TYPE_BYTES:
        limit = rules.max_len or DEFAULT_BYTES_MAX

        def raw(value: bytes) -> str | None:
            return f"at most {limit} bytes (got {len(value)})" if len(value) > limit else None

        return raw
    if kind == FieldDescriptor.TYPE_ENUM:
        return _enum_check(field)
    if kind == FieldDescriptor.TYPE_BOOL:
        return _nothing
    if kind in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return _number_check(rules, finite=True)
    return _number_check(rules, finite=False)


def _nothing(value: Any) -> str | None:
    return None


def _number_check(rules: validate_pb2.FieldRules, *, finite: bool) -> _Scalar:
    low = rules.min if rules.HasField("min") else None
    high = rules.max if rules.HasField("max") else None

    def check(value: float) -> str | None:
        if finite and not math.isfinite(value):
            return f"must be a finite number (got {value})"
        if low is not None and value < low:
            return f"at least {low} (got {value})"
        if high is not None and value > high:
            return f"at most {high} (got {value})"
        return None

    return check


def _enum_check(field: FieldDescriptor) -> _Scalar:
    enum = _enum_type(field)
    defined = frozenset(enum.values_by_number)
    nonzero = field.is_repeated  # a list item is never *_UNSPECIFIED
    names = enum_names(field)

    def check(value: int) -> str | None:
        if value not in defined:
            return f"{value} is not a {enum.name} (one of {names})"
        if nonzero and value == 0:
            return f"must be one of {names}"
        return None

    return check


def _enum_type(field: FieldDescriptor) -> EnumDescriptor:
    enum = field.enum_type
    if enum is None:
        raise TypeError(f"{field.full_name} is not an enum field")
    return enum


def enum_names(field: FieldDescriptor) -> str:
    names = [v.name for v in _enum_type(field).values if v.number != 0]
    return ", ".join(names) if len(names) <= 6 else f"{names[0]} .. {names[-1]}"


_CHARSETS: dict[int, tuple[re.Pattern[str] | None, int, str]] = {
    Chars.ID: (_ID, ID_MAX, "an id (letters, digits, '_' and '-')"),
    Chars.KEY: (_KEY, KEY_MAX, "a key (printable ASCII, no spaces)"),
    Chars.HEX: (_HEX, 0, "lower-case hexadecimal"),
    Chars.TEXT: (None, TEXT_MAX, "printable text"),
}


#: Fields whose values never appear in a message or a log line, not even a prefix.
SECRET_FIELDS = frozenset({"password", "token"})


def _hidden(value: str) -> str:
    return f"(hidden, {len(value)} characters)"


def _string_check(rules: validate_pb2.FieldRules, secret: bool = False) -> _Scalar:
    pattern, default_max, meaning = _CHARSETS.get(
        rules.chars, (None, DEFAULT_STRING_MAX, "text without control characters")
    )
    longest = rules.max_len or default_max or DEFAULT_STRING_MAX
    shortest = rules.min_len
    text = rules.chars == Chars.TEXT
    show = _hidden if secret else echo

    def check(value: str) -> str | None:
        if not value and not shortest:
            return None  # empty and not required: nothing to check
        length = len(value)
        if length > longest:
            return f"at most {longest} characters, got {show(value)}"
        if length < shortest:
            return f"at least {shortest} characters, got {show(value)}"
        if pattern is not None:
            ok = pattern.fullmatch(value) is not None
        elif text:
            ok = value.isprintable()
        else:
            ok = _CONTROL.search(value) is None
        return None if ok else f"must be {meaning}, got {show(value)}"

    return check


# ---- well-known types ---------------------------------------------------------------------------


def _time_check(low: int, high: int, nanos_low: int) -> Check:
    def check(message: Message, depth: int) -> Found:
        seconds, nanos = getattr(message, "seconds"), getattr(message, "nanos")  # noqa: B009
        if not low <= seconds <= high:
            return [Violation("", f"seconds must be within {low}..{high}")]
        if not nanos_low <= nanos <= 999_999_999:
            return [Violation("", f"nanos must be within {nanos_low}..999999999")]
        return None

    return check


WELL_KNOWN: dict[str, Check] = {
    "google.protobuf.Timestamp": _time_check(*_TIMESTAMP_SECONDS, nanos_low=0),
    "google.protobuf.Duration": _time_check(
        -_DURATION_SECONDS, _DURATION_SECONDS, nanos_low=-999_999_999
    ),
}
