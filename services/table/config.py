"""Table configuration: the shared HOLDEM_* variables plus the table service's own."""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from libs.eventstore.jetstream import TABLE_STREAM
from libs.platform.config import PlatformConfig, load_platform_config
from libs.platform.configvars import STRING, Var, choice, integer, number

SERVICE = "table"

SNAPSHOT_EVERY = Var(
    "HOLDEM_TABLE_SNAPSHOT_EVERY",
    integer(minimum=1),
    "50",
    "write a Redis snapshot after this many commits (and at every hand end)",
)
LEASE_TTL_SECONDS = Var(
    "HOLDEM_TABLE_LEASE_TTL_SECONDS",
    number(minimum=0.5, maximum=300),
    "5",
    "ownership lease lifetime (a lease per shard of tables); another replica takes a shard "
    "over within it",
)
SHARDS = Var(
    "HOLDEM_TABLE_SHARDS",
    integer(minimum=1, maximum=4096),
    "64",
    "tables hash to this many shards and a replica holds a lease per shard, so ownership "
    "costs the same however many tables it serves; every replica must use the same number",
)
DEALER = Var(
    "HOLDEM_TABLE_DEALER",
    choice("service", "local"),
    "service",
    "where cards come from: the dealer service, or the same algorithm in-process",
)
EVALUATOR = Var(
    "HOLDEM_TABLE_EVALUATOR",
    choice("service", "local"),
    "service",
    "who ranks hands at showdown: the evaluator service, or the same evaluator in-process",
)
AI = Var(
    "HOLDEM_TABLE_AI",
    choice("service", "local"),
    "service",
    "who decides for bot seats: the ai service (one Decide per decision), or the same levels "
    "in-process",
)
AI_TIMEOUT_MS = Var(
    "HOLDEM_TABLE_AI_TIMEOUT_MS",
    integer(minimum=10, maximum=10_000),
    "500",
    "a bot decision's budget: without a legal answer by then the seat checks, else folds "
    "(the clock rule), and the hand goes on",
)
STREAM = Var(
    "HOLDEM_TABLE_STREAM",
    STRING,
    TABLE_STREAM,
    "JetStream stream holding every table's commits (subjects holdem.table.<id>)",
)
PUBLIC_MAX_AGE_SECONDS = Var(
    "HOLDEM_TABLE_PUBLIC_MAX_AGE_SECONDS",
    number(minimum=60, maximum=10 * 365 * 24 * 3600),
    "604800",
    "how long the public projection (JetStream stream HOLDEM_PUBLIC, subjects "
    "holdem.public.table.<id>) keeps a commit",
)
PUBLIC_MAX_PER_TABLE = Var(
    "HOLDEM_TABLE_PUBLIC_MAX_PER_TABLE",
    integer(minimum=0),
    "0",
    "most public commits HOLDEM_PUBLIC keeps per table, the oldest dropped first (0 = no limit)",
)
IDEMPOTENCY_WINDOW_SECONDS = Var(
    "HOLDEM_TABLE_IDEMPOTENCY_WINDOW_SECONDS",
    number(minimum=120, maximum=24 * 3600),
    "300",
    "a command retried with the same idempotency key within this time is answered with its "
    "first outcome, whatever happened since (commits, restarts, Redis lost); also the "
    "duplicate window of the table stream",
)
SEED_DISCLOSURE_SECONDS = Var(
    "HOLDEM_TABLE_SEED_DISCLOSURE_SECONDS",
    number(minimum=0, maximum=365 * 24 * 3600),
    "86400",
    "how long after a hand its deck's seed becomes public (GetDecks): the seed makes every card "
    "of the hand known, folded and mucked ones too; 0 = in the public projection at the hand's "
    "end",
)
IDLE_UNLOAD_SECONDS = Var(
    "HOLDEM_TABLE_IDLE_UNLOAD_SECONDS",
    number(minimum=0, maximum=30 * 24 * 3600),
    "900",
    "a table with no hand in play where nothing happened for this long leaves the replica's "
    "memory (its next command loads it from its snapshot); 0 keeps every table loaded; at "
    "least the idempotency window",
)
REPLICA_ID = Var(
    "HOLDEM_TABLE_REPLICA_ID",
    STRING,
    "auto",
    "this replica's name in table leases (auto: <hostname>-<pid>); a replica restarted under "
    "the same name (a StatefulSet pod, a supervised process) takes its tables back at once "
    "instead of waiting for their leases to expire. Never give two live replicas one name",
)
ADVERTISE_ADDR = Var(
    "HOLDEM_TABLE_ADVERTISE_ADDR",
    STRING,
    "auto",
    "host:port the other services reach this replica at, announced beside its leases so that "
    "they send each table's calls to the replica holding it (docs/production.md, Routing). "
    "auto: the listen address, or with a wildcard host (0.0.0.0, [::]) this host's IP and the "
    "listen port; with listen port 0 nothing is announced (callers use HOLDEM_TABLE_ADDR)",
)
GROUP_COMMIT = Var(
    "HOLDEM_TABLE_GROUP_COMMIT",
    choice("on", "off"),
    "off",
    "on: commits of many tables that arrive together go to JetStream as one atomic batch (one "
    "fsync under sync_interval always; libs/eventstore/jsbatch.py). Off by default: measured, "
    "the table service's commits are bound by its CPU, not the fsyncs, and batching slowed "
    "them (docs/operations.md, Durability). A NATS older than 2.12 takes every commit alone",
)
VARIABLES: tuple[Var[Any], ...] = (
    SNAPSHOT_EVERY,
    LEASE_TTL_SECONDS,
    SHARDS,
    DEALER,
    EVALUATOR,
    AI,
    AI_TIMEOUT_MS,
    STREAM,
    PUBLIC_MAX_AGE_SECONDS,
    PUBLIC_MAX_PER_TABLE,
    IDEMPOTENCY_WINDOW_SECONDS,
    SEED_DISCLOSURE_SECONDS,
    IDLE_UNLOAD_SECONDS,
    REPLICA_ID,
    ADVERTISE_ADDR,
    GROUP_COMMIT,
)


