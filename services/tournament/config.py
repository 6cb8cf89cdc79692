"""Tournament service configuration: the shared HOLDEM_* variables plus its own."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from libs.platform.config import PlatformConfig, load_platform_config
from libs.platform.configvars import Var, integer, number

SERVICE = "tournament"

LEASE_TTL_SECONDS = Var(
    "HOLDEM_TOURNAMENT_LEASE_TTL_SECONDS",
    number(minimum=0.5, maximum=300),
    "5",
    "lifetime of a director's lease on a tournament (one process drives each tournament); "
    "another replica takes a tournament over within it when its director's process dies",
)
DIRECTOR_POLL_SECONDS = Var(
    "HOLDEM_TOURNAMENT_DIRECTOR_POLL_SECONDS",
    number(minimum=0.01, maximum=60),
    "0.5",
    "longest a director waits for a table's hand end or the clock before looking again",
)
SAGA_RESUME_SECONDS = Var(
    "HOLDEM_TOURNAMENT_SAGA_RESUME_SECONDS",
    number(minimum=0.1, maximum=3600),
    "5",
    "how often registration sagas a crash left open are driven to their end",
)
SNAPSHOT_EVERY = Var(
    "HOLDEM_TOURNAMENT_SNAPSHOT_EVERY",
    integer(minimum=1, maximum=100000),
    "50",
    "write a Redis snapshot of a tournament after this many commits",
)
VARIABLES: tuple[Var[Any], ...] = (
    LEASE_TTL_SECONDS,
    DIRECTOR_POLL_SECONDS,
    SAGA_RESUME_SECONDS,
    SNAPSHOT_EVERY,
)


@dataclass(frozen=True)
class TournamentServiceConfig:
    platform: PlatformConfig
    lease_ttl_seconds: float = 5.0
    director_poll_seconds: float = 0.5
    saga_resume_seconds: float = 5.0
    snapshot_every: int = 50


def load_config(environ: Mapping[str, str]) -> TournamentServiceConfig:
    platform, values = load_platform_config(SERVICE, environ, VARIABLES)
    return TournamentServiceConfig(
        platform=platform,
        lease_ttl_seconds=values[LEASE_TTL_SECONDS],
        director_poll_seconds=values[DIRECTOR_POLL_SECONDS],
        saga_resume_seconds=values[SAGA_RESUME_SECONDS],
        snapshot_every=values[SNAPSHOT_EVERY],
    )
