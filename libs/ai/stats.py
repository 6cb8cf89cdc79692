"""Means, standard deviations and 95% confidence intervals of match results.

Intervals use Student's t quantile for the number of independent values (duplicate groups), so
short matches do not claim more than they show; with fewer than two values there is no interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

# Two-sided 95% quantiles of Student's t by degrees of freedom (the next lower entry is used).
_T975 = (
    (1, 12.706),
    (2, 4.303),
    (3, 3.182),
    (4, 2.776),
    (5, 2.571),
    (6, 2.447),
    (7, 2.365),
    (8, 2.306),
    (9, 2.262),
    (10, 2.228),
    (12, 2.179),
    (15, 2.131),
    (20, 2.086),
    (25, 2.060),
    (30, 2.042),
    (40, 2.021),
    (60, 2.000),
    (120, 1.980),
)


def t975(df: int) -> float:
    """Two-sided 95% quantile of Student's t (1.96 beyond 120 degrees of freedom)."""
    if df < 1:
        raise ValueError("an interval needs at least one degree of freedom")
    if df > 120:
        return 1.96
    value = _T975[0][1]
    for dof, quantile in _T975:
        if dof <= df:
            value = quantile
    return value


@dataclass(frozen=True, slots=True)
class Summary:
    """Mean and spread of ``n`` independent values; ``ci95`` is None below two values."""

    n: int
    mean: float
    sd: float
    ci95: tuple[float, float] | None

    @property
    def half_width(self) -> float | None:
        return None if self.ci95 is None else (self.ci95[1] - self.ci95[0]) / 2

    def needed(self, per_value: int = 1) -> int | None:
        """Values (times ``per_value``) for the interval to exclude zero at this mean and sd."""
        if self.n < 2 or self.mean == 0:
            return None
        return per_value * max(2, math.ceil((1.96 * self.sd / abs(self.mean)) ** 2))


def summarize(values: Sequence[float]) -> Summary:
    n = len(values)
    if n == 0:
        return Summary(0, 0.0, 0.0, None)
    mean = math.fsum(values) / n
    if n < 2:
        return Summary(n, mean, 0.0, None)
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    sd = math.sqrt(var)
    half = t975(n - 1) * sd / math.sqrt(n)
    return Summary(n, mean, sd, (mean - half, mean + half))