@dataclass(frozen=True)
class TableServiceConfig:
    platform: PlatformConfig
    snapshot_every: int
    lease_ttl_seconds: float
    dealer: str
    evaluator: str
    ai: str
    ai_timeout_seconds: float
    stream: str
    public_max_age_seconds: float
    public_max_per_table: int
    replica_id: str
    idempotency_window_seconds: float = 300.0
    shards: int = 64
    seed_disclosure_seconds: float = 86400.0
    idle_unload_seconds: float = 900.0
    group_commit: bool = False
    advertise_addr: str | None = None  # None: callers reach it only at HOLDEM_TABLE_ADDR


def _replica_id(configured: str) -> str:
    return f"{socket.gethostname()}-{os.getpid()}" if configured == "auto" else configured


WILDCARD_HOSTS = {"", "0.0.0.0", "::", "[::]", "*"}


def advertise_address(configured: str, listen: str) -> str | None:
    """Where callers reach this replica: ``configured``, or for "auto" the listen address with
    a wildcard host made this host's IP (its hostname if that does not resolve); None when the
    listen port is 0 (not known before binding)."""
    if configured != "auto":
        return configured
    host, _, port = listen.rpartition(":")
    if port in ("", "0"):
        return None
    if host in WILDCARD_HOSTS:
        name = socket.gethostname()
        try:
            host = socket.gethostbyname(name)
        except OSError:
            host = name
    return f"{host}:{port}"


def load_config(environ: Mapping[str, str]) -> TableServiceConfig:
    platform, values = load_platform_config(SERVICE, environ, VARIABLES)
    return TableServiceConfig(
        platform=platform,
        snapshot_every=values[SNAPSHOT_EVERY],
        lease_ttl_seconds=values[LEASE_TTL_SECONDS],
        dealer=values[DEALER],
        evaluator=values[EVALUATOR],
        ai=values[AI],
        ai_timeout_seconds=values[AI_TIMEOUT_MS] / 1000,
        stream=values[STREAM],
        public_max_age_seconds=values[PUBLIC_MAX_AGE_SECONDS],
        public_max_per_table=values[PUBLIC_MAX_PER_TABLE],
        replica_id=_replica_id(values[REPLICA_ID]),
        idempotency_window_seconds=values[IDEMPOTENCY_WINDOW_SECONDS],
        seed_disclosure_seconds=values[SEED_DISCLOSURE_SECONDS],
        shards=values[SHARDS],
        idle_unload_seconds=values[IDLE_UNLOAD_SECONDS],
        group_commit=values[GROUP_COMMIT] == "on",
        advertise_addr=advertise_address(values[ADVERTISE_ADDR], platform.listen),
    )
