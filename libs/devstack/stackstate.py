"""The state file of a running local stack (``<state dir>/state.json``, default
``$HOLDEM_STACK_DIR`` or ``./.stack``): what ``holdem stack up`` writes there (``describe``: the
pid of ``stack up``, its temp directory, the NATS and Redis URLs, each process's address, pid, log
and restarts), reading and writing it, and what other commands look up in it (``stack_address``,
``running_pid``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .identity import default_stack_dir
from .processes import pid_alive
from .stack import LocalStack

STATE_FILE = "state.json"


def state_path(state_dir: Path) -> Path:
    return state_dir / STATE_FILE


def read_state(state_dir: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(state_path(state_dir).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_state(state_dir: Path, state: dict[str, Any]) -> None:
    """Write atomically (rename), so `status` never reads half a file."""
    state_dir.mkdir(parents=True, exist_ok=True)
    tmp = state_path(state_dir).with_suffix(".json.tmp")
    tmp.write_text(json.dumps(state, indent=2) + "\n")
    tmp.replace(state_path(state_dir))


def stack_address(service: str, state_dir: Path | None = None) -> str | None:
    """Where ``service`` of the local stack listens (its state file, default
    ``default_stack_dir()``), or None when no stack wrote one."""
    state = read_state(state_dir or default_stack_dir())
    for entry in (state or {}).get("services", []):
        if isinstance(entry, dict) and entry.get("name") == service:
            return str(entry["address"])
    return None


def running_pid(state: dict[str, Any] | None) -> int | None:
    if state is None:
        return None
    pid = state.get("pid")
    return pid if isinstance(pid, int) and pid_alive(pid) else None


def describe(stack: LocalStack) -> dict[str, Any]:
    """A JSON-able description of the running stack (what ``holdem stack up`` writes)."""
    assert stack.redis is not None, "stack not started"
    first = stack.nats_node(0)
    return {
        "pid": os.getpid(),
        "started_at": stack.started_at,
        "workdir": str(stack.workdir),
        "data_dir": None if stack.data_dir is None else str(stack.data_dir),
        # the users' passwords (0600); the URLs below carry none
        "secrets_dir": None if stack.secrets_dir is None else str(stack.secrets_dir),
        # the CA, and each identity's certificate and key (tools: ``tools.pem``)
        "tls_dir": None if stack.tls_dir is None else str(stack.tls_dir),
        "keep_temp": stack.keep_temp,
        "nats": {
            "url": stack.nats_url,
            "pid": first.pid,
            "log": str(first.log_path),
            "restarts": first.restarts,
            "nodes": [
                {
                    "name": n.name,
                    "url": n.url,
                    "pid": n.pid,
                    "log": str(n.log_path),
                    "restarts": n.restarts,
                }
                for n in (stack.cluster.nodes if stack.cluster else [first])
            ],
        },
        "redis": {
            "url": stack.redis.url,
            "pid": stack.redis.pid,
            "log": str(stack.redis.log_path),
            "restarts": stack.redis.restarts,
        },
        "web": stack.web_url,
        "services": [
            {
                "name": s.name,
                "address": s.address,
                "metrics": stack.metrics_addresses.get(s.name),
                "pid": s.pid,
                "log": str(s.log_path),
                "restarts": s.restarts,
            }
            for s in stack.services
        ],
    }
