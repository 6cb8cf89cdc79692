"""Real nats-server (JetStream) and redis-server processes on free loopback ports.

Each server runs in its own temp directory (its log, and the JetStream store), on a port nobody
else uses, so every run gets its own servers and never shares state with another run or with a
system-wide server. ``stop`` removes the directory unless ``keep_temp``; ``kill`` then ``restart``
brings a crashed server back on the same port with the same directory (JetStream keeps its store,
as a real node does; redis-server runs without persistence, so it comes back empty). Given a
``data_dir``, a server keeps its data there instead (the JetStream store; Redis with its
append-only file on), never removed: the local stack's data outlives one run.

    >>> with start_nats() as nats, start_redis() as redis:  # doctest: +SKIP
    ...     print(nats.url, redis.url)
    nats://127.0.0.1:40123 redis://127.0.0.1:40125/0

``NatsServer`` takes ``extra_args`` for options such as a server name or cluster routes, which
a multi-node setup adds on top of the one-node command line, and ``config``, a configuration file
of the caller's (users, permissions). Every ``NatsServer`` fsyncs each JetStream write before
acknowledging it (``sync_interval``: ``natsconf``); ``sync_interval=None`` keeps the server's
default (a flush every two minutes), for the benchmark and the tests that show what it loses.
"""

from __future__ import annotations

import json
import shutil
import socket
import tempfile
import time
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Self

from libs.platform.tls import TlsFiles, ssl_context

from .binaries import find_nats_server, find_redis_server
from .natsconf import SYNC_ALWAYS, write_nats_config
from .ports import restartable_port
from .processes import LOOPBACK, ManagedProcess, wait_for_tcp

__all__ = ["LocalServer", "NatsServer", "RedisServer", "start_nats", "start_redis"]


def _make_workdir(name: str, parent: Path | None) -> Path:
    if parent is not None:
        parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f"holdem-{name}-", dir=parent))


class LocalServer(ManagedProcess):
    """A server process in its own temp directory, reached at ``url``."""

    scheme = ""

    def __init__(
        self,
        name: str,
        host: str = LOOPBACK,
        port: int = 0,
        keep_temp: bool = False,
        parent_dir: Path | None = None,
        data_dir: Path | None = None,
        attempts: int = 5,
    ) -> None:
        self.workdir = _make_workdir(name, parent_dir)
        super().__init__(name, self.workdir / f"{name}-server.log")
        self.host = host
        self.port = port  # 0 until known
        self.attempts = attempts
        self.keep_temp = keep_temp
        # where the data lives when it must outlive the temp directory (None: in the temp dir)
        self.data_dir = data_dir
        if data_dir is not None:
            data_dir.mkdir(parents=True, exist_ok=True)
        self._closed = False

    @property
    def url(self) -> str:
        return f"{self.scheme}://{self.host}:{self.port}"

    def start(self, timeout: float | None = None) -> Self:
        """Start it; on a port of its own choosing when it has none yet (``restartable_port``:
        a restart on that port cannot find it taken by some client's connection), choosing
        again when another process bound that port first."""
        chosen = not self.port
        for attempt in range(self.attempts):
            if chosen:
                self.port = restartable_port(self.host)
            try:
                return super().start(timeout)
            except Exception:
                lost_race = "address already in use" in self.log_tail().lower()
                if not (chosen and lost_race) or attempt == self.attempts - 1:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        if not self._closed and not self.keep_temp:
            shutil.rmtree(self.workdir, ignore_errors=True)
        self._closed = True


