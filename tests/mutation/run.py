"""A small mutation check: does each realistic one-line bug make the tests that should catch it
fail? The mutations live one module per area (tests/mutation/mutations_*.py), each naming the
tests it must fail.

``make mutate`` (not part of ``make test``): the project is copied to a temporary folder once;
each mutation is applied there alone, its tests run against the copy (the worktree itself is
never changed), and the mutation is undone. A mutation the tests still pass
with "survived": a bug the tests would miss. Exit status 1 when any survived.

    .venv/bin/python tests/mutation/run.py              # all, with a table of results
    .venv/bin/python tests/mutation/run.py --only clock  # those whose name contains "clock"
    .venv/bin/python tests/mutation/run.py --list
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # run as a script: tests.mutation.* import from the project root
    sys.path.insert(0, str(ROOT))

from tests.mutation.model import Mutation  # noqa: E402

PYTEST = ["-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-m", "not slow"]
TIMEOUT = 900.0  # a mutation that hangs the tests counts as caught (by the timeout)


def _catalogue() -> list[Mutation]:
    """Every mutation, from each tests/mutation/mutations_*.py module's MUTATIONS (one module per
    area, so areas add theirs without touching this runner)."""
    found: list[Mutation] = []
    for module in sorted(Path(__file__).parent.glob("mutations_*.py")):
        found.extend(importlib.import_module(f"tests.mutation.{module.stem}").MUTATIONS)
    return found


MUTATIONS = _catalogue()


@dataclass(frozen=True)
class Result:
    mutation: Mutation
    caught: bool
    how: str
    seconds: float


def _copy_project(into: Path) -> Path:
    copy = into / "holdem"
    skip = shutil.ignore_patterns(
        ".venv", ".git", "gen", ".stack", "*_cache", ".hypothesis", "__pycache__"
    )
    shutil.copytree(ROOT, copy, ignore=skip, symlinks=True)
    where = subprocess.run(
        [sys.executable, "-c", "import libs.table, services.table; print(libs.table.__file__)"],
        cwd=copy,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not where.startswith(str(copy)):
        raise SystemExit(f"the copy's code is not what Python imports ({where})")
    return copy


def _run_tests(copy: Path, tests: list[str]) -> tuple[bool, str]:
    """(passed, the first failing test or why)."""
    try:
        done = subprocess.run(
            [sys.executable, *PYTEST, *tests],
            cwd=copy,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        return False, f"timed out after {TIMEOUT:.0f}s"
    if done.returncode == 0:
        return True, ""
    failed = [line for line in done.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]
    return False, (failed[0] if failed else done.stdout.strip().splitlines()[-1])[:110]


def check(mutations: list[Mutation]) -> None:
    """Each mutation's code must still be in its file, once (else the list needs an update)."""
    for mutation in mutations:
        if (ROOT / mutation.path).read_text().count(mutation.before) != 1:
            raise SystemExit(f"{mutation.name}: its code is not in {mutation.path} once")


def run(mutations: list[Mutation]) -> list[Result]:
    check(mutations)
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="holdem-mutate-") as tmp:
        copy = _copy_project(Path(tmp))
        every_test = sorted({test for mutation in mutations for test in mutation.tests})
        passed, why = _run_tests(copy, every_test)
        if not passed:
            raise SystemExit(f"the tests fail without any mutation: {why}")
        for mutation in mutations:
            path = copy / mutation.path
            original = path.read_text()
            path.write_text(original.replace(mutation.before, mutation.after))
            started = time.monotonic()
            try:
                passed, why = _run_tests(copy, list(mutation.tests))
            finally:
                path.write_text(original)
            result = Result(mutation, not passed, why, time.monotonic() - started)
            results.append(result)
            print(f"{'caught  ' if result.caught else 'SURVIVED'} {mutation.name}", flush=True)
    return results


def report(results: list[Result]) -> str:
    lines = ["| mutation | file | result | caught by |", "|---|---|---|---|"]
    for r in results:
        verdict = "caught" if r.caught else "**survived**"
        lines.append(f"| {r.mutation.name} | {r.mutation.path} | {verdict} | {r.how} |")
    caught = sum(r.caught for r in results)
    lines.append(f"\n{caught} of {len(results)} mutations caught")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="run the mutations whose name contains this")
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    args = parser.parse_args()
    chosen = [m for m in MUTATIONS if args.only in m.name]
    if args.list:
        check(chosen)
        print("\n".join(f"{m.name}  ({m.path})" for m in chosen))
        return 0
    results = run(chosen)
    print(report(results))
    return 0 if all(r.caught for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
