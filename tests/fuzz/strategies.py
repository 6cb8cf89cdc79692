"""Hypothesis strategies for any request message, built from its proto descriptor.

Three kinds of request, mixed:
- *well-formed*: every field follows its ``(holdem.common.v1.rules)`` (charset, lengths, bounds,
  defined enums, sizes), so the request gets past validation and exercises the handler;
- *mixed*: each field either well-formed or odd (boundary numbers just outside the rules and at
  the type's extremes, unknown enum numbers, NaN and infinities, empty, huge, control-character,
  unicode and NATS-hostile strings such as "$JS", "a.b", "*", ">", lists one item over the cap),
  nested messages and oneof choices included;
- *raw bytes*: arbitrary bytes, most of which do not decode as the request type.

``known`` maps a field name to values that name real things in the service under test (a deck id
it started, a table it opened), drawn often so calls reach state beyond NOT_FOUND; for a repeated
field, whole lists (well-formed hands for the evaluator). A key "Message.field" applies to that
message's field only, and wins over a plain "field".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from holdem.common.v1 import validate_pb2
from hypothesis import strategies as st

from libs.platform import validation

Chars = validate_pb2.FieldRules.Chars
Known = Mapping[str, Sequence[Any]]

MAX_DEPTH = 4
#: Repeated fields get at most this many items, besides "one over the cap" lists.
MAX_LIST = 6

ODD_STRINGS: tuple[str, ...] = (
    "",
    "$JS",
    "$JS.API.STREAM.DELETE.HOLDEM_TABLES",
    "$SYS",
    "a.b",
    "*",
    ">",
    "a.>",
    " ",
    "\t",
    "\x00",
    "x\x00y",
    "\r\nNats-Msg-Id: x",
    "\x1b[2J",
    "\x7f",
    "é",
    "表",
    "\u202e",
    "\u2028",
    "😀",
    "..",
    "-",
    "_",
    "0" * 32,
    "A" * 65,
    "k" * 129,
    "t" * 257,
    "s" * 1025,
    "Z" * 100_000,
)

_SIGNED = {
    FieldDescriptor.TYPE_INT32: 32,
    FieldDescriptor.TYPE_SINT32: 32,
    FieldDescriptor.TYPE_SFIXED32: 32,
    FieldDescriptor.TYPE_INT64: 64,
    FieldDescriptor.TYPE_SINT64: 64,
    FieldDescriptor.TYPE_SFIXED64: 64,
}
_UNSIGNED = {
    FieldDescriptor.TYPE_UINT32: 32,
    FieldDescriptor.TYPE_FIXED32: 32,
    FieldDescriptor.TYPE_UINT64: 64,
    FieldDescriptor.TYPE_FIXED64: 64,
}
_CHARSET_MAX = {
    Chars.ID: validation.ID_MAX,
    Chars.KEY: validation.KEY_MAX,
    Chars.TEXT: validation.TEXT_MAX,
}


NOTHING_KNOWN: Known = {}


def requests(descriptor: Descriptor, known: Known = NOTHING_KNOWN) -> st.SearchStrategy[bytes]:
    """Serialized requests of ``descriptor``'s type (well-formed, mixed) and raw bytes."""
    return st.one_of(
        messages(descriptor, known, odd=False).map(_serialize),
        messages(descriptor, known, odd=True).map(_serialize),
        st.binary(max_size=64),
    )


def _serialize(message: Message) -> bytes:
    return message.SerializeToString()


