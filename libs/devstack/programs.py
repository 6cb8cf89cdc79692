"""Any command line as a ``ManagedProcess`` (``Program``), ready when it says so: a benchmark's
server once it has written its port to a file (``port_file_written``), the table service's
prewarmed spare as soon as it is spawned."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from .processes import ManagedProcess

__all__ = ["Program", "port_file_written"]


class Program(ManagedProcess):
    """Any command line as a ``ManagedProcess``: ``argv`` with ``env`` (None: this process's),
    ready when ``ready()`` says so (polled; None: as soon as it is spawned), e.g. once a server
    has written the port it listens on to a file (``port_file_written``)."""

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        log_path: Path,
        *,
        env: Mapping[str, str] | None = None,
        ready: Callable[[], bool] | None = None,
    ) -> None:
        super().__init__(name, log_path)
        self._argv, self._env, self._ready = list(argv), env, ready

    def argv(self) -> list[str]:
        return list(self._argv)

    def env(self) -> Mapping[str, str] | None:
        return self._env

    def wait_ready(self, deadline: float) -> None:
        if self._ready is None:
            return
        while not self._ready():
            status = self.returncode
            if status is not None:
                raise self.failed(f"exited with status {status}")
            if time.monotonic() > deadline:
                raise self.failed("was not ready in time")
            time.sleep(0.05)


def port_file_written(path: Path) -> Callable[[], bool]:
    """A ``Program``'s readiness: ``path`` holds something (the port its server listens on)."""

    def ready() -> bool:
        try:
            return bool(path.read_text())
        except OSError:
            return False

    return ready
