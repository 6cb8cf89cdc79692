"""The table service's metrics, declared here so that recording one is a single line at its site
(``from libs.platform.metrics import table as metrics`` in services/table, then the line below).

services/table records them where each belongs:

============================  ==============================================================
metric                        record
============================  ==============================================================
``COMMITS``                   ``COMMITS.inc()`` after an append succeeded
``CONFLICTS``                 ``CONFLICTS.inc()`` where an append raises ConcurrencyConflict
``RETRIES``                   ``RETRIES.inc()`` when a command is decided again after one
``SNAPSHOT_SAVE_SECONDS``     ``with SNAPSHOT_SAVE_SECONDS.time():`` around snapshots.save
``SNAPSHOT_LOAD_SECONDS``     ``with SNAPSHOT_LOAD_SECONDS.time():`` around loading a table
                              (snapshot + stream tail)
``LEASES_HELD``               ``LEASES_HELD.set_function(lambda: len(leases.held()))`` once
``TABLES_HELD``               ``TABLES_HELD.set_function(lambda: len(app.tables))`` once
``LEASES_TAKEN_OVER``         ``LEASES_TAKEN_OVER.inc()`` when adopt() acquires a shard
``OWNERSHIP_WRITES``          ``OWNERSHIP_WRITES.inc(n)`` after each renewal or rebalancing
                              round: the lease writes made since the last
``HANDS_COMPLETED``           ``HANDS_COMPLETED.inc()`` when a commit ends a hand (hands/s is
                              its rate)
``HANDS_VOIDED``              ``HANDS_VOIDED.inc()`` when a commit voids a hand
``EVALUATOR_FALLBACKS``       ``EVALUATOR_FALLBACKS.inc()`` where ``evaluator_unavailable`` is
                              logged
``SNAPSHOT_STORE_UP``         ``set_function`` once: whether the snapshot cache answered last
``AI_FALLBACKS``              ``AI_FALLBACKS.inc()`` when a bot's decision falls back to the
                              clock rule (check, else fold): no legal answer from the ai
                              service in time (recorded in services/table/bots.py)
============================  ==============================================================
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

#: Redis round trips (~0.2 ms here) up to a long stream replay.
STORE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)

COMMITS = Counter("holdem_table_commits_total", "Commits appended to table streams by this replica")
CONFLICTS = Counter(
    "holdem_table_conflicts_total",
    "Appends refused because the stream moved (expected-sequence conflict: another writer won)",
)
RETRIES = Counter(
    "holdem_table_retries_total", "Commands reloaded and decided again after a conflict"
)
SNAPSHOT_SAVE_SECONDS = Histogram(
    "holdem_table_snapshot_save_seconds",
    "Time to write one table snapshot to Redis",
    buckets=STORE_BUCKETS,
)
SNAPSHOT_LOAD_SECONDS = Histogram(
    "holdem_table_snapshot_load_seconds",
    "Time to load a table that was not in memory: Redis snapshot plus the JetStream tail",
    buckets=STORE_BUCKETS,
)
LEASES_HELD = Gauge(
    "holdem_table_leases_held", "Shards of tables this replica owns now (shard leases held)"
)
TABLES_HELD = Gauge("holdem_table_tables_held", "Tables this replica holds loaded in memory now")
OWNERSHIP_WRITES = Counter(
    "holdem_table_ownership_writes",
    "Writes this replica made to the lease buckets (renewals, claims, hand-backs, announces)",
)
LEASES_TAKEN_OVER = Counter(
    "holdem_table_leases_taken_over_total",
    "Tables this replica adopted from another replica (dead, or handing tables back)",
)
HANDS_COMPLETED = Counter(
    "holdem_table_hands_completed_total", "Hands that ended normally (hands/s is the rate)"
)
HANDS_VOIDED = Counter(
    "holdem_table_hands_voided_total",
    "Hands voided by a server fault (every chip put in returned)",
)
EVALUATOR_FALLBACKS = Counter(
    "holdem_table_evaluator_fallbacks_total",
    "Showdowns ranked in-process because the evaluator service did not answer",
)
SNAPSHOT_STORE_UP = Gauge(
    "holdem_table_snapshot_store_up",
    "1 while the snapshot store (Redis) answers, 0 while it does not: snapshots are a cache, "
    "so the table service keeps serving (tables load by replaying their streams)",
)
AI_FALLBACKS = Counter(
    "holdem_table_ai_fallbacks_total",
    "Bot decisions taken by the clock rule (check, else fold) because the ai service gave no "
    "legal answer in time",
)
