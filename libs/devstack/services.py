"""One holdem service as a local process (``python -m services.<name>``), configured only through
the ``HOLDEM_*`` environment variables, ready once its gRPC health check answers SERVING.

``listen`` is where it listens: a fixed ``host:port``, or ``host:0`` for any free port, which is
then read from the service's JSON "serving" log line (no port race; needs the JSON log format, the
default). ``restart`` starts it again at the address it had; set ``listen`` first to move it.

    >>> env = service_env(peers={"lobby": "127.0.0.1:50052"}, base=clean_environ())
    >>> with ServiceProcess("gateway", Path("gateway.log"), env=env) as gateway:  # doctest: +SKIP
    ...     print(gateway.address)
    127.0.0.1:40211
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Self

from libs.platform import healthcheck
from libs.platform.identity import IDENTITIES, ServiceKeySet
from libs.platform.tls import TlsFiles, load_tls

from .processes import LOOPBACK, START_TIMEOUT, ManagedProcess

__all__ = [
    "REPO_ROOT",
    "ServiceProcess",
    "addr_env_var",
    "clean_environ",
    "service_env",
    "service_key_env",
]

REPO_ROOT = Path(__file__).resolve().parents[2]

#: The player-token key ring of every service this process starts without one of its own: the
#: lobby signs and the gateway verifies with it (contract-13 §4). New for each run, never a
#: fixed secret.
DEV_TOKEN_KEYS = "dev:" + base64.b64encode(secrets.token_bytes(32)).decode()
#: The service keys (libs.platform.identity) of the services this process starts: one new Ed25519
#: key pair per identity for each run, never a fixed one. Each service gets only its own private
#: key (ServiceProcess) and every public key (service_env); tools and tests of this process sign
#: with the private key of the identity they call as (libs.devstack.identity.channel_as).
DEV_SERVICE_KEYS = ServiceKeySet.generate("dev")
SERVICE_KEY_VAR = "HOLDEM_SERVICE_KEY"
SERVICE_PUBLIC_KEYS_VAR = "HOLDEM_SERVICE_PUBLIC_KEYS"


def addr_env_var(name: str) -> str:
    """The variable that tells a service where service ``name`` listens."""
    return f"HOLDEM_{name.upper()}_ADDR"


def clean_environ() -> dict[str, str]:
    """This process's environment without any ``HOLDEM_*`` setting (so a developer's own
    settings cannot leak into a test's services)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("HOLDEM_")}


