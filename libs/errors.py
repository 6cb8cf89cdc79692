"""The error kinds every layer raises, as plain exceptions (no gRPC here).

A *domain error* is any exception carrying ``code: str`` (stable, machine-readable) and
``message: str`` (for people), and a :class:`ErrorKind` saying what went wrong from the caller's
point of view; it may say when to try again (``retry_after_ms``: a limit used up, a dependency
away). The domain packages raise them; libs.platform.errors turns each kind into its gRPC status
at the service edge, and the retry hint into the standard trailer.

Also here: :func:`echo`, how a message quotes what a caller sent (short and escaped), for every
layer that refuses input.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import ClassVar


class ErrorKind(enum.Enum):
    """What went wrong from the caller's point of view; each kind has one status code. Values are
    the lower-cased status names, so an exception may also say ``kind = "failed_precondition"``."""

    INVALID_ARGUMENT = "invalid_argument"  # the request itself is malformed
    PRECONDITION = "failed_precondition"  # valid request, refused in the current state
    PERMISSION = "permission_denied"  # authenticated but not allowed
    CONFLICT = "aborted"  # lost a concurrent write; retry from fresh state
    NOT_FOUND = "not_found"
    ALREADY_EXISTS = "already_exists"
    UNAUTHENTICATED = "unauthenticated"
    UNIMPLEMENTED = "unimplemented"  # honest answer for behaviour of a later release
    UNAVAILABLE = "unavailable"  # not here now (e.g. another replica owns the table): retry
    RESOURCE_EXHAUSTED = "resource_exhausted"  # a limit of the caller's is used up: wait, retry


KIND_ALIASES: Mapping[str, ErrorKind] = {
    "precondition": ErrorKind.PRECONDITION,
    "permission": ErrorKind.PERMISSION,
    "conflict": ErrorKind.CONFLICT,
}


class DomainError(Exception):
    """Base of the platform's own typed errors: a stable ``code`` and a human ``message``;
    ``retry_after_ms``: when the caller may try again (None: no hint), sent as gRPC's retry
    pushback."""

    kind: ClassVar[ErrorKind] = ErrorKind.PRECONDITION

    def __init__(self, code: str, message: str, *, retry_after_ms: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.retry_after_ms = retry_after_ms


class InvalidArgument(DomainError):
    kind = ErrorKind.INVALID_ARGUMENT


class PreconditionFailed(DomainError):
    kind = ErrorKind.PRECONDITION


class PermissionDenied(DomainError):
    kind = ErrorKind.PERMISSION


class Conflict(DomainError):
    kind = ErrorKind.CONFLICT


class NotFound(DomainError):
    kind = ErrorKind.NOT_FOUND


class AlreadyExists(DomainError):
    kind = ErrorKind.ALREADY_EXISTS


class Unauthenticated(DomainError):
    kind = ErrorKind.UNAUTHENTICATED


class Unavailable(DomainError):
    """Not served now (a dependency down, the table owned elsewhere): retry."""

    kind = ErrorKind.UNAVAILABLE


class ResourceExhausted(DomainError):
    """A limit of the caller's is used up: retry later (``retry_after_ms`` says when)."""

    kind = ErrorKind.RESOURCE_EXHAUSTED


# Codes several services answer with (each service's own codes live with it).
NOT_IMPLEMENTED = "NOT_IMPLEMENTED"
INVALID_PAGE_TOKEN = "INVALID_PAGE_TOKEN"  # a page token no page of this list ended with


class NotImplementedYet(DomainError):
    """A method whose behaviour belongs to a later issue: answered as UNIMPLEMENTED."""

    kind = ErrorKind.UNIMPLEMENTED
    code: str = NOT_IMPLEMENTED  # always this code

    def __init__(self, method: str, later: str) -> None:
        super().__init__(NOT_IMPLEMENTED, f"{method} is not implemented yet: {later}")


#: Characters of an untrusted value an error message may repeat.
ECHO_CHARS = 32


def echo(value: str | bytes) -> str:
    """A short, escaped prefix of an untrusted value, safe to put in a message or a log line."""
    if len(value) <= ECHO_CHARS:
        return ascii(value)
    unit = "characters" if isinstance(value, str) else "bytes"
    return f"{value[:ECHO_CHARS]!a}... ({len(value)} {unit})"