class NatsServer(LocalServer):
    """nats-server with JetStream, its store in the temp directory. With ``port`` 0, ``start``
    chooses one (``LocalServer.start``); only a server spawned without ``start`` and without a
    port lets nats-server choose (``-p -1``, read back from its ports file). It
    starts with its own configuration file (``natsconf``: JetStream's sync policy, including
    ``config``); ``extra_args`` may not name another (``-c``)."""

    scheme = "nats"

    def __init__(
        self,
        host: str = LOOPBACK,
        port: int = 0,
        keep_temp: bool = False,
        parent_dir: Path | None = None,
        name: str = "nats",
        extra_args: Sequence[str] = (),
        data_dir: Path | None = None,
        tls: TlsFiles | None = None,
        config: Path | None = None,
        sync_interval: str | None = SYNC_ALWAYS,
    ) -> None:
        if {"-c", "--config"} & set(extra_args):
            raise ValueError("a NatsServer's configuration file is given as config=, not -c")
        self.binary = find_nats_server()  # before making a directory: a missing binary leaks none
        super().__init__(name, host, port, keep_temp, parent_dir, data_dir)
        self.extra_args = tuple(extra_args)
        self.sync_interval = sync_interval
        self.config_path = write_nats_config(self.workdir, sync_interval, config)
        # TLS for clients (libs.platform.tls), each of which must present a certificate of the
        # CA: ``tls://`` URLs
        self.tls = tls
        if tls is not None:
            self.scheme = "tls"

    @property
    def store_dir(self) -> Path:
        return self.data_dir if self.data_dir is not None else self.workdir / "jetstream"

    def argv(self) -> list[str]:
        return [
            self.binary,
            "-c", str(self.config_path),
            "-a", self.host,
            "-p", str(self.port or -1),
            "--ports_file_dir", str(self.workdir),
            "-m", "-1",  # monitoring on a free port (in the ports file): readiness, varz
            "-js",
            "-sd", str(self.store_dir),
            *_nats_tls_args(self.tls),
            *self.extra_args,
        ]  # fmt: skip

    def _ports_file(self, kind: str) -> str | None:
        """The first URL of ``kind`` (nats, monitoring, cluster) in the current process's
        ports file (None until it is written)."""
        if not self.started:
            return None
        path = self.workdir / f"nats-server_{self.pid}.ports"
        try:
            ports = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        urls = ports.get(kind) or []
        return str(urls[0]) if urls else None

    def _ports_file_url(self) -> str | None:
        return self._ports_file("nats")

    @property
    def monitor_url(self) -> str | None:
        """The HTTP monitoring endpoint (``http://host:port``) when started with ``-m``."""
        return self._ports_file("monitoring")

    def monitor_json(self, endpoint: str) -> dict[str, Any] | None:
        """GET ``<monitor_url>/<endpoint>`` (``varz``, ``jsz``, ``healthz``) as JSON; None when
        the server does not answer (yet)."""
        base = self.monitor_url
        if base is None:
            return None
        try:
            with urllib.request.urlopen(f"{base}/{endpoint}", timeout=1.0) as response:
                data = json.loads(response.read())
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def jetstream_config(self) -> dict[str, Any]:
        """JetStream's configuration as the running server reports it (``varz``): e.g.
        ``sync_always`` True when it fsyncs every write before acknowledging it."""
        varz = self.monitor_json("varz") or {}
        config = (varz.get("jetstream") or {}).get("config") or {}
        return dict(config)

    def wait_ready(self, deadline: float) -> None:
        while not self.port and time.monotonic() < deadline and self.running:
            url = self._ports_file_url()
            if url is not None:
                self.port = int(url.rsplit(":", 1)[1])
                break
            time.sleep(0.05)
        if not self.port or not wait_for_tcp(
            self.host, self.port, max(0.1, deadline - time.monotonic()), self.process, _nats_probe
        ):
            raise self.failed(f"({self.binary}) did not start")


