"""The configuration every service shares: its address and the other services' (default ports),
NATS, Redis, logs, deadlines and retries, its keys and TLS files (:func:`platform_vars`), read
into one :class:`PlatformConfig` together with a service's own variables
(:func:`load_platform_config`). How a variable is declared and read: ``libs.platform.configvars``;
the docs' table: ``libs.platform.configdoc``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from libs.platform.configkeys import SERVICE_KEY, SERVICE_PUBLIC_KEYS
from libs.platform.configvars import (
    ADDRESS,
    OFF,
    OPTIONAL_ADDRESS,
    OPTIONAL_PATH,
    ConfigError,
    Values,
    Var,
    choice,
    integer,
    number,
    parse_env,
    url,
    url_list,
)
from libs.platform.identity import PublicKeys, ServiceKey
from libs.platform.tls import TlsError, TlsFiles, load_tls

#: Default port of each service on 127.0.0.1 (HOLDEM_LISTEN and the HOLDEM_<NAME>_ADDR defaults).
DEFAULT_PORTS: Mapping[str, int] = {
    "gateway": 50051,
    "lobby": 50052,
    "table": 50053,
    "dealer": 50054,
    "evaluator": 50055,
    "ai": 50056,
    "tournament": 50057,
}
SERVICES: tuple[str, ...] = tuple(DEFAULT_PORTS)
DEFAULT_HOST = "127.0.0.1"
#: Default port of each service's Prometheus endpoint on 127.0.0.1 (HOLDEM_METRICS_LISTEN).
DEFAULT_METRICS_PORTS: Mapping[str, int] = {
    "gateway": 9451,
    "lobby": 9452,
    "table": 9453,
    "dealer": 9454,
    "evaluator": 9455,
    "ai": 9456,
    "tournament": 9457,
}


def default_address(service: str) -> str:
    return f"{DEFAULT_HOST}:{DEFAULT_PORTS[service]}"


def default_metrics_address(service: str) -> str:
    return f"{DEFAULT_HOST}:{DEFAULT_METRICS_PORTS[service]}"


# ---- variables shared by every service ----------------------------------------------------------

LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
LOG_FORMATS = ("json", "console")

NATS_URL = Var(
    "HOLDEM_NATS_URL",
    url_list("nats", "tls"),
    "nats://127.0.0.1:4222",
    "NATS server URL, or every node of a cluster comma-separated",
)
NATS_REPLICAS = Var(
    "HOLDEM_NATS_REPLICAS",
    integer(minimum=1, maximum=5),
    "1",
    "replicas of each JetStream stream and KV bucket a service creates (3 on a 3-node cluster; "
    "at most the number of nodes)",
)
REDIS_URL = Var(
    "HOLDEM_REDIS_URL", url("redis", "rediss", "unix"), "redis://127.0.0.1:6379/0", "Redis URL"
)
LOG_LEVEL = Var("HOLDEM_LOG_LEVEL", choice(*LOG_LEVELS), "info", "lowest level logged")
LOG_FORMAT = Var(
    "HOLDEM_LOG_FORMAT",
    choice(*LOG_FORMATS),
    "json",
    "json: one JSON object per line; console: key=value lines for people",
)
SHUTDOWN_GRACE_SECONDS = Var(
    "HOLDEM_SHUTDOWN_GRACE_SECONDS",
    number(minimum=0, maximum=300),
    "10",
    "on SIGTERM/SIGINT, time given to in-flight calls before they are cancelled",
)
RPC_TIMEOUT_SECONDS = Var(
    "HOLDEM_RPC_TIMEOUT_SECONDS",
    number(minimum=0.01, maximum=300),
    "5",
    "default deadline of calls to other services (retries included)",
)
TLS_CA = Var(
    "HOLDEM_TLS_CA",
    OPTIONAL_PATH,
    "",
    "TLS between services (docs/hardening.md): PEM file of the CA that issued every service's "
    "certificate; with HOLDEM_TLS_CERT and HOLDEM_TLS_KEY (all three or none; none: plaintext)",
)
TLS_CERT = Var(
    "HOLDEM_TLS_CERT",
    OPTIONAL_PATH,
    "",
    "TLS: PEM file of this service's certificate (its service name as a DNS name)",
)
TLS_KEY = Var(
    "HOLDEM_TLS_KEY",
    OPTIONAL_PATH,
    "",
    "TLS: PEM file of this service's private key, a secret of this service only",
)
RPC_MAX_ATTEMPTS = Var(
    "HOLDEM_RPC_MAX_ATTEMPTS",
    integer(minimum=1, maximum=5),
    "3",
    "attempts per call to another service when it is UNAVAILABLE (1 = no retry)",
)


def listen_var(service: str) -> Var[str]:
    return Var(
        "HOLDEM_LISTEN",
        ADDRESS,
        default_address(service),
        "host:port this service listens on (port 0 = any free port)",
    )


def metrics_listen_var(service: str) -> Var[str | None]:
    return Var(
        "HOLDEM_METRICS_LISTEN",
        OPTIONAL_ADDRESS,
        default_metrics_address(service),
        "host:port of this service's Prometheus endpoint, HTTP GET /metrics "
        f"(port 0 = any free port; {OFF} = no endpoint)",
    )


def peer_var(service: str) -> Var[str]:
    return Var(
        f"HOLDEM_{service.upper()}_ADDR",
        ADDRESS,
        default_address(service),
        f"where the {service} service is",
    )


PEER_VARS: Mapping[str, Var[str]] = {name: peer_var(name) for name in SERVICES}


def platform_vars(service: str) -> tuple[Var[Any], ...]:
    """The variables every service reads (HOLDEM_LISTEN's default depends on the service)."""
    if service not in DEFAULT_PORTS:
        raise KeyError(f"unknown service {service!r}; known: {', '.join(SERVICES)}")
    return (
        listen_var(service),
        metrics_listen_var(service),
        NATS_URL,
        NATS_REPLICAS,
        REDIS_URL,
        *PEER_VARS.values(),
        LOG_LEVEL,
        LOG_FORMAT,
        SHUTDOWN_GRACE_SECONDS,
        RPC_TIMEOUT_SECONDS,
        RPC_MAX_ATTEMPTS,
        SERVICE_KEY,
        SERVICE_PUBLIC_KEYS,
        TLS_CA,
        TLS_CERT,
        TLS_KEY,
    )


@dataclass(frozen=True)
class PlatformConfig:
    """What the platform itself needs to run any service."""

    service: str
    listen: str
    metrics_listen: str | None  # None: no metrics endpoint
    nats_url: str  # one URL, or a cluster's nodes comma-separated (split_urls)
    nats_replicas: int
    redis_url: str
    peers: Mapping[str, str]  # service name -> host:port
    log_level: str
    log_format: str
    shutdown_grace_seconds: float
    rpc_timeout_seconds: float
    rpc_max_attempts: int
    service_key: ServiceKey  # signs this service's calls
    service_public_keys: PublicKeys  # verify its callers'
    tls: TlsFiles | None = None  # mutual TLS with the other services (None: plaintext)

    def peer(self, service: str) -> str:
        return self.peers[service]


def platform_config(service: str, values: Values) -> PlatformConfig:
    key, public_keys = values[SERVICE_KEY], values[SERVICE_PUBLIC_KEYS]
    if not public_keys.holds(service, key):
        # another service's key, or one not yet rolled out: every call it signs would be refused
        raise ConfigError(
            [
                (
                    SERVICE_KEY.name,
                    f"its public key is not listed in {SERVICE_PUBLIC_KEYS.name} as "
                    f"{service}:{key.kid}",
                )
            ]
        )
    try:
        tls = load_tls({var.name: values[var] for var in (TLS_CA, TLS_CERT, TLS_KEY)})
    except TlsError as exc:
        raise ConfigError([(TLS_CA.name, str(exc))]) from None
    return PlatformConfig(
        service=service,
        listen=values[listen_var(service)],
        metrics_listen=values[metrics_listen_var(service)],
        nats_url=values[NATS_URL],
        nats_replicas=values[NATS_REPLICAS],
        redis_url=values[REDIS_URL],
        peers={name: values[var] for name, var in PEER_VARS.items()},
        log_level=values[LOG_LEVEL],
        log_format=values[LOG_FORMAT],
        shutdown_grace_seconds=values[SHUTDOWN_GRACE_SECONDS],
        rpc_timeout_seconds=values[RPC_TIMEOUT_SECONDS],
        rpc_max_attempts=values[RPC_MAX_ATTEMPTS],
        service_key=key,
        service_public_keys=public_keys,
        tls=tls,
    )


def load_platform_config(
    service: str, environ: Mapping[str, str], extra: Iterable[Var[Any]] = ()
) -> tuple[PlatformConfig, Values]:
    """Validate the shared variables and a service's own ``extra`` ones together."""
    values = parse_env((*platform_vars(service), *extra), environ)
    return platform_config(service, values), values
