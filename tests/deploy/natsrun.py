"""A shipped nats-server configuration run on the real nats-server, to read back what the server
made of it (``varz``): its own client and monitoring ports chosen free, its store (unless the
file names one) and pid file in a temp directory, a cluster's route port on loopback, everything
else as shipped."""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from libs.devstack import find_nats_server

__all__ = ["served_jetstream"]


def _ports(directory: Path, pid: int) -> dict[str, Any] | None:
    try:
        ports = json.loads((directory / f"nats-server_{pid}.ports").read_text())
    except (OSError, ValueError):
        return None
    return ports if isinstance(ports, dict) else None


def _varz(monitor: str) -> dict[str, Any] | None:
    try:
        with urllib.request.urlopen(f"{monitor}/varz", timeout=1.0) as response:
            data = json.loads(response.read())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def served_jetstream(
    config: Path,
    directory: Path,
    env: Mapping[str, str] = {},
    args: Sequence[str] = (),
    timeout: float = 20.0,
) -> dict[str, Any]:
    """JetStream's configuration as nats-server reports it when started with ``config`` (and
    ``args``, e.g. compose's command line) and ``env``."""
    argv = [
        find_nats_server(), *args, "-c", str(config),
        "-a", "127.0.0.1", "-p", "-1", "-m", "-1", "--ports_file_dir", str(directory),
        "-P", str(directory / "nats.pid"),
    ]  # fmt: skip
    if "store_dir" not in config.read_text():  # else the file's (the server refuses both)
        argv += ["-sd", str(directory / "store")]
    if "cluster" in config.read_text():
        argv += ["--cluster", "nats://127.0.0.1:-1"]  # the shipped port may be taken here
    log = (directory / "nats.log").open("wb")
    process = subprocess.Popen(argv, env={**os.environ, **env}, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and process.poll() is None:
            monitoring = ((_ports(directory, process.pid) or {}).get("monitoring")) or []
            varz = _varz(monitoring[0]) if monitoring else None
            if varz is not None and "jetstream" in varz:
                return dict(varz["jetstream"].get("config") or {})
            time.sleep(0.1)
        log_text = (directory / "nats.log").read_text()
        raise AssertionError(f"nats-server did not serve varz: {log_text}")
    finally:
        process.terminate()
        process.wait(10)
        log.close()