class RedisServer(LocalServer):
    """redis-server on a free port, retrying with another port if one is taken between choosing
    it and binding it. Without persistence (a restart comes back empty), unless given a
    ``data_dir``: then with its append-only file there (every write reaches the file before it
    is acknowledged, so a SIGKILL loses nothing acknowledged). ``extra_args`` add options
    (``--aclfile``)."""

    scheme = "redis"

    def __init__(
        self,
        host: str = LOOPBACK,
        port: int = 0,
        keep_temp: bool = False,
        parent_dir: Path | None = None,
        name: str = "redis",
        attempts: int = 5,
        data_dir: Path | None = None,
        extra_args: Sequence[str] = (),
        tls: TlsFiles | None = None,
    ) -> None:
        self.binary = find_redis_server(tls=tls is not None)
        super().__init__(name, host, port, keep_temp, parent_dir, data_dir, attempts)
        self.extra_args = tuple(extra_args)
        # TLS only (no plaintext port), clients must present a certificate of the CA:
        # ``rediss://`` URLs (libs.platform.tls)
        self.tls = tls
        if tls is not None:
            self.scheme = "rediss"

    @property
    def url(self) -> str:
        return f"{super().url}/0"

    def argv(self) -> list[str]:
        ports = (
            ["--port", str(self.port)]
            if self.tls is None
            else [
                "--port", "0",
                "--tls-port", str(self.port),
                "--tls-cert-file", self.tls.paths[1],
                "--tls-key-file", self.tls.paths[2],
                "--tls-ca-cert-file", self.tls.paths[0],
                "--tls-auth-clients", "yes",
            ]
        )  # fmt: skip
        return [
            self.binary,
            *ports,
            "--bind", self.host,
            "--save", "",
            "--appendonly", "no" if self.data_dir is None else "yes",
            "--dir", str(self.workdir if self.data_dir is None else self.data_dir),
            "--daemonize", "no",
            "--protected-mode", "no",
            *self.extra_args,
        ]  # fmt: skip

    def wait_ready(self, deadline: float) -> None:
        remaining = max(0.1, deadline - time.monotonic())
        probe = _redis_probe if self.tls is None else _tls_probe(self.tls, _redis_probe)
        if not wait_for_tcp(self.host, self.port, remaining, self.process, probe):
            raise self.failed(f"({self.binary}) did not start")


def _nats_tls_args(tls: TlsFiles | None) -> list[str]:
    if tls is None:
        return []
    ca, cert, key = tls.paths
    return ["--tls", "--tlscert", cert, "--tlskey", key, "--tlscacert", ca, "--tlsverify"]


def _tls_probe(
    tls: TlsFiles, probe: Callable[[socket.socket], bool]
) -> Callable[[socket.socket], bool]:
    """``probe`` through a TLS handshake made with ``tls`` (the server's own pair: it is also a
    client certificate of the CA)."""

    def run(sock: socket.socket) -> bool:
        context = ssl_context(tls)
        context.check_hostname = False  # the address is loopback; the CA is what is checked
        with context.wrap_socket(sock) as wrapped:
            return probe(wrapped)

    return run


def _nats_probe(sock: socket.socket) -> bool:
    return sock.recv(4).startswith(b"INFO")


def _redis_probe(sock: socket.socket) -> bool:
    sock.sendall(b"PING\r\n")
    # a server with ACL users and no default user answers an unauthenticated PING with NOAUTH
    return sock.recv(7).startswith((b"+PONG", b"-NOAUTH"))


def start_nats(
    host: str = LOOPBACK,
    keep_temp: bool = False,
    parent_dir: Path | None = None,
    timeout: float | None = None,
    sync_interval: str | None = SYNC_ALWAYS,
) -> NatsServer:
    """A started ``NatsServer`` (raises ``StartError`` or ``BinaryNotFoundError``)."""
    server = NatsServer(
        host, keep_temp=keep_temp, parent_dir=parent_dir, sync_interval=sync_interval
    )
    try:
        return server.start(timeout)
    except BaseException:
        server.close()
        raise


def start_redis(
    host: str = LOOPBACK,
    keep_temp: bool = False,
    parent_dir: Path | None = None,
    timeout: float | None = None,
) -> RedisServer:
    """A started ``RedisServer`` (raises ``StartError`` or ``BinaryNotFoundError``)."""
    server = RedisServer(host, keep_temp=keep_temp, parent_dir=parent_dir)
    try:
        return server.start(timeout)
    except BaseException:
        server.close()
        raise