def messages(
    descriptor: Descriptor, known: Known = NOTHING_KNOWN, *, odd: bool, depth: int = 0
) -> st.SearchStrategy[Message]:
    """Messages of ``descriptor``'s type: well-formed (``odd`` False) or mixed."""
    cls = message_factory.GetMessageClass(descriptor)
    if descriptor.full_name == "google.protobuf.Timestamp":
        return _timestamps(cls, odd)
    if depth >= MAX_DEPTH:
        return st.just(cls())
    plain: dict[str, st.SearchStrategy[Any]] = {}
    for field in descriptor.fields:
        oneof = field.containing_oneof
        if oneof is not None and not _synthetic(oneof):
            continue
        value = _field_values(field, known, odd, depth)
        rules = _rules(field)
        if (rules.required or _known(known, field) is not None) and not odd:
            plain[field.name] = value
        else:
            plain[field.name] = st.one_of(st.none(), value)
    choices: dict[str, st.SearchStrategy[tuple[str, Any] | None]] = {}
    for oneof in descriptor.oneofs:
        if _synthetic(oneof):
            continue
        members = [
            st.tuples(st.just(f.name), _field_values(f, known, odd, depth)) for f in oneof.fields
        ]
        required = bool(oneof.GetOptions().Extensions[validate_pb2.oneof_required])
        options = st.one_of(*members) if required and not odd else st.one_of(st.none(), *members)
        choices[oneof.name] = options

    def build(values: dict[str, Any], chosen: dict[str, tuple[str, Any] | None]) -> Message:
        message = cls()
        for name, value in values.items():
            if value is not None:
                _assign(message, descriptor.fields_by_name[name], value)
        for pick in chosen.values():
            if pick is not None:
                _assign(message, descriptor.fields_by_name[pick[0]], pick[1])
        return message

    return st.builds(build, st.fixed_dictionaries(plain), st.fixed_dictionaries(choices))


def _known(known: Known, field: FieldDescriptor) -> Sequence[Any] | None:
    owner = field.containing_type
    scoped = known.get(f"{owner.name}.{field.name}") if owner is not None else None
    return scoped if scoped is not None else known.get(field.name)


def _synthetic(oneof: Any) -> bool:
    """proto3 ``optional`` fields sit in a oneof of their own, named after the field."""
    fields = oneof.fields
    return len(fields) == 1 and oneof.name == f"_{fields[0].name}"


def _rules(field: FieldDescriptor) -> validate_pb2.FieldRules:
    return field.GetOptions().Extensions[validate_pb2.rules]


def _assign(message: Message, field: FieldDescriptor, value: Any) -> None:
    if field.is_repeated:
        target = getattr(message, field.name)
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            for item in value:
                target.add().CopyFrom(item)
        else:
            target.extend(value)
    elif field.type == FieldDescriptor.TYPE_MESSAGE:
        getattr(message, field.name).CopyFrom(value)
    else:
        setattr(message, field.name, value)


def _field_values(
    field: FieldDescriptor, known: Known, odd: bool, depth: int
) -> st.SearchStrategy[Any]:
    rules = _rules(field)
    one = _values(field, rules, known, odd, depth)
    if not field.is_repeated:
        return one
    lists = _known(known, field)
    if lists:  # whole lists, e.g. well-formed hands: the only well-formed ones then
        known_lists = st.sampled_from(list(lists))
        return st.one_of(known_lists, _lists(one, rules, odd)) if odd else known_lists
    return _lists(one, rules, odd)


def _lists(
    one: st.SearchStrategy[Any], rules: validate_pb2.FieldRules, odd: bool
) -> st.SearchStrategy[list[Any]]:
    cap = rules.max_items or validation.DEFAULT_MAX_ITEMS
    fair = st.lists(
        one, min_size=1 if rules.required else 0, max_size=min(cap, MAX_LIST), unique=rules.unique
    )
    if not odd:
        return fair
    return st.one_of(
        fair,
        st.lists(one, max_size=MAX_LIST),  # duplicates and wrong counts
        one.map(lambda item: [item] * (cap + 1)),  # one over the cap
    )


