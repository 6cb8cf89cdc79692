"""The lobby service's metrics: the buy-in and cash-out sagas (ARCHITECTURE.md, "Chips across
services"), declared here so that recording one is a single line at its site, e.g.
``SAGAS_STARTED.labels("buy_in").inc()``.

Recorded by services/lobby/sagas.py (docs/lobby.md, "Sagas"):

- ``SAGAS_STARTED``: a buy-in's wallet reservation is written; a leave is submitted (cash_out);
- ``SAGAS_FINISHED``: a buy-in is confirmed; a leave's credit arrived while LeaveTable waited;
- ``SAGAS_COMPENSATED``: a buy-in was undone by its compensation (the seat was refused, the
  reservation released);
- ``SAGAS_STUCK``: set by the process manager on each pass to the number of buy-ins older than
  30 s and still unfinished (it keeps resuming them).

Each saga kind's series exist from the start (at 0), so rates and alerts see them before the
first saga.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge

SAGA_KINDS = ("buy_in", "cash_out")

SAGAS_STARTED = Counter(
    "holdem_lobby_sagas_started_total", "Buy-in / cash-out sagas started", ["saga"]
)
SAGAS_FINISHED = Counter(
    "holdem_lobby_sagas_finished_total", "Sagas whose every step completed", ["saga"]
)
SAGAS_COMPENSATED = Counter(
    "holdem_lobby_sagas_compensated_total",
    "Sagas undone by their compensation (chips back where they started)",
    ["saga"],
)
SAGAS_STUCK = Gauge(
    "holdem_lobby_sagas_stuck",
    "Sagas unfinished past their deadline now (the process manager keeps resuming them)",
    ["saga"],
)

for _kind in SAGA_KINDS:
    for _metric in (SAGAS_STARTED, SAGAS_FINISHED, SAGAS_COMPENSATED, SAGAS_STUCK):
        _metric.labels(_kind)
