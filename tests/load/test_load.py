"""``holdem load``: tables played through the table service, measured; the JSON report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.integration
@pytest.mark.slow
@pytest.mark.parametrize("replicas", [1, 2])
def test_load_plays_tables_and_reports_the_agreed_keys(replicas: int) -> None:
    result = subprocess.run(
        [
            sys.executable, "-m", "libs.cli.main", "load",
            "--tables", "3", "--duration", "3", "--replicas", str(replicas), "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    keys = {"tables", "replicas", "seconds", "commits_per_s", "hands_per_s", "p50_ms", "p99_ms"}
    assert keys | {"errors"} <= set(report)
    assert report["tables"] == 3 and report["replicas"] == replicas
    assert report["errors"] == 0
    assert report["commits_per_s"] > 0 and report["hands_per_s"] > 0
    assert 0 < report["p50_ms"] <= report["p99_ms"]
    assert {f"table-{i}" for i in range(replicas)} <= set(report["cpu"])
    # the ceiling measured in the same run, and the ratio to it
    assert report["bare_appends_per_s"] > 0
    assert report["ratio"] == pytest.approx(
        report["commits_per_s"] / report["bare_appends_per_s"], abs=0.001
    )


@pytest.mark.parametrize(
    "arguments",
    [
        ["--tables", "0"],
        ["--tables", "-3"],
        ["--tables", "1001"],
        ["--tables", "many"],
        ["--duration", "0"],
        ["--duration", "nan"],
        ["--duration", "inf"],
        ["--duration", "1e9"],
        ["--tables", "100001", "--pace", "60"],
        ["--pace", "0"],
        ["--pace", "nan"],
    ],
)
def test_load_refuses_sizes_it_cannot_run_before_starting_anything(arguments: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "libs.cli.main", "load", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "holdem load: error: argument" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.integration
@pytest.mark.slow
@pytest.mark.parametrize("replicas", [1, 2])
def test_load_at_a_person_s_pace_acts_through_the_gateway_and_reports_costs(
    replicas: int,
) -> None:
    result = subprocess.run(
        [
            sys.executable, "-m", "libs.cli.main", "load", "--pace", "3600",
            "--tables", "4", "--duration", "4", "--replicas", str(replicas), "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["tables"] == 4 and report["replicas"] == replicas and report["pace"] == 3600
    assert report["errors"] == 0 and report["acts"] > 0
    assert 0 < report["act_p50_ms"] <= report["act_p99_ms"]
    tables = {f"table-{i}" for i in range(replicas)}
    assert set(report["tables_held"]) == tables
    assert sum(report["tables_held"].values()) == 4  # each table held by exactly one
    assert tables | {"client", "nats-server", "redis-server"} <= set(report["cpu"])
    assert set(report["rss_mb"]) == set(report["cpu"])
    assert report["ownership_writes_per_s"] > 0
    assert report["nats_msgs_per_table_hour"] > 0 and report["redis_ops_per_table_hour"] > 0


def test_a_person_s_think_time_gives_the_pace_and_never_meets_the_clock() -> None:
    import random

    from libs.cli.load_pace import ACTIONS_PER_HAND, CLOCK_SECONDS, think_seconds

    rng = random.Random(1)
    draws = [think_seconds(60, rng) for _ in range(20_000)]
    mean = 3600 / (60 * ACTIONS_PER_HAND)
    assert sum(draws) / len(draws) == pytest.approx(mean, rel=0.05)
    assert max(think_seconds(0.5, rng) for _ in range(1000)) <= CLOCK_SECONDS / 2


def test_setup_asks_a_timed_out_call_again_of_the_same_table_service() -> None:
    """An opening call that ran out its time is asked again there (its idempotency key makes
    the second land once); UNAVAILABLE moves the table to the next; a read is not retried on a
    timeout, and nothing is asked past the deadline."""
    import asyncio
    import time

    import grpc

    from libs.cli.load_pace import _Routed

    def failure(code: grpc.StatusCode) -> grpc.aio.AioRpcError:
        return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), "x")

    async def scenario() -> tuple[list[int], list[int]]:
        route = _Routed(2)
        asked: list[int] = []
        answers = [grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE, None]

        async def send(index: int) -> str:
            asked.append(index)
            code = answers.pop(0)
            if code is not None:
                raise failure(code)
            return "ok"

        start = route.route.setdefault("t", 0)
        assert await route.call("t", send, time.monotonic() + 10, patient=True) == "ok"
        impatient: list[int] = []

        async def read(index: int) -> str:
            impatient.append(index)
            raise failure(grpc.StatusCode.DEADLINE_EXCEEDED)

        try:
            await route.call("t", read, time.monotonic() + 10)
        except grpc.aio.AioRpcError as exc:
            assert exc.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        assert route.retried == 2
        return [start, *asked], impatient

    asked, impatient = asyncio.run(scenario())
    assert asked == [0, 0, 0, 1]  # the same service twice, then the next after UNAVAILABLE
    assert impatient == [1]
