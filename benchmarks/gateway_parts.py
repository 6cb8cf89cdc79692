"""Parts of the gateway benchmark (``benchmarks.gateway``): running clients for a while (each
call's latency, and the CPU the processes measured used meanwhile), percentiles, and the rows as
a table (latencies, rates, the ratios against a bare call and the floor, Act over Connect, the
CPU each Act cost the gateway and the table)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from libs.cli.load_processes import cpu_seconds


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


async def clients_for(
    count: int,
    seconds: float,
    one: Callable[[int], Awaitable[Callable[[], Awaitable[None]]]],
    cpu: dict[str, float] | None = None,
    pids: dict[str, int] | None = None,
) -> tuple[list[float], float]:
    """Run ``count`` clients for ``seconds``; every timed call's latency and the elapsed time.
    ``cpu`` gets the CPU seconds each process of ``pids`` used while the clients ran (their
    set-up apart)."""
    steps = [await one(i) for i in range(count)]
    latencies: list[float] = []
    stop = time.monotonic() + seconds

    async def loop(step: Callable[[], Awaitable[None]]) -> None:
        while time.monotonic() < stop:
            started = time.perf_counter()
            await step()
            latencies.append(time.perf_counter() - started)

    before = {name: cpu_seconds(pid) for name, pid in (pids or {}).items()}
    started = time.monotonic()
    await asyncio.gather(*(loop(step) for step in steps))
    elapsed = time.monotonic() - started
    if cpu is not None:
        cpu.update({name: cpu_seconds(pid) - before[name] for name, pid in (pids or {}).items()})
    return latencies, elapsed


def format_rows(rows: list[dict[str, float]]) -> str:
    header = (
        "clients  Act p50 ms  Act p99 ms  Act/s   bare p50 ms  bare p99 ms  bare/s   p50 ratio"
        "  table-only p50 ms  floor p50 ms  floor/bare  Connect p50 ms  Connect/s  Connect/gRPC"
        "  CPU ms/Act: gateway  table"
    )
    lines = [header, "-" * len(header)]
    for r in rows:
        lines.append(
            f"{int(r['clients']):>7}  {r['act_p50_ms']:>10.2f}  {r['act_p99_ms']:>10.2f}"
            f"  {r['acts_per_s']:>5.0f}   {r['bare_p50_ms']:>11.2f}  {r['bare_p99_ms']:>11.2f}"
            f"  {r['bare_per_s']:>6.0f}   {r['p50_ratio']:>8.1f}x"
            f"  {r['table_p50_ms']:>17.2f}  {r['floor_p50_ms']:>12.2f}  {r['floor_ratio']:>9.1f}x"
            f"  {r['connect_p50_ms']:>14.2f}  {r['connect_per_s']:>9.0f}"
            f"  {r['connect_ratio']:>11.2f}x"
            f"  {r['cpu_ms_per_act_gateway']:>19.2f}  {r['cpu_ms_per_act_table']:>5.2f}"
        )
    return "\n".join(lines)
