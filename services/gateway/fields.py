"""Copying a protobuf message into another by field names: how the gateway turns its clients'
requests into its backends' requests, and their answers into its own (the gateway's API mirrors
the lobby's and the table's messages, less the fields a client may not set)."""

from __future__ import annotations

from typing import TypeVar

from google.protobuf.message import Message

M = TypeVar("M", bound=Message)


def copy_fields(source: Message, target: M) -> M:
    """``source``'s set fields into ``target``'s fields of the same names (nested messages and
    lists of them recursively, enums by number); fields ``target`` lacks are left out. How the
    gateway turns its requests into the lobby's and the lobby's answers into its own."""
    fields = target.DESCRIPTOR.fields_by_name
    for field, value in source.ListFields():
        into = fields.get(field.name)
        if into is None:
            continue
        slot = getattr(target, field.name)
        if into.message_type is None:
            if field.is_repeated:
                slot.extend(value)
            else:
                setattr(target, field.name, value)
        elif into.message_type is field.message_type:  # the same type: a plain copy
            if field.is_repeated:
                slot.extend(value)
            else:
                slot.CopyFrom(value)
        elif field.is_repeated:
            for item in value:
                copy_fields(item, slot.add())
        else:
            slot.SetInParent()
            copy_fields(value, slot)
    return target
