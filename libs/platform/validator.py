"""A request checked against its proto's rules (:func:`validate`, :func:`violations`): each message
type's fields are compiled once into a tuple of checks (the rules of one value come from
``libs.platform.validation``), then a request is walked with them at any depth, its nested and
repeated fields named by path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from google.protobuf.descriptor import FieldDescriptor, OneofDescriptor
from google.protobuf.message import Message
from holdem.common.v1 import validate_pb2

from libs.platform.validation import (
    DEFAULT_MAX_ITEMS,
    MAX_DEPTH,
    WELL_KNOWN,
    Check,
    Found,
    RequestInvalid,
    Violation,
    enum_names,
    scalar_check,
)


def validate(message: Message) -> None:
    """Raise :class:`RequestInvalid` unless ``message`` follows its proto's rules."""
    found = violations(message)
    if found:
        raise RequestInvalid(found)


def violations(message: Message) -> list[Violation]:
    """Every rule ``message`` breaks (empty when it is valid)."""
    found = _check_message(message, 0, _plan(message.DESCRIPTOR)) or []
    return [v if v.field else Violation("(request)", v.problem) for v in found]


_PLANS: dict[str, tuple[Check, ...]] = {}


def _plan(descriptor: Any) -> tuple[Check, ...]:
    plan = _PLANS.get(descriptor.full_name)
    if plan is None:
        plan = _PLANS[descriptor.full_name] = _compile(descriptor)
    return plan


def _check_message(message: Message, depth: int, plan: tuple[Check, ...]) -> Found:
    if depth > MAX_DEPTH:
        return [Violation("", f"nested deeper than {MAX_DEPTH} levels")]
    found: Found = None
    for check in plan:
        bad = check(message, depth)
        if bad:
            found = bad if found is None else found + bad
    return found


def _within(path: str, found: list[Violation]) -> list[Violation]:
    """Violations of a nested message, with paths from its parent."""
    return [Violation(f"{path}.{v.field}" if v.field else path, v.problem) for v in found]


def _compile(descriptor: Any) -> tuple[Check, ...]:
    special = WELL_KNOWN.get(descriptor.full_name)
    if special is not None:
        return (special,)
    flat = [f for f in descriptor.fields if not f.is_repeated and not f.has_presence]
    flat = [f for f in flat if f.type != FieldDescriptor.TYPE_MESSAGE]
    checks: list[Check] = [_flat_check(flat)] if flat else []
    checks += [_field_check(f) for f in descriptor.fields if f not in flat]
    checks += [_oneof_check(o) for o in descriptor.oneofs if _oneof_required(o)]
    return tuple(checks)


def _flat_check(fields: Sequence[FieldDescriptor]) -> Check:
    """One check for all the plain scalar fields of a message (most of a request's fields):
    one call per message instead of one per field."""
    specs = [
        (f.name, bool(_rules(f).required), _missing(f), scalar_check(f, _rules(f))) for f in fields
    ]

    def check(message: Message, depth: int) -> Found:
        found: list[Violation] = []
        for name, required, missing, item in specs:
            value = getattr(message, name)
            problem = missing if required and not value else item(value)
            if problem is not None:
                found.append(Violation(name, problem))
        return found or None

    return check


def _missing(field: FieldDescriptor) -> str:
    if field.type == FieldDescriptor.TYPE_ENUM:
        return f"is required (one of {enum_names(field)})"
    return "is required"


def _rules(field: FieldDescriptor) -> validate_pb2.FieldRules:
    options = field.GetOptions()
    if options.HasExtension(validate_pb2.rules):
        return options.Extensions[validate_pb2.rules]
    return validate_pb2.FieldRules()


def _oneof_required(oneof: OneofDescriptor) -> bool:
    return bool(oneof.GetOptions().Extensions[validate_pb2.oneof_required])


def _oneof_check(oneof: OneofDescriptor) -> Check:
    name = oneof.name
    choices = ", ".join(f.name for f in oneof.fields)

    def check(message: Message, depth: int) -> Found:
        if message.WhichOneof(name) is None:
            return [Violation(name, f"one of {choices} is required")]
        return None

    return check


def _is_map(field: FieldDescriptor) -> bool:
    message_type = field.message_type
    return message_type is not None and bool(message_type.GetOptions().map_entry)


def _field_check(field: FieldDescriptor) -> Check:
    rules = _rules(field)
    if field.is_repeated:
        return _repeated_check(field, rules)
    name = field.name
    required = rules.required
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        message_type = field.message_type

        def message_field(message: Message, depth: int) -> Found:
            if not message.HasField(name):
                return [Violation(name, "is required")] if required else None
            found = _check_message(getattr(message, name), depth + 1, _plan(message_type))
            return _within(name, found) if found else None

        return message_field
    presence = field.has_presence
    item = scalar_check(field, rules)
    missing = _missing(field)

    def scalar_field(message: Message, depth: int) -> Found:
        if presence and not message.HasField(name):
            return [Violation(name, missing)] if required else None
        value = getattr(message, name)
        if required and not value:
            return [Violation(name, missing)]
        problem = item(value)
        return None if problem is None else [Violation(name, problem)]

    return scalar_field


def _repeated_check(field: FieldDescriptor, rules: validate_pb2.FieldRules) -> Check:
    name = field.name
    max_items = rules.max_items or DEFAULT_MAX_ITEMS
    required, unique = rules.required, rules.unique
    is_map = _is_map(field)
    item = None if field.type == FieldDescriptor.TYPE_MESSAGE else scalar_check(field, rules)
    message_type = field.message_type

    def repeated(message: Message, depth: int) -> Found:
        values = getattr(message, name)
        count = len(values)
        if count == 0:
            return [Violation(name, "is required (at least one item)")] if required else None
        if count > max_items:
            return [Violation(name, f"at most {max_items} items (got {count})")]
        if is_map:
            return [Violation(name, "map fields are not accepted in requests")]
        found: list[Violation] = []
        if item is None:
            plan = _plan(message_type)  # looked up here: a message type may contain itself
            if len(plan) == 1 and depth < MAX_DEPTH:  # e.g. cards: one check, no recursion
                (only,) = plan
                for index, value in enumerate(values):
                    bad = only(value, depth + 1)
                    if bad:
                        found += _within(f"{name}[{index}]", bad)
                return found or None
            for index, value in enumerate(values):
                bad = _check_message(value, depth + 1, plan)
                if bad:
                    found += _within(f"{name}[{index}]", bad)
            return found or None
        if unique and len(set(values)) != count:
            found.append(Violation(name, "items must be distinct"))
        for index, value in enumerate(values):
            problem = item(value)
            if problem is not None:
                found.append(Violation(f"{name}[{index}]", problem))
        return found or None

    return repeated
