"""Per-caller concurrency: at most N calls of one caller in flight at a time.

A service that does costly work per call (the evaluator) sets ``Mount.max_calls_per_caller``;
the server then answers a caller's call beyond the limit RESOURCE_EXHAUSTED at once, with a retry
hint (trailing metadata ``grpc-retry-pushback-ms``, and in the message), instead of queueing it
behind work it may never wait for. Callers are keyed by
:func:`libs.platform.callers.caller_of` (the peer's address), so one caller cannot starve the
others by sending more calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from libs.errors import ResourceExhausted

#: gRPC's standard retry pushback (gRFC A6): a client retry policy waits this many milliseconds.
RETRY_AFTER_HEADER = "grpc-retry-pushback-ms"
TOO_MANY_CALLS = "TOO_MANY_CALLS"
_MIN_RETRY_MS = 10
_MAX_RETRY_MS = 5_000


@dataclass
class CallerLimiter:
    """Counts calls in flight per caller; keeps a moving average of call durations for the hint.

    Used from one event loop (no locking needed): ``try_acquire`` before the call, ``release``
    after it, whatever its outcome."""

    limit: int
    _in_flight: dict[str, int] = field(default_factory=dict)
    _average_seconds: float = 0.05

    def __post_init__(self) -> None:
        if self.limit < 1:
            raise ValueError("a limit is at least 1 call in flight")

    def try_acquire(self, caller: str) -> bool:
        count = self._in_flight.get(caller, 0)
        if count >= self.limit:
            return False
        self._in_flight[caller] = count + 1
        return True

    def release(self, caller: str, elapsed_seconds: float) -> None:
        count = self._in_flight.get(caller, 0) - 1
        if count > 0:
            self._in_flight[caller] = count
        else:
            self._in_flight.pop(caller, None)
        self._average_seconds += 0.2 * (max(elapsed_seconds, 0.0) - self._average_seconds)

    def in_flight(self, caller: str) -> int:
        return self._in_flight.get(caller, 0)

    def retry_after_ms(self) -> int:
        """About when one of a caller's calls should have finished."""
        return int(min(max(self._average_seconds * 1000, _MIN_RETRY_MS), _MAX_RETRY_MS))

    def refused(self) -> ResourceExhausted:
        """The refusal of a call beyond the limit (``TOO_MANY_CALLS``), with its retry hint."""
        retry_ms = self.retry_after_ms()
        return ResourceExhausted(
            TOO_MANY_CALLS,
            f"this caller already has {self.limit} calls in flight (the limit): "
            f"retry in {retry_ms} ms",
            retry_after_ms=retry_ms,
        )
