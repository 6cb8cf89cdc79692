"""The HTTP endpoint that serves a process's metrics to Prometheus (``GET /metrics``, text
exposition format), on ``HOLDEM_METRICS_LISTEN``.

It runs prometheus_client's WSGI server on a daemon thread, so a scrape is answered even while the
service's event loop is busy, and costs the loop nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from threading import Thread
from wsgiref.simple_server import WSGIServer

from prometheus_client import REGISTRY, CollectorRegistry, start_http_server


class MetricsBindError(RuntimeError):
    """The endpoint cannot listen where it was told to."""


def split_address(address: str) -> tuple[str, int]:
    """``host:port`` (IPv6 hosts in brackets) -> (host without brackets, port)."""
    host, _, port = address.rpartition(":")
    return host.strip("[]"), int(port)


@dataclass
class MetricsEndpoint:
    server: WSGIServer
    thread: Thread

    @property
    def port(self) -> int:
        return int(self.server.server_port)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def start_metrics_endpoint(listen: str, registry: CollectorRegistry = REGISTRY) -> MetricsEndpoint:
    """Serve ``registry`` on ``listen`` (host:port; port 0 = any free port, see ``.port``)."""
    host, port = split_address(listen)
    try:
        server, thread = start_http_server(port, host, registry)
    except OSError as exc:
        raise MetricsBindError(f"cannot serve metrics on {listen}: {exc.strerror or exc}") from exc
    return MetricsEndpoint(server, thread)
