"""``holdem load``: tables played through the table service, measured; the JSON report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.integration, pytest.mark.slow]


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
