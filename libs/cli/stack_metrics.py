"""The key figures `holdem stack status` shows for each service, read from its Prometheus endpoint
(``GET http://<metrics address>/metrics``, see libs.platform.metrics).

Every service: ``calls`` (gRPC calls finished, health checks and reflection left out),
``not_ok`` (those that ended with another status than OK), ``p50_ms`` / ``p99_ms`` (latency of
single-response calls since the service started, interpolated from the histogram buckets as
Prometheus' ``histogram_quantile`` does), ``streams`` (server streams open now) and ``rss_mb``.
Then the service's own counters, those it exports (see ``SERVICE_FIGURES``).
"""

from __future__ import annotations

import math
import urllib.request
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

#: Calls made by probes and tools, not by users of the service.
PLUMBING_SERVICES = frozenset({"grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection"})

#: Per service: (figure, metric sample name), shown when the service exports it.
SERVICE_FIGURES: Mapping[str, Sequence[tuple[str, str]]] = {
    "dealer": (
        ("decks_dealt", "holdem_dealer_decks_dealt_total"),
        ("cards_dealt", "holdem_dealer_cards_dealt_total"),
    ),
    "table": (
        ("commits", "holdem_table_commits_total"),
        ("conflicts", "holdem_table_conflicts_total"),
        ("hands", "holdem_table_hands_completed_total"),
        ("leases_held", "holdem_table_leases_held"),
        ("evaluator_fallbacks", "holdem_table_evaluator_fallbacks_total"),
    ),
    "lobby": (
        ("sagas_started", "holdem_lobby_sagas_started_total"),
        ("sagas_stuck", "holdem_lobby_sagas_stuck"),
    ),
    "tournament": (
        ("directors", "holdem_tournament_directors"),
        ("directors_started", "holdem_tournament_directors_started_total"),
        ("leases_lost", "holdem_tournament_leases_lost_total"),
    ),
}


def parse(text: str) -> list[Sample]:
    return [s for family in text_string_to_metric_families(text) for s in family.samples]


def scrape(address: str, timeout: float = 2.0) -> list[Sample] | None:
    """The samples served at ``address`` (host:port), or None when nothing answers there."""
    try:
        with urllib.request.urlopen(f"http://{address}/metrics", timeout=timeout) as response:
            text = response.read().decode("utf-8")
    except (OSError, ValueError):
        return None
    return parse(text)


def histogram_quantile(q: float, buckets: Mapping[float, float]) -> float | None:
    """The ``q`` quantile of cumulative ``{upper bound: count}`` buckets (with ``+Inf``), by
    linear interpolation inside the bucket holding it; None without observations. Like
    Prometheus, a quantile in the ``+Inf`` bucket answers the highest finite bound."""
    bounds = sorted(buckets)
    if not bounds or buckets[bounds[-1]] <= 0:
        return None
    rank = q * buckets[bounds[-1]]
    lower_bound, lower_count = 0.0, 0.0
    for bound in bounds:
        count = buckets[bound]
        if count >= rank:
            if math.isinf(bound):
                return lower_bound
            if count == lower_count:
                return bound
            return lower_bound + (bound - lower_bound) * (rank - lower_count) / (
                count - lower_count
            )
        lower_bound, lower_count = bound, count
    return lower_bound


def _total(samples: Iterable[Sample], name: str) -> float | None:
    values = [s.value for s in samples if s.name == name]
    return sum(values) if values else None


def figures(service: str, samples: Sequence[Sample]) -> dict[str, float]:
    """The key figures of one service from its samples (see the module docstring)."""
    calls = [
        s
        for s in samples
        if s.name == "holdem_grpc_server_requests_total"
        and s.labels.get("grpc_service") not in PLUMBING_SERVICES
    ]
    result: dict[str, float] = {
        "calls": sum(s.value for s in calls),
        "not_ok": sum(s.value for s in calls if s.labels.get("grpc_code") != "OK"),
    }
    buckets: dict[float, float] = {}
    for s in samples:
        if (
            s.name == "holdem_grpc_server_request_duration_seconds_bucket"
            and s.labels.get("grpc_service") not in PLUMBING_SERVICES
        ):
            bound = float(s.labels["le"])
            buckets[bound] = buckets.get(bound, 0.0) + s.value
    for label, q in (("p50_ms", 0.5), ("p99_ms", 0.99)):
        value = histogram_quantile(q, buckets)
        if value is not None:
            result[label] = round(value * 1000, 2)
    result["streams"] = _total(samples, "holdem_grpc_server_streams_in_flight") or 0.0
    rss = _total(samples, "process_resident_memory_bytes")
    if rss is not None:
        result["rss_mb"] = round(rss / 2**20, 1)
    for label, name in SERVICE_FIGURES.get(service, ()):
        value = _total(samples, name)
        if value is not None:
            result[label] = value
    return result


def collect(services: Sequence[Mapping[str, Any]], timeout: float = 2.0) -> list[Any]:
    """For each ``{"name", "metrics": address or None}``: ``{"address", **figures}``, or None
    when it has no metrics address or its endpoint does not answer."""

    def one(service: Mapping[str, Any]) -> dict[str, Any] | None:
        address = service.get("metrics")
        if not address:
            return None
        samples = scrape(address, timeout)
        if samples is None:
            return None
        return {"address": address, **figures(service["name"], samples)}

    with ThreadPoolExecutor(max_workers=max(1, len(services))) as pool:
        return list(pool.map(one, services))


def describe(metrics: Mapping[str, Any] | None) -> str:
    """One line for the text output: ``calls=12 not_ok=0 p50_ms=1.2 ...``."""
    if metrics is None:
        return "metrics: -"
    return " ".join(f"{key}={_number(value)}" for key, value in metrics.items() if key != "address")


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
