"""``holdem stack status`` and ``holdem stack down``: how a running local stack is (each service's
health and key metrics, each process's restarts, read through its state file), and stopping it
(SIGTERM to ``stack up``, SIGKILL after ``--timeout``, then whatever a dead one left behind).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from libs.cli import stack_metrics
from libs.devstack import pid_alive
from libs.devstack.stackstate import read_state, running_pid, state_path
from libs.platform import healthcheck
from libs.platform.identity import TOOLS
from libs.platform.tls import load_dir

# ---------------------------------------------------------------------------------------------
# status


def stack_status(state: dict[str, Any], timeout: float = 2.0) -> dict[str, Any]:
    """``{"nats": url, "redis": url, "restarts": {process: n}, "services": [{"name",
    "address", "status", "restarts", "metrics"}]}`` with each service's health as answered now
    over gRPC and its key metrics (libs.cli.stack_metrics); ``restarts`` counts each process's
    restarts after a crash (nats-server, or each cluster node, redis-server and the services)."""
    services: list[dict[str, Any]] = state.get("services", [])
    tls = None if not state.get("tls_dir") else load_dir(Path(state["tls_dir"]), TOOLS)
    with ThreadPoolExecutor(max_workers=max(1, len(services))) as pool:
        statuses = list(
            pool.map(
                lambda s: healthcheck.check(s["address"], timeout=timeout, tls=tls, peer=s["name"]),
                services,
            )
        )
    metrics = stack_metrics.collect(services, timeout)
    nodes = state["nats"].get("nodes") or [{"name": "nats", **state["nats"]}]
    servers = [*nodes, {"name": "redis", **state["redis"]}]
    return {
        "nats": state["nats"]["url"],
        "redis": state["redis"]["url"],
        "web": state.get("web", ""),
        "restarts": {p["name"]: int(p.get("restarts", 0)) for p in [*servers, *services]},
        "services": [
            {
                "name": s["name"],
                "address": s["address"],
                "status": status,
                "restarts": int(s.get("restarts", 0)),
                "metrics": m,
            }
            for s, status, m in zip(services, statuses, metrics, strict=True)
        ],
    }


def cmd_status(args: argparse.Namespace) -> int:
    state_dir: Path = args.state_dir
    state = read_state(state_dir)
    if state is None or running_pid(state) is None:
        print(f"no holdem stack running (no live state file at {state_path(state_dir)})",
              file=sys.stderr)  # fmt: skip
        return 1
    report = stack_status(state, timeout=args.timeout)
    healthy = all(s["status"] == healthcheck.SERVING for s in report["services"])
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"holdem stack (pid {state['pid']}): {'healthy' if healthy else 'NOT healthy'}")
        restarts = report["restarts"]
        nats_restarts = sum(n for name, n in restarts.items() if name.startswith("nats"))
        print(f"  {'nats':<10} {report['nats']:<38} restarts {nats_restarts}")
        print(f"  {'redis':<10} {report['redis']:<38} restarts {restarts.get('redis', 0)}")
        if report["web"]:
            print(f"  {'web':<10} {report['web']:<38} the web client (open it in a browser)")
        for s in report["services"]:
            print(f"  {s['name']:<10} {s['address']:<22} {s['status']:<15} "
                  f"restarts {s['restarts']:<3} "
                  f"{stack_metrics.describe(s['metrics'])}")  # fmt: skip
    return 0 if healthy else 1


# ---------------------------------------------------------------------------------------------
# down


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _kill_leftovers(state: dict[str, Any]) -> list[int]:
    """SIGKILL the processes a dead `stack up` left behind (only if they still look like ours,
    in case the pid was reused)."""
    killed: list[int] = []
    nats = state.get("nats", {})
    entries = [nats, *nats.get("nodes", []), state.get("redis", {}), *state.get("services", [])]
    markers = ("nats-server", "redis-server", "services.", "holdem")
    for entry in entries:
        pid = entry.get("pid")
        if isinstance(pid, int) and pid_alive(pid) and any(m in _cmdline(pid) for m in markers):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
    return killed


def cmd_down(args: argparse.Namespace) -> int:
    state_dir: Path = args.state_dir
    state = read_state(state_dir)
    if state is None:
        print(f"no holdem stack running (no state file at {state_path(state_dir)})")
        return 0
    pid = running_pid(state)
    if pid is not None:
        print(f"stopping the holdem stack (pid {pid})...", flush=True)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + args.timeout
        while pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if pid_alive(pid):
            print(f"stack up (pid {pid}) did not stop in {args.timeout}s; killing it",
                  file=sys.stderr)  # fmt: skip
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    else:
        print(f"stack up (pid {state.get('pid')}) is gone; cleaning up what it left")
    killed = _kill_leftovers(state)
    if killed:
        print(f"killed leftover processes: {killed}", file=sys.stderr)
    workdir = state.get("workdir")
    if workdir and not state.get("keep_temp"):
        shutil.rmtree(workdir, ignore_errors=True)
    with contextlib.suppress(FileNotFoundError):
        state_path(state_dir).unlink()
    print("holdem stack is down")
    return 0
