"""Prewarmed restarts: a spare service process that has already imported everything and waits
for the word to start, so a restart after a crash costs the service's own start-up (connect,
listen) and not the ~1 s of Python imports.

``python -m libs.devstack.standby MODULE GO_FILE`` imports ``MODULE`` (a service's
``__main__``, e.g. ``services.table.__main__``), then waits until ``GO_FILE`` appears, takes
the environment written in it (a JSON object of variables), deletes it and runs
``MODULE.main()``. ``PrewarmedService`` keeps one such spare per service: each start hands the
spare its environment and spawns the next spare.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Self

from .programs import Program
from .services import ServiceProcess

_POLL_SECONDS = 0.005


def main(argv: Sequence[str]) -> int:
    module_name, go_file = argv[0], Path(argv[1])
    module = importlib.import_module(module_name)
    while not go_file.exists():
        time.sleep(_POLL_SECONDS)
    environment = json.loads(go_file.read_text())
    go_file.unlink()
    os.environ.update(environment)
    sys.argv = [module_name]
    status: int = module.main()
    return status


class PrewarmedService(ServiceProcess):
    """A ``ServiceProcess`` whose starts hand over to a spare process spawned ahead of time.

    ``listen`` should name a port (not ``:0``): the spare is spawned before the address is
    known and several generations share one log file.
    """

    def __init__(
        self,
        name: str,
        log_path: Path,
        *,
        listen: str,
        env: Mapping[str, str] | None = None,
        python: str = sys.executable,
    ) -> None:
        super().__init__(name, log_path, listen=listen, env=env, python=python)
        self._python = python
        self._spare: tuple[Program, Path] | None = None
        self._generation = 0

    def _spawn_spare(self) -> tuple[Program, Path]:
        self._generation += 1
        go = self.log_path.with_name(f"{self.log_path.stem}.go-{self._generation}")
        argv = [
            self._python,
            "-m",
            "libs.devstack.standby",
            f"services.{self.name}.__main__",
            str(go),
        ]
        env = {k: v for k, v in self.env().items() if k != "HOLDEM_LISTEN"}
        return Program(f"{self.name} (spare)", argv, self.log_path, env=env).spawn(), go

    def spawn(self) -> Self:
        if self._process is not None and self._process.poll() is None:
            raise RuntimeError(f"{self.name} is already running (pid {self._process.pid})")
        if self._process is not None:
            self.restarts += 1
        self._log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        self.port = int(self.listen.rsplit(":", 1)[1])
        spare = self._spare if self._spare is not None and self._spare[0].running else None
        program, go = spare if spare is not None else self._spawn_spare()
        pending = go.with_suffix(".tmp")
        pending.write_text(json.dumps(self.env()))
        os.replace(pending, go)  # the spare sees the whole file or none of it
        self._process = program.process
        self._spare = self._spawn_spare()  # the next start's, importing while this one runs
        return self

    def close(self) -> None:
        if self._spare is not None:
            program, go = self._spare
            self._spare = None
            program.kill()
            go.unlink(missing_ok=True)
        super().close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
