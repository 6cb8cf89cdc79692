"""libs.cli.stack_metrics: the key figures `holdem stack status` shows, from a metrics page."""

from __future__ import annotations

import math

import pytest
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from libs.cli.stack_metrics import describe, figures, histogram_quantile, parse
from libs.platform.metrics.service import LATENCY_BUCKETS


def page() -> str:
    """A dealer's metrics page: 8 StartDeck and 2 refused DealCards calls, 50 health checks,
    three open streams, 5 decks, 50 MiB resident."""
    registry = CollectorRegistry()
    labels = ["grpc_service", "grpc_method"]
    calls = Counter("holdem_grpc_server_requests", "", [*labels, "grpc_code"], registry=registry)
    latency = Histogram(
        "holdem_grpc_server_request_duration_seconds",
        "",
        labels,
        buckets=LATENCY_BUCKETS,
        registry=registry,
    )
    dealer, health = "holdem.dealer.v1.DealerService", "grpc.health.v1.Health"
    for method, code, seconds, times in (
        ("StartDeck", "OK", 0.0005, 4),
        ("StartDeck", "OK", 0.004, 4),
        ("DealCards", "INVALID_ARGUMENT", 0.0005, 2),
    ):
        calls.labels(dealer, method, code).inc(times)
        for _ in range(times):
            latency.labels(dealer, method).observe(seconds)
    calls.labels(health, "Check", "OK").inc(50)
    for _ in range(50):
        latency.labels(health, "Check").observe(0.05)
    Gauge("holdem_grpc_server_streams_in_flight", "", labels, registry=registry).labels(
        "holdem.gateway.v1.GatewayService", "Follow"
    ).set(3)
    Counter("holdem_dealer_decks_dealt", "", registry=registry).inc(5)
    Gauge("process_resident_memory_bytes", "", registry=registry).set(50 * 2**20)
    return generate_latest(registry).decode()


def test_histogram_quantile_interpolates_inside_the_bucket() -> None:
    buckets = {0.001: 4.0, 0.01: 8.0, math.inf: 8.0}
    assert histogram_quantile(0.5, buckets) == pytest.approx(0.001)
    assert histogram_quantile(0.75, buckets) == pytest.approx(0.001 + 0.009 * 0.5)
    assert histogram_quantile(0.5, {0.001: 0.0, math.inf: 0.0}) is None
    # beyond the highest finite bound: that bound, as Prometheus answers
    assert histogram_quantile(0.99, {0.001: 1.0, math.inf: 10.0}) == 0.001


def test_figures_leave_out_probes_and_add_the_services_own_counters() -> None:
    shown = figures("dealer", parse(page()))
    assert shown["calls"] == 10 and shown["not_ok"] == 2  # the 50 health checks left out
    assert shown["p50_ms"] <= 0.5  # 6 of the 10 took 0.5 ms (the 50 ms checks left out)
    assert 2.5 < shown["p99_ms"] <= 5.0  # the slowest took 4 ms
    assert (shown["streams"], shown["rss_mb"], shown["decks_dealt"]) == (3, 50.0, 5)
    assert "commits" not in figures("table", parse(page()))  # not exported: not shown


def test_describe_is_one_line_of_figures() -> None:
    assert describe(None) == "metrics: -"
    line = describe({"address": "127.0.0.1:1", "calls": 10.0, "p99_ms": 9.55})
    assert line == "calls=10 p99_ms=9.55"
