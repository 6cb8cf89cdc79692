"""A dependency that fails is UNAVAILABLE, not INTERNAL (issue 9: no input and no dependency
failure may end a call INTERNAL or UNKNOWN).

NATS and JetStream (no responders, a timeout, a connection closed or reconnecting, an API error
such as a 503 while a stream elects its leader), a Redis that does not answer, and timeouts
raise exceptions that the error layer, knowing nothing of them, answers INTERNAL.
:data:`DEPENDENCY_FAILURES` is the one list of them; :func:`unavailable_on_failure` wraps the
methods of a servicer (unary and server-streaming) so that such an exception ends the call
UNAVAILABLE with a short fixed message (``DEPENDENCY_DOWN``; the cause goes to the log, never to
the client). Domain errors (a string ``code`` and ``message``), aborts and downstream gRPC
statuses pass unchanged. The table service's store check uses the same list
(services/table/server.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import nats.errors
import structlog
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from libs.errors import DomainError, ErrorKind
from libs.platform.servicers import translate_errors

__all__ = [
    "DEPENDENCY_DOWN",
    "DEPENDENCY_FAILURES",
    "Unavailable",
    "dependency_failure",
    "unavailable_on_failure",
]

log = structlog.get_logger("platform")

DEPENDENCY_DOWN = "DEPENDENCY_DOWN"
#: What a dependency that does not answer raises (nats.errors.Error covers JetStream's too).
DEPENDENCY_FAILURES: tuple[type[BaseException], ...] = (
    nats.errors.Error,
    RedisConnectionError,
    RedisTimeoutError,
    TimeoutError,
)

C = TypeVar("C", bound=type)


class Unavailable(DomainError):
    kind = ErrorKind.UNAVAILABLE


def dependency_failure(exc: BaseException) -> bool:
    """``exc`` says a dependency failed (and is no domain error of its own, such as the event
    store's coded conflicts, which keep their status)."""
    coded = isinstance(getattr(exc, "code", None), str) and isinstance(
        getattr(exc, "message", None), str
    )
    return isinstance(exc, DEPENDENCY_FAILURES) and not coded


def _unavailable(method: str, exc: BaseException, message: str) -> Unavailable:
    log.warning("dependency_failed", method=method, error=type(exc).__name__, detail=str(exc)[:200])
    return Unavailable(DEPENDENCY_DOWN, message)


def unavailable_on_failure(methods: Iterable[str], message: str) -> Callable[[C], C]:
    """A class decorator: each of ``methods`` (the RPCs of a servicer) ends UNAVAILABLE
    (``DEPENDENCY_DOWN``, ``message``) when a dependency fails under it."""

    def on_error(name: str, exc: BaseException, request: Any) -> None:
        if dependency_failure(exc):
            raise _unavailable(name, exc, message) from exc

    return translate_errors(methods, DEPENDENCY_FAILURES, on_error)
