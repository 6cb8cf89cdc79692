"""Call rates per caller: a token bucket each (``rate`` calls per second sustained, ``burst`` at
once). Pure: the caller passes the time. Used by the gateway per player, and per peer before a
player is known; a refusal says when a call would be admitted again (the retry hint)."""

from __future__ import annotations

from dataclasses import dataclass, field

#: Callers remembered at most; the longest-idle are forgotten first (a forgotten caller simply
#: starts again with a full bucket, which only ever errs on the caller's side).
MAX_CALLERS = 100_000


@dataclass
class RateLimiter:
    rate: float  # tokens added per second
    burst: int  # bucket size
    _buckets: dict[str, tuple[float, float]] = field(default_factory=dict)  # tokens, last time

    def __post_init__(self) -> None:
        if self.rate <= 0 or self.burst < 1:
            raise ValueError("a rate above 0 and a burst of at least 1 are needed")

    def take(self, caller: str, now: float, cost: float = 1.0) -> float:
        """Admit one call of ``caller`` (0.0) or say in how many seconds it would be (> 0)."""
        tokens, last = self._buckets.pop(caller, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + max(0.0, now - last) * self.rate)
        if tokens >= cost:
            self._remember(caller, tokens - cost, now)
            return 0.0
        self._remember(caller, tokens, now)
        return (cost - tokens) / self.rate

    def _remember(self, caller: str, tokens: float, now: float) -> None:
        self._buckets[caller] = (tokens, now)  # re-inserted: the dict stays in last-use order
        while len(self._buckets) > MAX_CALLERS:
            self._buckets.pop(next(iter(self._buckets)))

    def __len__(self) -> int:
        return len(self._buckets)
