"""Environment variables as declarations: a :class:`Var` (name, type, default, help) is read by
:func:`parse_env`, which validates every declared variable at once and raises one
:class:`ConfigError` naming each bad one and what is wrong with it. The value types
(:class:`VarType`: text, paths, numbers with bounds, booleans, choices, addresses, URLs) parse
a raw string or say why they cannot.

Which variables there are lives in ``libs.platform.config`` (the shared ones) and
``libs.platform.configkeys`` (keys), each service's own in ``services/<name>/config.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast
from urllib.parse import urlsplit

T = TypeVar("T")

#: The value of an :data:`OPTIONAL_ADDRESS` that turns its endpoint off.
OFF = "off"


class ConfigError(Exception):
    """The environment does not describe a valid configuration.

    ``problems`` holds one ``(variable, problem)`` pair per bad variable.
    """

    def __init__(self, problems: Sequence[tuple[str, str]]) -> None:
        self.problems = tuple(problems)
        lines = "\n".join(f"  {name}: {problem}" for name, problem in self.problems)
        super().__init__(f"invalid configuration:\n{lines}")


# ---- value types: parse a raw string or raise ValueError with a reason -----------------------


@dataclass(frozen=True)
class VarType(Generic[T]):
    """How to read one kind of value; ``parse`` raises ValueError with a human reason."""

    description: str
    parse: Callable[[str], T]


def _parse_str(raw: str) -> str:
    if not raw.strip():
        raise ValueError("must not be empty")
    return raw.strip()


STRING: VarType[str] = VarType("text", _parse_str)
#: A file's path, or empty for none.
OPTIONAL_PATH: VarType[str] = VarType("path", lambda raw: raw.strip())


def integer(minimum: int | None = None, maximum: int | None = None) -> VarType[int]:
    def parse(raw: str) -> int:
        try:
            value = int(raw.strip())
        except ValueError:
            raise ValueError(f"{raw!r} is not an integer") from None
        _check_bounds(value, minimum, maximum)
        return value

    return VarType(_bounded("integer", minimum, maximum), parse)


def number(minimum: float | None = None, maximum: float | None = None) -> VarType[float]:
    def parse(raw: str) -> float:
        try:
            value = float(raw.strip())
        except ValueError:
            raise ValueError(f"{raw!r} is not a number") from None
        if not math.isfinite(value):
            raise ValueError(f"{raw!r} is not a finite number")
        _check_bounds(value, minimum, maximum)
        return value

    return VarType(_bounded("number", minimum, maximum), parse)


def _bounded(kind: str, minimum: float | None, maximum: float | None) -> str:
    if minimum is not None and maximum is not None:
        return f"{kind} {minimum}..{maximum}"
    if minimum is not None:
        return f"{kind} >= {minimum}"
    if maximum is not None:
        return f"{kind} <= {maximum}"
    return kind


def _check_bounds(value: float, minimum: float | None, maximum: float | None) -> None:
    if minimum is not None and value < minimum:
        raise ValueError(f"{value} is below the minimum {minimum}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{value} is above the maximum {maximum}")


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _parse_bool(raw: str) -> bool:
    lowered = raw.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError(f"{raw!r} is not a boolean (use true/false, 1/0, yes/no, on/off)")


BOOLEAN: VarType[bool] = VarType("boolean", _parse_bool)


def choice(*options: str) -> VarType[str]:
    def parse(raw: str) -> str:
        lowered = raw.strip().lower()
        if lowered not in options:
            raise ValueError(f"{raw!r} is not one of {', '.join(options)}")
        return lowered

    return VarType("one of " + "|".join(options), parse)


def _parse_address(raw: str) -> str:
    """``host:port`` (IPv6 hosts in brackets); port 0 asks the OS for a free port."""
    value = raw.strip()
    host, sep, port = value.rpartition(":")
    if not sep or not host:
        raise ValueError(f"{raw!r} is not host:port (e.g. 127.0.0.1:50051)")
    if host.startswith("[") != host.endswith("]"):
        raise ValueError(f"{raw!r} has an unbalanced IPv6 bracket")
    if ":" in host and not host.startswith("["):
        raise ValueError(f"{raw!r}: put an IPv6 host in brackets, e.g. [::1]:50051")
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"{raw!r} has no valid port (0..65535)")
    return value


ADDRESS: VarType[str] = VarType("host:port", _parse_address)


def _parse_optional_address(raw: str) -> str | None:
    if raw.strip().lower() == OFF:
        return None
    return _parse_address(raw)


#: An address, or ``off`` (parsed as None) for an endpoint that may be turned off.
OPTIONAL_ADDRESS: VarType[str | None] = VarType(f"host:port or {OFF}", _parse_optional_address)


def redact_url(value: str) -> str:
    """``value`` (one URL or a comma-separated list) with every password replaced by ``***``:
    what logs, errors and status output show of a URL that may carry credentials
    (``nats://user:password@host:port``)."""
    out = []
    for one in value.split(","):
        try:
            parts = urlsplit(one.strip())
            password = parts.password
        except ValueError:
            password = None
        if password is None:
            out.append(one.strip())
            continue
        host = parts.netloc.rsplit("@", 1)[1]
        out.append(parts._replace(netloc=f"{parts.username or ''}:***@{host}").geturl())
    return ",".join(out)


def url(*schemes: str) -> VarType[str]:
    def parse(raw: str) -> str:
        value = raw.strip()
        shown = redact_url(value)  # an error never shows a password
        parts = urlsplit(value)
        if parts.scheme not in schemes or not parts.hostname:
            raise ValueError(f"{shown!r} is not a {'|'.join(schemes)}:// URL with a host")
        try:
            parts.port  # noqa: B018  (raises ValueError on a bad port)
        except ValueError:
            raise ValueError(f"{shown!r} has an invalid port") from None
        return value

    return VarType("|".join(f"{s}://" for s in schemes) + " URL", parse)


def url_list(*schemes: str) -> VarType[str]:
    """One URL or several, comma-separated (the nodes of a cluster); the value stays the text
    (``split_urls`` gives the list)."""
    one = url(*schemes)

    def parse(raw: str) -> str:
        parts = split_urls(raw)
        if not parts:
            raise ValueError("must not be empty")
        return ",".join(one.parse(part) for part in parts)

    return VarType(one.description + "[,URL...]", parse)


def split_urls(value: str) -> list[str]:
    """The URLs of a comma-separated list (blank items dropped)."""
    return [part.strip() for part in value.split(",") if part.strip()]


# ---- declarations -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Var(Generic[T]):
    """One environment variable. ``default`` is the raw string used when the variable is unset
    (None = required)."""

    name: str
    type: VarType[T]
    default: str | None
    help: str

    def read(self, environ: Mapping[str, str]) -> T:
        raw = environ.get(self.name)
        if raw is None or raw == "":
            if self.default is None:
                raise ValueError("is required but not set")
            raw = self.default
        try:
            return self.type.parse(raw)
        except ValueError as exc:
            raise ValueError(f"{exc} (expected {self.type.description})") from None


class Values:
    """Parsed values, looked up by their declaration (typed)."""

    def __init__(self, values: Mapping[str, Any]) -> None:
        self._values = dict(values)

    def __getitem__(self, var: Var[T]) -> T:
        return cast(T, self._values[var.name])


def parse_env(variables: Iterable[Var[Any]], environ: Mapping[str, str]) -> Values:
    """Read and validate every variable; raise one ConfigError listing all the bad ones."""
    values: dict[str, Any] = {}
    problems: list[tuple[str, str]] = []
    for var in variables:
        try:
            values[var.name] = var.read(environ)
        except ValueError as exc:
            problems.append((var.name, str(exc)))
    if problems:
        raise ConfigError(problems)
    return Values(values)
