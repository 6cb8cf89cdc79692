"""How domain errors become gRPC status codes.

The error kinds and the :class:`DomainError` family live in libs.errors (pure). Here each kind
has its status; other libraries (the rules engine's ``PokerError`` family) are mapped without
being imported, by duck typing on ``code`` and ``message`` plus small registries keyed by code or
by exception class name. An error's retry hint (``retry_after_ms``) goes with its status, for
the error layer to send as the ``grpc-retry-pushback-ms`` trailer. Everything else is an
internal error: the client gets a generic message, the log gets the traceback.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import grpc

from libs.errors import KIND_ALIASES, ErrorKind

#: The trailing metadata key that carries a refusal's stable code beside its status.
ERROR_CODE_HEADER = "x-error-code"

STATUS_OF_KIND: Mapping[ErrorKind, grpc.StatusCode] = {
    ErrorKind.INVALID_ARGUMENT: grpc.StatusCode.INVALID_ARGUMENT,
    ErrorKind.PRECONDITION: grpc.StatusCode.FAILED_PRECONDITION,
    ErrorKind.PERMISSION: grpc.StatusCode.PERMISSION_DENIED,
    ErrorKind.CONFLICT: grpc.StatusCode.ABORTED,
    ErrorKind.NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    ErrorKind.ALREADY_EXISTS: grpc.StatusCode.ALREADY_EXISTS,
    ErrorKind.UNAUTHENTICATED: grpc.StatusCode.UNAUTHENTICATED,
    ErrorKind.UNIMPLEMENTED: grpc.StatusCode.UNIMPLEMENTED,
    ErrorKind.UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
    ErrorKind.RESOURCE_EXHAUSTED: grpc.StatusCode.RESOURCE_EXHAUSTED,
}

INTERNAL_MESSAGE = "internal error"


@dataclass(frozen=True)
class GrpcError:
    """The status a failed call ends with. ``internal`` = an unexpected exception (log it);
    ``retry_after_ms``: when the caller may try again (None: no hint)."""

    status: grpc.StatusCode
    message: str
    code: str | None = None
    internal: bool = False
    retry_after_ms: int | None = None


# Status codes a downstream service answered with that are passed through unchanged: they describe
# the caller's request or a transient condition, not a bug in this service.
PASS_THROUGH: frozenset[grpc.StatusCode] = frozenset(
    {
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.ABORTED,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.ALREADY_EXISTS,
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.UNIMPLEMENTED,
        grpc.StatusCode.OUT_OF_RANGE,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
    }
)


def _as_kind(value: object) -> ErrorKind | None:
    if isinstance(value, ErrorKind):
        return value
    if isinstance(value, str):
        lowered = value.lower()
        try:
            return ErrorKind(lowered)
        except ValueError:
            return KIND_ALIASES.get(lowered)
    return None


class ErrorMapper:
    """Turns exceptions into gRPC statuses.

    Resolution order for an exception with string ``code`` and ``message`` attributes:
    1. the code registry (``register_code``): per-code refinements a service chooses, e.g.
       ``"UNKNOWN_PLAYER" -> NOT_FOUND``;
    2. its ``kind`` attribute (an :class:`ErrorKind`, its value such as ``"failed_precondition"``
       or an alias ``"precondition"``/``"permission"``/``"conflict"``), as on :class:`DomainError`
       and the engine's ``PokerError``;
    3. the class-name registry (``register_type``), checked along the MRO, e.g.
       ``"IllegalActionError" -> PRECONDITION`` without importing the engine;
    4. ``default_kind`` (a coded error is a refusal by some rule: FAILED_PRECONDITION).
    gRPC errors from downstream calls keep their status when it is in :data:`PASS_THROUGH`.
    Anything else is INTERNAL with a generic message.
    """

    def __init__(self, default_kind: ErrorKind = ErrorKind.PRECONDITION) -> None:
        self.default_kind = default_kind
        self._by_code: dict[str, ErrorKind] = {}
        self._by_type: dict[str, ErrorKind] = {}

    def register_code(self, code: str, kind: ErrorKind) -> None:
        self._by_code[code] = kind

    def register_codes(self, table: Mapping[str, ErrorKind]) -> None:
        self._by_code.update(table)

    def register_type(self, class_name: str, kind: ErrorKind) -> None:
        self._by_type[class_name] = kind

    def register_types(self, table: Mapping[str, ErrorKind]) -> None:
        self._by_type.update(table)

    @property
    def codes(self) -> Mapping[str, ErrorKind]:
        """The per-code refinements registered."""
        return dict(self._by_code)

    @property
    def types(self) -> Mapping[str, ErrorKind]:
        """The per-class-name refinements registered."""
        return dict(self._by_type)

    def kind_of(self, exc: BaseException) -> ErrorKind | None:
        """The kind of a domain error, or None when ``exc`` is not one."""
        code = getattr(exc, "code", None)
        message = getattr(exc, "message", None)
        if not isinstance(code, str) or not isinstance(message, str):
            return None
        if code in self._by_code:
            return self._by_code[code]
        declared = _as_kind(getattr(exc, "kind", None))
        if declared is not None:
            return declared
        for cls in type(exc).__mro__:
            if cls.__name__ in self._by_type:
                return self._by_type[cls.__name__]
        return self.default_kind

    def to_grpc(self, exc: BaseException) -> GrpcError:
        kind = self.kind_of(exc)
        if kind is not None:
            return GrpcError(
                STATUS_OF_KIND[kind],
                getattr(exc, "message", ""),
                code=getattr(exc, "code", None),
                retry_after_ms=_retry_hint(exc),
            )
        if isinstance(exc, grpc.aio.AioRpcError) and exc.code() in PASS_THROUGH:
            return GrpcError(exc.code(), exc.details() or exc.code().name, code=error_code_of(exc))
        return GrpcError(grpc.StatusCode.INTERNAL, INTERNAL_MESSAGE, internal=True)


def _retry_hint(exc: BaseException) -> int | None:
    """The milliseconds ``exc`` says to wait before trying again, if it says."""
    hint = getattr(exc, "retry_after_ms", None)
    return hint if isinstance(hint, int) and not isinstance(hint, bool) else None


def error_code_of(exc: grpc.aio.AioRpcError) -> str | None:
    """A downstream answer's stable error code (its ``x-error-code`` trailer): a refusal passed
    through keeps it (a client tells TABLE_CLOSED from other preconditions by it), and a caller
    tells one refusal from another by it."""
    for key, value in exc.trailing_metadata() or ():
        if key == ERROR_CODE_HEADER and value:
            return value if isinstance(value, str) else value.decode()
    return None
