"""Local processes, the one way this repository starts a program: free ports, spawning with a log
file (``spawn``: tied to this process's life unless asked to outlive it), waiting, stopping; and
``ManagedProcess``, the one life cycle every process shares (nats-server, redis-server, a service,
a benchmark's server: ``libs.devstack.programs.Program`` for any command line).

A ``ManagedProcess`` is started with ``start`` (spawn, then wait until it is ready, else kill it
and raise ``StartError`` with the tail of its log), stopped for good with ``stop`` (SIGTERM,
SIGKILL after a timeout, then ``close``: a server removes its temp directory), crashed with
``kill`` (SIGKILL) and started again with ``restart`` (the same command, address and data
directory, so clients and peers find it where it was). Subclasses say how to build the command
line (``argv``), its environment (``env``) and when the process is ready (``wait_ready``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import TracebackType
from typing import Self

__all__ = [
    "LOOPBACK",
    "STOP_TIMEOUT",
    "ManagedProcess",
    "StartError",
    "free_port",
    "free_ports",
    "log_tail",
    "pid_alive",
    "spawn",
    "terminate",
    "wait_for_tcp",
]

LOOPBACK = "127.0.0.1"
STOP_TIMEOUT = 10.0
START_TIMEOUT = 20.0


class StartError(RuntimeError):
    """A process did not come up; the message says which one and holds the tail of its log."""


def free_port(host: str = LOOPBACK) -> int:
    """A TCP port that was free a moment ago (callers retry if another process wins the race)."""
    return free_ports(host, 1)[0]


def free_ports(host: str, count: int) -> list[int]:
    """``count`` distinct free ports (all held open while choosing, so no duplicates)."""
    socks: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            socks.append(sock)
            sock.bind((host, 0))
        return [int(s.getsockname()[1]) for s in socks]
    finally:
        for s in socks:
            s.close()


# Run first in the child, then replaced by the real program (``execvp`` keeps the pid): ask the
# kernel for SIGTERM when this process dies, and give up if it already has. PR_SET_PDEATHSIG
# survives exec.
_TIE_TO_PARENT = """\
import ctypes, os, signal, sys
ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
if os.getppid() != int(sys.argv[1]):
    sys.exit(1)