def _values(
    field: FieldDescriptor,
    rules: validate_pb2.FieldRules,
    known: Known,
    odd: bool,
    depth: int,
) -> st.SearchStrategy[Any]:
    kind = field.type
    fair: st.SearchStrategy[Any]
    odd_values: st.SearchStrategy[Any]
    if kind == FieldDescriptor.TYPE_MESSAGE:
        assert field.message_type is not None
        return messages(field.message_type, known, odd=odd, depth=depth + 1)
    if kind == FieldDescriptor.TYPE_STRING:
        fair = _fair_strings(rules)
        odd_values = st.one_of(st.sampled_from(ODD_STRINGS), st.text(max_size=40))
    elif kind == FieldDescriptor.TYPE_BYTES:
        fair = st.binary(max_size=32)
        odd_values = st.binary(max_size=200_000)
    elif kind == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    elif kind == FieldDescriptor.TYPE_ENUM:
        assert field.enum_type is not None
        defined = sorted(v.number for v in field.enum_type.values if v.number != 0)
        fair = st.sampled_from(defined)
        odd_values = st.one_of(
            st.integers(-3, max(defined) + 3), st.sampled_from([2**31 - 1, -(2**31)])
        )
    elif kind in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        low = float(rules.min) if rules.HasField("min") else -1e6
        high = float(rules.max) if rules.HasField("max") else 1e6
        fair = st.floats(low, high, allow_nan=False)
        odd_values = st.one_of(
            st.sampled_from([math.nan, math.inf, -math.inf, -0.0, -1.0, 1e308, -1e308]),
            st.floats(width=32 if kind == FieldDescriptor.TYPE_FLOAT else 64),
        )
    else:
        fair, odd_values = _integers(kind, rules)
    names = _known(known, field) if not field.is_repeated else None
    if names:
        fair = st.one_of(st.sampled_from(list(names)), fair)
    return st.one_of(fair, odd_values) if odd else fair


def _fair_strings(rules: validate_pb2.FieldRules) -> st.SearchStrategy[str]:
    chars = rules.chars
    longest = rules.max_len or _CHARSET_MAX.get(chars, 40)
    shortest = max(rules.min_len, 1 if rules.required else 0)
    longest = max(min(longest, 300), shortest)
    if chars == Chars.ID:
        alphabet: st.SearchStrategy[str] = st.sampled_from(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
        )
    elif chars == Chars.KEY:
        alphabet = st.characters(min_codepoint=0x21, max_codepoint=0x7E)
    elif chars == Chars.HEX:
        alphabet = st.sampled_from("0123456789abcdef")
    else:  # TEXT and unannotated: printable characters
        alphabet = st.characters(categories=["L", "M", "N", "P", "S"]) | st.just(" ")
    return st.text(alphabet, min_size=shortest, max_size=longest)


def _integers(
    kind: int, rules: validate_pb2.FieldRules
) -> tuple[st.SearchStrategy[int], st.SearchStrategy[int]]:
    if kind in _UNSIGNED:
        type_low, type_high = 0, 2 ** _UNSIGNED[kind] - 1
    else:
        bits = _SIGNED.get(kind, 64)
        type_low, type_high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    low = max(type_low, rules.min) if rules.HasField("min") else type_low
    high = min(type_high, rules.max) if rules.HasField("max") else type_high
    fair = st.one_of(st.integers(low, min(high, low + 60)), st.integers(low, high))
    edges = {type_low, type_high, 0, 1, -1, low, high, low - 1, high + 1, 2**31, 2**32 - 1}
    odd_values = st.sampled_from(sorted(v for v in edges if type_low <= v <= type_high))
    return fair, st.one_of(odd_values, st.integers(type_low, type_high))


def _timestamps(cls: Any, odd: bool) -> st.SearchStrategy[Message]:
    seconds = st.integers(0, 4_000_000_000)
    nanos = st.integers(0, 999_999_999)
    if odd:
        seconds = st.one_of(seconds, st.sampled_from([-(2**63), 2**63 - 1, -62_135_596_801]))
        nanos = st.one_of(nanos, st.sampled_from([-1, 10**9, 2**31 - 1]))
    return st.builds(lambda s, n: cls(seconds=s, nanos=n), seconds, nanos)
