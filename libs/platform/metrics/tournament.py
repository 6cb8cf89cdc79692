"""The tournament service's metrics, recorded by services/tournament/supervisor.py:

- ``DIRECTORS``: tournaments this process directs now (holds the lease of, its director
  running);
- ``TAKEOVERS``: tournaments it started directing (a new one, or one taken over from a process
  that died or let its lease go);
- ``LEASES_LOST``: directors stopped because their lease was lost (this process stalled past
  the lease's lifetime, or another took the tournament);
- ``DIRECTOR_FAILURES``: directors that stopped on an error (started again from their
  checkpoint the next round).
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge

DIRECTORS = Gauge("holdem_tournament_directors", "Tournaments this process directs now")
TAKEOVERS = Counter(
    "holdem_tournament_directors_started_total", "Directors started (new or taken over)"
)
LEASES_LOST = Counter(
    "holdem_tournament_leases_lost_total", "Directors stopped because their lease was lost"
)
DIRECTOR_FAILURES = Counter(
    "holdem_tournament_director_failures_total", "Directors that stopped on an error"
)
