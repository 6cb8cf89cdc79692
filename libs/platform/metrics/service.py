"""Metrics every service exports: its gRPC calls (recorded by the server's metrics layer,
``metrics_layer`` in libs.platform.layers) and which service it is.

Labels: ``grpc_service`` (full proto service name, e.g. ``holdem.table.v1.TableService``),
``grpc_method`` (``SubmitAction``), ``grpc_code`` (``OK``, ``INVALID_ARGUMENT``, ...). Their
values are bounded: only methods a server really serves are recorded (unknown methods are
answered UNIMPLEMENTED by gRPC and never reach a layer).
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

#: From 0.5 ms (a unary call between two local processes costs ~0.7 ms) to 10 s (beyond every
#: default deadline).
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)

SERVICE_INFO = Gauge(
    "holdem_service_info",
    "Always 1; its labels say which holdem service this process runs",
    ["service"],
)
REQUESTS = Counter(
    "holdem_grpc_server_requests_total",
    "gRPC calls this server finished, by method and status code (streams when they close)",
    ["grpc_service", "grpc_method", "grpc_code"],
)
LATENCY = Histogram(
    "holdem_grpc_server_request_duration_seconds",
    "Time from the start of a single-response call to its answer, whatever the status",
    ["grpc_service", "grpc_method"],
    buckets=LATENCY_BUCKETS,
)
STREAMS_IN_FLIGHT = Gauge(
    "holdem_grpc_server_streams_in_flight",
    "Server-streaming calls open now (e.g. a client following a table)",
    ["grpc_service", "grpc_method"],
)


def split_method(full_method: str) -> tuple[str, str]:
    """``/holdem.table.v1.TableService/SubmitAction`` -> (``holdem.table.v1.TableService``,
    ``SubmitAction``)."""
    service, _, method = full_method.lstrip("/").rpartition("/")
    return service, method
