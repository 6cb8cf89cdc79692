"""Per-type converters between dataclasses and JSON-able data, compiled once from type hints.

``codec`` stores events and snapshots as plain data (cards as indexes, enums by value, nested
dataclasses as objects). Walking the type hints for every value (``codec``'s generic
``_to_data`` / ``_from_data``) cost most of a replay; here each type gets its own converter,
built the first time the type is met: a dataclass's is generated source (one dict display or
one constructor call, every field's converter bound by name), a field that needs no conversion
(str, int, float, bool, tuples of them) is read as it is. The data are exactly the generic
codec's, so what one writes the other reads (tests/table/test_codec.py checks both ways).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from enum import Enum
from typing import Any

from libs.poker.cards import DECK, Card

__all__ = ["Converters"]

Convert = Callable[[Any], Any]
_PLAIN = frozenset({int, str, float, bool, type(None)})


class Converters:
    """``encoder(tp)`` and ``decoder(tp)``: the compiled converters of type ``tp`` (None when
    values need no conversion). ``hints(cls)`` resolves a dataclass's field types;
    ``fallback_encode`` / ``fallback_decode(tp, value)`` handle what is not compiled (``Any``,
    unions of several types)."""

    def __init__(
        self,
        hints: Callable[[type], dict[str, Any]],
        fallback_encode: Convert,
        fallback_decode: Callable[[Any, Any], Any],
    ) -> None:
        self._hints = hints
        self._fallback_encode = fallback_encode
        self._fallback_decode = fallback_decode
        self._encoders: dict[Any, Convert | None] = {}
        self._decoders: dict[Any, Convert | None] = {}

    # -- encoding ----------------------------------------------------------------------------

    def encode(self, tp: Any, value: Any) -> Any:
        convert = self.encoder(tp)
        return value if convert is None else convert(value)

    def encoder(self, tp: Any) -> Convert | None:
        try:
            return self._encoders[tp]
        except KeyError:
            pass
        convert = self._build_encoder(tp)
        self._encoders[tp] = convert
        return convert

    def _build_encoder(self, tp: Any) -> Convert | None:
        if tp in _PLAIN:
            return None
        if tp is Card:
            return int
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if origin in (typing.Union, types.UnionType):
            options = [a for a in args if a is not type(None)]
            if len(options) != 1:
                return self._fallback_encode
            inner = self.encoder(options[0])
            if inner is None:
                return None
            return lambda v: None if v is None else inner(v)
        if origin in (tuple, list):
            if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
                parts = [self.encoder(a) for a in args]
                if all(p is None for p in parts):
                    return None
                fixed = [p or _same for p in parts]
                return lambda v: [p(x) for p, x in zip(fixed, v, strict=True)]
            item = self.encoder(args[0])
            if item is None:
                return None  # json writes a tuple as the list the generic codec made of it
            return lambda v: [item(x) for x in v]
        if origin is dict:
            value_encoder = self.encoder(args[1])
            if value_encoder is None:
                return None
            return lambda v: {k: value_encoder(x) for k, x in v.items()}
        if isinstance(tp, type) and issubclass(tp, Enum):
            return _enum_value
        if isinstance(tp, type) and dataclasses.is_dataclass(tp):
            return self._dataclass_encoder(tp)
        return self._fallback_encode

    def _dataclass_encoder(self, cls: type) -> Convert:
        hints = self._hints(cls)
        namespace: dict[str, Any] = {}
        items = []
        for f in dataclasses.fields(cls):
            convert = self.encoder(hints[f.name])
            if convert is None:
                items.append(f"{f.name!r}: v.{f.name}")
            else:
                namespace[f"e_{f.name}"] = convert
                items.append(f"{f.name!r}: e_{f.name}(v.{f.name})")
        source = "def encode(v):\n    return {" + ", ".join(items) + "}\n"
        return _compile(source, namespace, "encode")

    # -- decoding ----------------------------------------------------------------------------

    def decode(self, tp: Any, value: Any) -> Any:
        convert = self.decoder(tp)
        return value if convert is None else convert(value)

    def decoder(self, tp: Any) -> Convert | None:
        try:
            return self._decoders[tp]
        except KeyError:
            pass
        convert = self._build_decoder(tp)
        self._decoders[tp] = convert
        return convert

    def _build_decoder(self, tp: Any) -> Convert | None:
        if tp in _PLAIN or tp is Any:
            return None
        if tp is Card:
            return _card
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if origin in (typing.Union, types.UnionType):
            options = [a for a in args if a is not type(None)]
            if len(options) != 1:
                return None  # the generic codec keeps such a value as it is
            inner = self.decoder(options[0])
            if inner is None:
                return None
            return lambda v: None if v is None else inner(v)
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                element = self.decoder(args[0])
                if element is None:
                    return tuple
                return lambda v: tuple([element(x) for x in v])
            fixed = [self.decoder(a) or _same for a in args]
            return lambda v: tuple([p(x) for p, x in zip(fixed, v, strict=True)])
        if origin is list:
            item = self.decoder(args[0])
            if item is None:
                return list
            return lambda v: [item(x) for x in v]
        if origin is dict:
            key = int if args[0] is int else (self.decoder(args[0]) or _same)
            value_decoder = self.decoder(args[1]) or _same
            return lambda v: {key(k): value_decoder(x) for k, x in v.items()}
        if isinstance(tp, type) and issubclass(tp, Enum):
            return _enum_decoder(tp)
        if isinstance(tp, type) and dataclasses.is_dataclass(tp):
            return self._dataclass_decoder(tp)
        return lambda v: self._fallback_decode(tp, v)

    def _dataclass_decoder(self, cls: type) -> Convert:
        """One constructor call when every field is there; otherwise (older data, whose missing
        fields take their defaults) the fields that are there."""
        hints = self._hints(cls)
        namespace: dict[str, Any] = {"cls": cls}
        arguments = []
        converters: dict[str, Convert] = {}
        for f in dataclasses.fields(cls):
            convert = self.decoder(hints[f.name])
            converters[f.name] = convert or _same
            if convert is None:
                arguments.append(f"{f.name}=v[{f.name!r}]")
            else:
                namespace[f"d_{f.name}"] = convert
                arguments.append(f"{f.name}=d_{f.name}(v[{f.name!r}])")

        def partial(v: dict[str, Any]) -> Any:
            return cls(**{name: c(v[name]) for name, c in converters.items() if name in v})

        namespace["partial"] = partial
        source = (
            "def decode(v):\n"
            "    try:\n"
            f"        return cls({', '.join(arguments)})\n"
            "    except KeyError:\n"
            "        return partial(v)\n"
        )
        return _compile(source, namespace, "decode")


def _compile(source: str, namespace: dict[str, Any], name: str) -> Convert:
    exec(compile(source, f"<converter {name}>", "exec"), namespace)  # our own generated source
    convert: Convert = namespace[name]
    return convert


def _same(value: Any) -> Any:
    return value


def _enum_value(value: Enum) -> Any:
    return value.value


def _enum_decoder(tp: type[Enum]) -> Convert:
    """``tp(value)``: the member of that value looked up in a dict first (calling the enum
    class costs about a microsecond; what the dict does not hold, the call answers as ever)."""
    members = {member.value: member for member in tp}

    def decode(value: Any) -> Any:
        try:
            return members[value]
        except (KeyError, TypeError):
            return tp(value)

    return decode


def _card(value: Any) -> Card:
    return DECK[int(value)]
