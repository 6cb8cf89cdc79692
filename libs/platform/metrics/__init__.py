"""Prometheus metrics. Every metric the platform exports is declared in this package, one module
per owner, on prometheus_client's process-wide registry (one process serves one service):

- :mod:`.service`: what every service exports: gRPC calls by method and status code, latency,
  open server streams (recorded by ``metrics_layer`` in :mod:`libs.platform.layers`), and
  ``holdem_service_info``; prometheus_client adds ``process_*`` (CPU, memory, open files) and
  ``python_*`` (GC) by itself;
- :mod:`.dealer`, :mod:`.table`, :mod:`.lobby`: each service's own; a service imports its module
  and records at the site with one line (``table.COMMITS.inc()``). A metric appears on a
  service's endpoint once its module is imported there;
- :mod:`.endpoint`: the HTTP endpoint serving them (``HOLDEM_METRICS_LISTEN``), started by
  :func:`libs.platform.server.serve`.

Names: ``holdem_<area>_<what>[_<unit>]``; counters end in ``_total``, durations are histograms in
seconds. deploy/monitoring (the Grafana dashboard and the alert rules) may only use names
declared here (tests/deploy checks them).

The ``*_created`` series prometheus_client adds by default (when each series was created) are
turned off for the whole process: nothing reads them and they would double every counter.
"""

from prometheus_client import disable_created_metrics

disable_created_metrics()  # type: ignore[no-untyped-call]
