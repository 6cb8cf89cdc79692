"""``holdem replay [--json] PATH...``: replay PHH files strictly through the rules engine."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from libs.poker.phh import replay_text

STATUSES = ("matched", "mismatched", "illegal", "unsupported", "no_expectation")


def phh_files(paths: Iterable[str]) -> list[Path]:
    """Every .phh file under the given files and folders (recursively), sorted."""
    found: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*.phh") if p.is_file()))
        elif path.exists():
            found.append(path)
        else:
            raise FileNotFoundError(f"no such file or folder: {name}")
    return found


def replay_paths(paths: Iterable[str]) -> dict[str, Any]:
    summary: dict[str, Any] = {"total": 0, **{s: 0 for s in STATUSES}, "failures": []}
    for path in phh_files(paths):
        outcome = replay_text(path.read_text(encoding="utf-8"))
        summary["total"] += 1
        summary[outcome.status] += 1
        if outcome.status in ("mismatched", "illegal"):
            summary["failures"].append(
                {"path": str(path), "status": outcome.status, "reason": outcome.reason}
            )
    return summary


def run(args: argparse.Namespace) -> int:
    try:
        summary = replay_paths(args.paths)
    except FileNotFoundError as exc:
        print(f"holdem replay: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        for failure in summary["failures"]:
            print(f"{failure['status'].upper():10} {failure['path']}: {failure['reason']}")
        print(
            f"{summary['total']} hands: {summary['matched']} matched, "
            f"{summary['mismatched']} mismatched, {summary['illegal']} illegal, "
            f"{summary['unsupported']} unsupported, "
            f"{summary['no_expectation']} legal without expected stacks"
        )
    return 1 if summary["mismatched"] or summary["illegal"] else 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "replay", help="replay PHH hand histories strictly through the rules engine"
    )
    parser.add_argument("paths", nargs="+", help=".phh files or folders (searched recursively)")
    parser.add_argument("--json", action="store_true", help="print one JSON summary")
    parser.set_defaults(func=run)