os.execvp(sys.argv[2], sys.argv[2:])
"""


def _tied_to_this_process(argv: Sequence[str]) -> list[str]:
    """``argv`` started through a small Python trampoline that makes the child get SIGTERM if
    this process dies, so a killed runner leaves no orphans (Linux only; elsewhere ``argv``).

    The trampoline is a separate program rather than a ``preexec_fn`` on purpose: a
    ``preexec_fn`` makes subprocess fork instead of vfork, which runs every fork handler of this
    process in the child, and gRPC's (its event engine restarts its poller threads) can abort the
    child before it execs when this process has gRPC channels open (tests, holdem chaos).
    """
    if not sys.platform.startswith("linux"):
        return list(argv)
    return [sys.executable, "-I", "-S", "-c", _TIE_TO_PARENT, str(os.getpid()), *argv]


_SPAWNER: ThreadPoolExecutor | None = None
_SPAWNER_LOCK = threading.Lock()


def _spawner() -> ThreadPoolExecutor:
    global _SPAWNER
    with _SPAWNER_LOCK:
        if _SPAWNER is None:
            _SPAWNER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="devstack-spawner")
        return _SPAWNER


def spawn(
    argv: Sequence[str],
    log_path: Path,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    *,
    outlive: bool = False,
) -> subprocess.Popen[bytes]:
    """Start ``argv`` with stdout and stderr appended to ``log_path``, in its own session (so
    Ctrl-C in a terminal reaches only the runner, which stops things in order) and tied to this
    process's life (see ``_tied_to_this_process``), unless ``outlive``: a program meant to run
    on after this process exits (``holdem stack up --detach``).

    Linux sends the parent-death signal when the *thread* that forked the child exits, so a
    child started from a short-lived thread (``asyncio.to_thread``, an executor) would die with
    it: from any thread but the main one, the fork happens on one spawner thread that lives as
    long as this process."""
    command = list(argv) if outlive else _tied_to_this_process(argv)
    if not outlive and threading.current_thread() is not threading.main_thread():
        return _spawner().submit(_spawn, command, log_path, env, cwd).result()
    return _spawn(command, log_path, env, cwd)


def _spawn(
    command: Sequence[str],
    log_path: Path,
    env: Mapping[str, str] | None,
    cwd: Path | None,
) -> subprocess.Popen[bytes]:
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log:
        return subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=dict(env) if env is not None else None,
            cwd=cwd,
            start_new_session=True,
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


class ManagedProcess:
    """One local process with a log file and a start / stop / kill / restart life cycle.

    ``process`` is the current ``subprocess.Popen`` (``started`` says whether there is one yet);
    ``restarts`` counts the starts after the first. Usable as a context manager (start, then
    stop).
    """

    #: Seconds ``start`` waits for readiness by default.
    start_timeout: float = START_TIMEOUT

    def __init__(self, name: str, log_path: Path) -> None:
        self.name = name
        self.log_path = log_path
        self._process: subprocess.Popen[bytes] | None = None
        self.restarts = 0

    # -- what a subclass provides ----------------------------------------------------------

    def argv(self) -> list[str]:
        """The command line of the next start."""
        raise NotImplementedError

    def env(self) -> Mapping[str, str] | None:
        """The environment of the next start (None: this process's)."""
        return None

    def wait_ready(self, deadline: float) -> None:
        """Return once the process serves, else raise ``StartError`` (it exited, or the
        monotonic ``deadline`` passed)."""

    # -- life cycle --------------------------------------------------------------------------

    def spawn(self) -> Self:
        """Start the process without waiting for it to be ready."""
        if self._process is not None:
            if self._process.poll() is None:
                raise RuntimeError(f"{self.name} is already running (pid {self._process.pid})")
            self.restarts += 1
        self._process = spawn(self.argv(), self.log_path, self.env())
        return self

    def start(self, timeout: float | None = None) -> Self:
        """Spawn and wait until ready; on failure (or Ctrl-C) stop the process and re-raise."""
        self.spawn()
        try:
            self.wait_ready(time.monotonic() + (self.start_timeout if timeout is None else timeout))
        except BaseException:
            self.kill()
            raise
        return self

    def restart(self, timeout: float | None = None) -> Self:
        """Stop the process if it still runs (gracefully, keeping its files), then start it
        again as it was."""
        if self.running:
            self.halt()
        return self.start(timeout)

    def send_stop(self) -> None:
        """Ask the process to stop (SIGTERM) without waiting: to stop several at once."""
        if self._process is not None and self._process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self._process.terminate()

    def halt(self, timeout: float = STOP_TIMEOUT) -> int | None:
        """SIGTERM, then SIGKILL after ``timeout`` seconds; the exit status (None: never ran).
        Files stay, so the process can be started again."""
        if self._process is None:
            return None
        return terminate(self._process, timeout)

    def close(self) -> None:
        """Release what the process keeps between starts (a server: its temp directory)."""

    def stop(self, timeout: float = STOP_TIMEOUT) -> int | None:
        """Stop for good: ``halt``, then ``close``. Safe to call more than once."""
        status = self.halt(timeout)
        self.close()
        return status

    def kill(self) -> int | None:
        """SIGKILL (a crash: nothing is flushed) and reap; the exit status (None: never ran)."""
        if self._process is None:
            return None
        if self._process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self._process.kill()
        return self._process.wait()

    # -- queries -----------------------------------------------------------------------------

    @property
    def started(self) -> bool:
        return self._process is not None

    @property
    def process(self) -> subprocess.Popen[bytes]:
        """The current process (``RuntimeError`` before the first start)."""
        if self._process is None:
            raise RuntimeError(f"{self.name} was never started")
        return self._process

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def returncode(self) -> int | None:
        """The exit status once the process has exited, else None."""
        return None if self._process is None else self._process.poll()

    @property
    def label(self) -> str:
        """How messages name this process."""
        return self.name

    def log_tail(self, lines: int = 40) -> str:
        return log_tail(self.log_path, lines)

    def failed(self, what: str) -> StartError:
        """A ``StartError`` naming this process, ``what`` went wrong and its log's last lines."""
        return StartError(f"{self.label} {what}; last lines of {self.log_path}:\n{self.log_tail()}")

    def __enter__(self) -> Self:
        return self if self.running else self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
