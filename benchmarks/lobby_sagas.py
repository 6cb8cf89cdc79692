"""``python -m benchmarks.lobby_sagas [N]``: the lobby's money paths against real processes (a
lobby and a table service on a local nats-server and redis-server, started as the tests do):
JoinTable (the whole buy-in saga), LeaveTable (until the cash-out consumer credited the wallet),
Login (argon2id) and one AuditChips. Not part of ``make bench`` (it starts processes)."""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from holdem.lobby.v1 import lobby_pb2

from tests import infra
from tests.services.lobby_stack import lobby_stack


def _pct(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main(rounds: int = 30) -> None:
    with (
        infra.redis_backend() as redis,
        tempfile.TemporaryDirectory() as logs,
        lobby_stack(Path(logs), redis.url) as stack,
    ):
        owner = stack.register()
        timings: dict[str, list[float]] = {"JoinTable": [], "LeaveTable": [], "Login": []}
        for _ in range(rounds):
            player = stack.register()
            table = stack.create_table(owner.player_id, min_players_to_start=3)
            started = time.perf_counter()
            stack.join(player.player_id, table, 100)
            timings["JoinTable"].append(time.perf_counter() - started)
            started = time.perf_counter()
            stack.leave(player.player_id, table)
            timings["LeaveTable"].append(time.perf_counter() - started)
            started = time.perf_counter()
            stack.lobby_call(
                "Login",
                lobby_pb2.LoginRequest(
                    username=player.username, password=f"pw-{player.username}-long"
                ),
            )
            timings["Login"].append(time.perf_counter() - started)
        started = time.perf_counter()
        audit = stack.audit()
        audit_ms = (time.perf_counter() - started) * 1000
    for name, values in timings.items():
        print(
            f"{name:10} p50 {statistics.median(values) * 1000:7.1f} ms"
            f"  p90 {_pct(values, 0.9) * 1000:7.1f} ms  (n={len(values)})"
        )
    print(f"AuditChips over {len(audit.tables)} tables: {audit_ms:.0f} ms, holds={audit.holds}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 30)
