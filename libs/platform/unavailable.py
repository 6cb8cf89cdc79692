"""A dependency that fails is UNAVAILABLE, not INTERNAL (issue 9: no input and no dependency
failure may end a call INTERNAL or UNKNOWN): the one way every service says so.

NATS and JetStream (no responders, a timeout, a connection closed or reconnecting, an API error
such as a 503 while a stream elects its leader), a Redis that does not answer, and timeouts
raise exceptions that the error layer, knowing nothing of them, answers INTERNAL.
:data:`DEPENDENCY_FAILURES` is the one list of them; :func:`unavailable_on_failure` wraps the
methods of a servicer (unary and server-streaming) so that such an exception (or one of the
service's own ``failures``, e.g. its stores' errors) is raised again as
:class:`libs.errors.Unavailable`, a kind like the rest, which the error layer answers
UNAVAILABLE: by default ``DEPENDENCY_DOWN`` with a short fixed message (the cause goes to the
log, never to the client). Domain errors (a string ``code`` and ``message``, such as the event
store's coded conflicts), aborts and downstream gRPC statuses pass unchanged. A store that knows
it is down raises its own ``Unavailable`` (the dealer's seed store, the table's
``StoreUnavailable``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import nats.errors
import structlog
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from libs.errors import Unavailable
from libs.platform.servicers import translate_errors

__all__ = [
    "DEPENDENCY_DOWN",
    "DEPENDENCY_FAILURES",
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
#: The error a failure is answered with, made from the failure.
Answer = Callable[[BaseException], Exception]


def dependency_failure(
    exc: BaseException, failures: tuple[type[BaseException], ...] = DEPENDENCY_FAILURES
) -> bool:
    """``exc`` says a dependency failed (one of ``failures``, and no domain error of its own,
    such as the event store's coded conflicts, which keep their status)."""
    coded = isinstance(getattr(exc, "code", None), str) and isinstance(
        getattr(exc, "message", None), str
    )
    return isinstance(exc, failures) and not coded


def unavailable_on_failure(
    methods: Iterable[str],
    answer: str | Answer,
    failures: tuple[type[BaseException], ...] = DEPENDENCY_FAILURES,
) -> Callable[[C], C]:
    """A class decorator: each of ``methods`` (the RPCs of a servicer) ends UNAVAILABLE when a
    dependency fails under it (one of ``failures``): ``answer`` is the message of its
    ``DEPENDENCY_DOWN``, or makes the error to raise from the failure."""

    def on_error(name: str, exc: BaseException, request: Any) -> None:
        if not dependency_failure(exc, failures):
            return
        log.warning(
            "dependency_failed", method=name, error=type(exc).__name__, detail=str(exc)[:200]
        )
        raise (
            Unavailable(DEPENDENCY_DOWN, answer) if isinstance(answer, str) else answer(exc)
        ) from exc

    return translate_errors(methods, failures, on_error)