def service_env(
    *,
    peers: Mapping[str, str] | None = None,
    nats_url: str | None = None,
    redis_url: str | None = None,
    log_level: str | None = None,
    log_format: str = "json",
    extra: Mapping[str, str] | None = None,
    base: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment of a service: ``base`` (default: this process's environment), the agreed
    ``HOLDEM_*`` variables for what is given (peer addresses, NATS, Redis, logging; metrics on
    a free port; this run's token keys and public service keys unless ``base`` has some), then
    ``extra``. The private service key is per service: ``ServiceProcess`` adds its own.
    ``HOLDEM_LISTEN`` is the ``ServiceProcess``'s own."""
    env = dict(os.environ if base is None else base)
    env["HOLDEM_LOG_FORMAT"] = log_format
    # Metrics on a free port, never on a fixed default another local run may hold.
    env["HOLDEM_METRICS_LISTEN"] = f"{LOOPBACK}:0"
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("HOLDEM_TOKEN_KEYS", DEV_TOKEN_KEYS)
    if not env.get(SERVICE_PUBLIC_KEYS_VAR):
        # this run's keys; a private key from ``base`` could not be among them
        env[SERVICE_PUBLIC_KEYS_VAR] = DEV_SERVICE_KEYS.public_keys().format()
        env.pop(SERVICE_KEY_VAR, None)
    if log_level is not None:
        env["HOLDEM_LOG_LEVEL"] = log_level
    if nats_url is not None:
        env["HOLDEM_NATS_URL"] = nats_url
    if redis_url is not None:
        env["HOLDEM_REDIS_URL"] = redis_url
    for other, address in (peers or {}).items():
        env[addr_env_var(other)] = address
    env.update(extra or {})
    return env


def _with_checkout_on_path(env: Mapping[str, str]) -> dict[str, str]:
    """The checkout and its generated code first on PYTHONPATH, whether or not the project is
    installed."""
    out = dict(env)
    paths = [str(p) for p in (REPO_ROOT, REPO_ROOT / "gen") if p.is_dir()]
    if out.get("PYTHONPATH"):
        paths.append(out["PYTHONPATH"])
    out["PYTHONPATH"] = os.pathsep.join(paths)
    return out


class ServiceProcess(ManagedProcess):
    """A service subprocess: ``address`` once it listens, ``log_lines`` of its JSON log."""

    def __init__(
        self,
        name: str,
        log_path: Path,
        *,
        listen: str = f"{LOOPBACK}:0",
        env: Mapping[str, str] | None = None,
        argv: Sequence[str] | None = None,
        python: str = sys.executable,
    ) -> None:
        super().__init__(name, log_path)
        self.listen = listen
        self.environment = dict(env if env is not None else service_env())
        if not self.environment.get(SERVICE_KEY_VAR) and name in IDENTITIES:
            # its own private key only (never another service's)
            self.environment[SERVICE_KEY_VAR] = DEV_SERVICE_KEYS.key(name).format()
        self._argv = list(argv) if argv is not None else [python, "-m", f"services.{name}"]
        self.port = 0  # known once it listens
        self._log_offset = 0
        # its TLS files (libs.platform.tls), read at the first health check
        self._tls: TlsFiles | None = None
        self._tls_read = False

    @property
    def label(self) -> str:
        return f"service {self.name}"

    @property
    def host(self) -> str:
        return self.listen.rsplit(":", 1)[0]

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def argv(self) -> list[str]:
        return list(self._argv)

    def env(self) -> dict[str, str]:
        return _with_checkout_on_path({**self.environment, "HOLDEM_LISTEN": self.listen})

    def spawn(self) -> Self:
        # a restart appends to the same log: its "serving" line is the first after this offset
        self._log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        self.port = int(self.listen.rsplit(":", 1)[1])  # 0: known once the service says
        return super().spawn()

    def _learn_port(self) -> None:
        for record in self._records(self._log_offset):
            if record.get("event") == "serving" and "port" in record:
                self.port = int(record["port"])
                self.listen = self.address
                return

    def poll_ready(self, timeout: float = 0.5) -> str:
        """One look: the health status now (``healthcheck`` names; UNREACHABLE while it does
        not listen yet). Raises ``StartError`` if the process has exited."""
        code = self.returncode
        if code is not None:
            raise self.failed(f"exited with status {code} while starting (listen {self.listen})")
        if not self.port:
            self._learn_port()
            if not self.port:
                return healthcheck.UNREACHABLE
        if not self._tls_read:
            self._tls, self._tls_read = load_tls(self.environment), True
        return healthcheck.check(self.address, timeout=timeout, tls=self._tls, peer=self.name)

    def wait_ready(self, deadline: float) -> None:
        last = healthcheck.UNREACHABLE
        while True:
            last = self.poll_ready(timeout=max(0.2, min(2.0, deadline - time.monotonic())))
            if last == healthcheck.SERVING:
                return
            if time.monotonic() >= deadline:
                raise self.failed(f"not SERVING (health {last}) at {self.address or self.listen}")
            time.sleep(0.05)

    def wait_serving(self, timeout: float = START_TIMEOUT) -> Self:
        """Wait until a spawned service is SERVING (``StartError`` if not: it is then killed)."""
        try:
            self.wait_ready(time.monotonic() + timeout)
        except BaseException:
            self.kill()
            raise
        return self

    def _records(self, offset: int = 0) -> list[dict[str, Any]]:
        try:
            with open(self.log_path, "rb") as log:
                log.seek(offset)
                data = log.read().decode("utf-8", "replace")
        except OSError:
            return []
        records: list[dict[str, Any]] = []
        for raw in data.splitlines():
            try:
                record = json.loads(raw)
            except ValueError:
                continue
            if isinstance(record, dict):
                records.append(record)
        return records

    def log_lines(self) -> list[dict[str, Any]]:
        """Every JSON record of the service's log, oldest first (other lines are skipped)."""
        return self._records()


def service_key_env(identity: str) -> dict[str, str]:
    """The service-key variables of a service started as ``identity`` with this run's keys."""
    return {
        SERVICE_KEY_VAR: DEV_SERVICE_KEYS.key(identity).format(),
        SERVICE_PUBLIC_KEYS_VAR: DEV_SERVICE_KEYS.public_keys().format(),
    }
