"""The gateway's per-caller token buckets."""

from __future__ import annotations

import pytest

from libs.platform import ratelimit
from libs.platform.ratelimit import RateLimiter


def test_a_burst_is_admitted_then_calls_wait_for_the_rate() -> None:
    limiter = RateLimiter(rate=10.0, burst=3)
    assert [limiter.take("p", 0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    wait = limiter.take("p", 0.0)
    assert wait == pytest.approx(0.1)
    assert limiter.take("p", 0.05) > 0.0
    assert limiter.take("p", 0.2) == 0.0


def test_callers_have_their_own_buckets() -> None:
    limiter = RateLimiter(rate=1.0, burst=1)
    assert limiter.take("a", 0.0) == 0.0
    assert limiter.take("a", 0.0) > 0.0
    assert limiter.take("b", 0.0) == 0.0


def test_idle_callers_are_forgotten_beyond_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ratelimit, "MAX_CALLERS", 2)
    limiter = RateLimiter(rate=1.0, burst=1)
    for name in "abc":
        limiter.take(name, 0.0)
    assert len(limiter) == 2


def test_nonsense_limits_are_refused() -> None:
    with pytest.raises(ValueError):
        RateLimiter(rate=0.0, burst=1)
