"""Benchmarks: ``python -m benchmarks`` runs all of them, ``python -m benchmarks NAME`` one.

Each benchmark module exposes ``NAME``, ``DESCRIPTION``, ``add_arguments(parser)`` and
``run(args) -> list[Result]``; ``benchmarks/__main__.py`` lists them in ``BENCHMARKS``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True, slots=True)
class Result:
    """One comparison: our throughput, a peer's, and the ratio ours / peer. ``unit`` says what
    the numbers are: per second (the default), or milliseconds (a latency: lower is better)."""

    name: str
    ours_per_s: float
    peer: str
    peer_per_s: float
    unit: str = "/s"

    @property
    def ratio(self) -> float:
        return self.ours_per_s / self.peer_per_s if self.peer_per_s else float("inf")

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = asdict(self)
        out["ratio"] = self.ratio
        return out


__all__ = ["Result"]
