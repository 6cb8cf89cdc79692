"""Configuration from environment variables.

Every variable is declared once as a :class:`Var` (name, type, default, help). A service reads the
shared variables (:func:`platform_vars`) plus its own; :func:`parse_env` validates them all at
start and raises one :class:`ConfigError` naming every bad variable and what is wrong with it.
:func:`documentation` gives the table the docs are checked against.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast
from urllib.parse import urlsplit

from libs.auth.keys import KeyRing, KeyRingError
from libs.platform.identity import PublicKeys, ServiceKey, ServiceKeyError
from libs.platform.tls import TlsError, TlsFiles, load_tls

T = TypeVar("T")

#: Default port of each service on 127.0.0.1 (HOLDEM_LISTEN and the HOLDEM_<NAME>_ADDR defaults).
DEFAULT_PORTS: Mapping[str, int] = {
    "gateway": 50051,
    "lobby": 50052,
    "table": 50053,
    "dealer": 50054,
    "evaluator": 50055,
    "ai": 50056,
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
}
#: HOLDEM_METRICS_LISTEN's value that turns the metrics endpoint off.
METRICS_OFF = "off"


def default_address(service: str) -> str:
    return f"{DEFAULT_HOST}:{DEFAULT_PORTS[service]}"


def default_metrics_address(service: str) -> str:
    return f"{DEFAULT_HOST}:{DEFAULT_METRICS_PORTS[service]}"


class ConfigError(Exception):
    """The environment does not describe a valid configuration.

    ``problems`` holds one ``(variable, problem)`` pair per bad variable.
    """

    def __init__(self, problems: Sequence[tuple[str, str]]) -> None:
        self.problems = tuple(problems)
        lines = "\n".join(f"  {name}: {problem}" for name, problem in self.problems)
        super().__init__(f"invalid configuration:\n{lines}")


# ---- value types: parse a raw string or raise ValueError with a reason -----------------------


@dataclass(frozen=True)
class VarType(Generic[T]):
    """How to read one kind of value; ``parse`` raises ValueError with a human reason."""

    description: str
    parse: Callable[[str], T]


def _parse_str(raw: str) -> str:
    if not raw.strip():
        raise ValueError("must not be empty")
    return raw.strip()


STRING: VarType[str] = VarType("text", _parse_str)
#: A file's path, or empty for none.
OPTIONAL_PATH: VarType[str] = VarType("path", lambda raw: raw.strip())


def integer(minimum: int | None = None, maximum: int | None = None) -> VarType[int]:
    def parse(raw: str) -> int:
        try:
            value = int(raw.strip())
        except ValueError:
            raise ValueError(f"{raw!r} is not an integer") from None
        _check_bounds(value, minimum, maximum)
        return value

    return VarType(_bounded("integer", minimum, maximum), parse)


def number(minimum: float | None = None, maximum: float | None = None) -> VarType[float]:
    def parse(raw: str) -> float:
        try:
            value = float(raw.strip())
        except ValueError:
            raise ValueError(f"{raw!r} is not a number") from None
        if not math.isfinite(value):
            raise ValueError(f"{raw!r} is not a finite number")
        _check_bounds(value, minimum, maximum)
        return value

    return VarType(_bounded("number", minimum, maximum), parse)


def _bounded(kind: str, minimum: float | None, maximum: float | None) -> str:
    if minimum is not None and maximum is not None:
        return f"{kind} {minimum}..{maximum}"
    if minimum is not None:
        return f"{kind} >= {minimum}"
    if maximum is not None:
        return f"{kind} <= {maximum}"
    return kind


def _check_bounds(value: float, minimum: float | None, maximum: float | None) -> None:
    if minimum is not None and value < minimum:
        raise ValueError(f"{value} is below the minimum {minimum}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{value} is above the maximum {maximum}")


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _parse_bool(raw: str) -> bool:
    lowered = raw.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError(f"{raw!r} is not a boolean (use true/false, 1/0, yes/no, on/off)")


BOOLEAN: VarType[bool] = VarType("boolean", _parse_bool)


def choice(*options: str) -> VarType[str]:
    def parse(raw: str) -> str:
        lowered = raw.strip().lower()
        if lowered not in options:
            raise ValueError(f"{raw!r} is not one of {', '.join(options)}")
        return lowered

    return VarType("one of " + "|".join(options), parse)


def _parse_address(raw: str) -> str:
    """``host:port`` (IPv6 hosts in brackets); port 0 asks the OS for a free port."""
    value = raw.strip()
    host, sep, port = value.rpartition(":")
    if not sep or not host:
        raise ValueError(f"{raw!r} is not host:port (e.g. 127.0.0.1:50051)")
    if host.startswith("[") != host.endswith("]"):
        raise ValueError(f"{raw!r} has an unbalanced IPv6 bracket")
    if ":" in host and not host.startswith("["):
        raise ValueError(f"{raw!r}: put an IPv6 host in brackets, e.g. [::1]:50051")
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"{raw!r} has no valid port (0..65535)")
    return value


ADDRESS: VarType[str] = VarType("host:port", _parse_address)


def _parse_optional_address(raw: str) -> str | None:
    if raw.strip().lower() == METRICS_OFF:
        return None
    return _parse_address(raw)


#: An address, or ``off`` (parsed as None) for an endpoint that may be turned off.
OPTIONAL_ADDRESS: VarType[str | None] = VarType(
    f"host:port or {METRICS_OFF}", _parse_optional_address
)


def redact_url(value: str) -> str:
    """``value`` (one URL or a comma-separated list) with every password replaced by ``***``:
    what logs, errors and status output show of a URL that may carry credentials
    (``nats://user:password@host:port``)."""
    out = []
    for one in value.split(","):
        try:
            parts = urlsplit(one.strip())
            password = parts.password
        except ValueError:
            password = None
        if password is None:
            out.append(one.strip())
            continue
        host = parts.netloc.rsplit("@", 1)[1]
        out.append(parts._replace(netloc=f"{parts.username or ''}:***@{host}").geturl())
    return ",".join(out)


def url(*schemes: str) -> VarType[str]:
    def parse(raw: str) -> str:
        value = raw.strip()
        shown = redact_url(value)  # an error never shows a password
        parts = urlsplit(value)
        if parts.scheme not in schemes or not parts.hostname:
            raise ValueError(f"{shown!r} is not a {'|'.join(schemes)}:// URL with a host")
        try:
            parts.port  # noqa: B018  (raises ValueError on a bad port)
        except ValueError:
            raise ValueError(f"{shown!r} has an invalid port") from None
        return value

    return VarType("|".join(f"{s}://" for s in schemes) + " URL", parse)


def url_list(*schemes: str) -> VarType[str]:
    """One URL or several, comma-separated (the nodes of a cluster); the value stays the text
    (``split_urls`` gives the list)."""
    one = url(*schemes)

    def parse(raw: str) -> str:
        parts = split_urls(raw)
        if not parts:
            raise ValueError("must not be empty")
        return ",".join(one.parse(part) for part in parts)

    return VarType(one.description + "[,URL...]", parse)


def split_urls(value: str) -> list[str]:
    """The URLs of a comma-separated list (blank items dropped)."""
    return [part.strip() for part in value.split(",") if part.strip()]


# ---- declarations -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Var(Generic[T]):
    """One environment variable. ``default`` is the raw string used when the variable is unset
    (None = required)."""

    name: str
    type: VarType[T]
    default: str | None
    help: str

    def read(self, environ: Mapping[str, str]) -> T:
        raw = environ.get(self.name)
        if raw is None or raw == "":
            if self.default is None:
                raise ValueError("is required but not set")
            raw = self.default
        try:
            return self.type.parse(raw)
        except ValueError as exc:
            raise ValueError(f"{exc} (expected {self.type.description})") from None


class Values:
    """Parsed values, looked up by their declaration (typed)."""

    def __init__(self, values: Mapping[str, Any]) -> None:
        self._values = dict(values)

    def __getitem__(self, var: Var[T]) -> T:
        return cast(T, self._values[var.name])


def parse_env(variables: Iterable[Var[Any]], environ: Mapping[str, str]) -> Values:
    """Read and validate every variable; raise one ConfigError listing all the bad ones."""
    values: dict[str, Any] = {}
    problems: list[tuple[str, str]] = []
    for var in variables:
        try:
            values[var.name] = var.read(environ)
        except ValueError as exc:
            problems.append((var.name, str(exc)))
    if problems:
        raise ConfigError(problems)
    return Values(values)


# ---- secrets read by more than one service ----------------------------------------------------


def _parse_token_keys(raw: str) -> KeyRing:
    try:
        return KeyRing.parse(raw)
    except KeyRingError as exc:  # its messages never contain a secret
        raise ValueError(str(exc)) from None


#: Keys of player tokens (libs.auth, contract-13 §4): read by the lobby (signs) and the gateway
#: (verifies). A secret: it belongs in the Kubernetes Secret, never in a ConfigMap.
TOKEN_KEYS: Var[KeyRing] = Var(
    "HOLDEM_TOKEN_KEYS",
    VarType("kid:base64secret[,kid:base64secret...]", _parse_token_keys),
    None,
    "keys of player tokens, a secret: the first signs, every one verifies (rotation: "
    "docs/operations.md); secrets of at least 32 bytes",
)

#: HOLDEM_TOKEN_KEYS for a service that may run without it: ``ephemeral`` (or unset) reads as None.
EPHEMERAL_KEYS = "ephemeral"


def _optional_keys(raw: str) -> KeyRing | None:
    return None if raw.strip() in ("", EPHEMERAL_KEYS) else TOKEN_KEYS.type.parse(raw)


#: HOLDEM_TOKEN_KEYS as the lobby (signs with the first key) and the gateway (verifies with every
#: key) read it. ``ephemeral``: the lobby signs with a random key of its own process, which no
#: gateway can verify (tests, a lone lobby); a gateway then verifies no token, so every call that
#: needs one is UNAUTHENTICATED (both log a warning at start).
OPTIONAL_TOKEN_KEYS: Var[KeyRing | None] = Var(
    TOKEN_KEYS.name,
    VarType(f"{TOKEN_KEYS.type.description} or {EPHEMERAL_KEYS}", _optional_keys),
    EPHEMERAL_KEYS,
    TOKEN_KEYS.help,
)


def _parse_service_key(raw: str) -> ServiceKey:
    try:
        return ServiceKey.parse(raw)
    except ServiceKeyError as exc:  # its messages never contain a secret
        raise ValueError(str(exc)) from None


def _parse_public_keys(raw: str) -> PublicKeys:
    try:
        return PublicKeys.parse(raw)
    except ServiceKeyError as exc:
        raise ValueError(str(exc)) from None


#: This service's own private key (libs.platform.identity): it signs this service's calls to
#: other services. Required: a service without it refuses to start (it could not prove who it
#: is). A secret held by this service only.
SERVICE_KEY: Var[ServiceKey] = Var(
    "HOLDEM_SERVICE_KEY",
    VarType("kid:base64key", _parse_service_key),
    None,
    "this service's own Ed25519 private key (32 bytes), a secret of this service only: signs "
    "its calls to other services (docs/hardening.md)",
)

#: The public keys of every identity: verify callers. Not a secret; the same for every service.
SERVICE_PUBLIC_KEYS: Var[PublicKeys] = Var(
    "HOLDEM_SERVICE_PUBLIC_KEYS",
    VarType("identity:kid:base64key[,identity:kid:base64key...]", _parse_public_keys),
    None,
    "public keys of the service identities (gateway, lobby, table, dealer, evaluator, ai, "
    "tools), the same for every service, not a secret: verify callers; several per identity "
    "while a key is rotated",
)


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
        f"(port 0 = any free port; {METRICS_OFF} = no endpoint)",
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


# ---- documentation ----------------------------------------------------------------------------


@dataclass(frozen=True)
class VarDoc:
    name: str
    default: str
    meaning: str


def documentation(service_vars: Mapping[str, Iterable[Var[Any]]] | None = None) -> list[VarDoc]:
    """One row per variable: the shared ones, then each service's own (``{service: vars}``)."""
    per_service = (
        (listen_var("gateway"), DEFAULT_PORTS),
        (metrics_listen_var("gateway"), DEFAULT_METRICS_PORTS),
    )
    rows = [
        VarDoc(
            var.name,
            f"{DEFAULT_HOST} + per service: "
            + ", ".join(f"{name} :{port}" for name, port in ports.items()),
            var.help,
        )
        for var, ports in per_service
    ]
    shared = platform_vars("gateway")[len(per_service) :]
    rows += [VarDoc(v.name, v.default or "(required)", _meaning(v)) for v in shared]
    # A variable several services read (e.g. HOLDEM_TOKEN_KEYS) is one row naming them all.
    readers: dict[str, list[str]] = {}
    declared: dict[str, Var[Any]] = {}
    for service, variables in (service_vars or {}).items():
        for var in variables:
            readers.setdefault(var.name, []).append(service)
            declared.setdefault(var.name, var)
    rows += [
        VarDoc(v.name, v.default or "(required)", f"{', '.join(readers[v.name])}: {_meaning(v)}")
        for v in declared.values()
    ]
    return rows


def _meaning(var: Var[Any]) -> str:
    return f"{var.help} ({var.type.description})"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown_table(rows: Iterable[VarDoc]) -> str:
    lines = ["| variable | default | meaning |", "|---|---|---|"]
    lines += [f"| `{r.name}` | `{r.default}` | {_cell(r.meaning)} |" for r in rows]
    return "\n".join(lines) + "\n"
