"""``make run HANDS=N``: the whole stack comes up, six bots play N hands through the table
service (cards from the dealer service), the hands are printed, and everything stops."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def test_the_stack_shows_a_table_in_play_and_stops(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOLDEM_")}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "libs.cli.main",
            "stack",
            "up",
            "--state-dir",
            str(tmp_path),
            "--demo-hands",
            "2",
            "--exit-after-demo",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    out = result.stdout
    assert "-- hand 1" in out and "-- hand 2" in out
    assert "2 hands played at table 'demo'" in out
    assert "table closed" in out and "deck closed" in out and "seed revealed" not in out
    assert "hands played:    2" in out and "chips conserved: yes" in out
    assert "holdem stack stopped" in result.stderr
    assert not (tmp_path / "state.json").exists()
    # the verify hints name the admin user without its password, which nothing prints
    assert "--nats nats://admin:***@127.0.0.1:" in out
    credentials = json.loads((tmp_path / "secrets" / "credentials.json").read_text())
    passwords = [*credentials["nats"].values(), *credentials["redis"].values()]
    assert [p for p in passwords if p in out or p in result.stderr] == []
