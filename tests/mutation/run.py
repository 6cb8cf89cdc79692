"""A small mutation check of the table layer: does each realistic one-line bug in the table
aggregate (libs/table) or the table service's command path (services/table) make the fast table
tests fail?

``make mutate`` (not part of ``make test``): the project is copied to a temporary folder once;
each mutation below is applied there alone, the fast table tests run against the copy (the
worktree itself is never changed), and the mutation is undone. A mutation the tests still pass
with "survived": a bug the tests would miss. Exit status 1 when any survived.

    .venv/bin/python tests/mutation/run.py              # all, with a table of results
    .venv/bin/python tests/mutation/run.py --only clock  # those whose name contains "clock"
    .venv/bin/python tests/mutation/run.py --list
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = [
    "tests/table",
    "tests/tableproto",
    "tests/tableservice",
    "tests/services/test_table_service.py",
]
PYTEST = ["-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-m", "not slow"]
TIMEOUT = 900.0  # a mutation that hangs the tests counts as caught (by the timeout)


@dataclass(frozen=True)
class Mutation:
    name: str
    path: str
    before: str  # must occur exactly once in the file
    after: str


MUTATIONS = [
    # ---- the aggregate (libs/table)
    Mutation(
        "plan: positions start at the button (off by one)",
        "libs/table/planning.py",
        "order = [(button + k) % size for k in range(1, size + 1)",
        "order = [(button + k) % size for k in range(0, size)",
    ),
    Mutation(
        "state: acting seat from the previous position (off by one)",
        "libs/table/state.py",
        "return None if actor is None else self.hand_seats[actor]",
        "return None if actor is None else self.hand_seats[actor - 1]",
    ),
    Mutation(
        "plan: heads-up the button does not post the small blind",
        "libs/table/planning.py",
        "        if bb == button:  # two players: the button posts the small blind\n"
        "            sb, bb = button, sb\n",
        "",
    ),
    Mutation(
        "clock: acts only after the deadline, not at it",
        "libs/table/decide.py",
        "if number is None or c.now < s.deadline or s.hand is None:",
        "if number is None or c.now <= s.deadline or s.hand is None:",
    ),
    Mutation(
        "clock: always folds, never checks when checking is free",
        "libs/table/decide.py",
        "if options is not None and options.player == position and options.can_check:",
        "if False:",
    ),
    Mutation(
        "clock: sits out one time-out late",
        "libs/table/decide.py",
        "and s.seats[number].timeouts >= s.config.timeouts_before_sit_out",
        "and s.seats[number].timeouts > s.config.timeouts_before_sit_out",
    ),
    Mutation(
        "clock: acting in the time bank does not spend it",
        "libs/table/decide.py",
        "        x.emit(TimeBankUsed(number, used))\n",
        "",
    ),
    Mutation(
        "blinds: the seat that just paid the big blind counts as passed",
        "libs/table/state.py",
        "return 0 < (seat - previous) % size <= span",
        "return 0 <= (seat - previous) % size <= span",
    ),
    Mutation(
        "seating: newcomers after the first hand play at once",
        "libs/table/decide.py",
        "starting = s.hands_started == 0 or _active_count(s) < 2",
        "starting = True",
    ),
    Mutation(
        "room: the hand limit allows one hand more",
        "libs/table/planning.py",
        "if cfg.hand_limit and s.hands_started >= cfg.hand_limit:",
        "if cfg.hand_limit and s.hands_started > cfg.hand_limit:",
    ),
    Mutation(
        "leaving: a player who asked to leave stays after the hand",
        "libs/table/decide.py",
        "        if seat.leaving:\n"
        "            x.emit(PlayerLeft(number, seat.player_id, seat.stack))\n",
        "        if False:\n            pass\n",
    ),
    Mutation(
        "seating: no seat given takes the highest free seat",
        "libs/table/planning.py",
        "    for seat in range(s.config.seats):\n        if seat not in s.seats:",
        "    for seat in reversed(range(s.config.seats)):\n        if seat not in s.seats:",
    ),
    Mutation(
        "next_due: the clock is due a moment late",
        "libs/table/automation.py",
        "if s.clock_seat is not None and now >= s.deadline:",
        "if s.clock_seat is not None and now > s.deadline:",
    ),
    # ---- the command path (services/table)
    Mutation(
        "retry: answered with the current sequence, not the first outcome",
        "services/table/idempotency.py",
        "return None if first is None else replace(first.outcome, duplicate=True)",
        "return None if first is None else replace(first.outcome, duplicate=True, sequence=max("
        "e.outcome.sequence for e in self._entries.values()))",
    ),
    Mutation(
        "restart: idempotency keys not restored from the snapshot",
        "services/table/idempotency.py",
        "            recent._entries[key] = _Entry(Outcome(sequence, []), at)\n",
        "            pass\n",
    ),
    Mutation(
        "snapshot: idempotency keys not written",
        "services/table/idempotency.py",
        "return [(key, e.outcome.sequence, e.at) for key, e in self._entries.items()]",
        "return []",
    ),
    Mutation(
        "window: the keys of automatic steps are kept too (snapshots grow with play)",
        "services/table/idempotency.py",
        "if not automatic and key not in self._entries:",
        "if key not in self._entries:",
    ),
    Mutation(
        "window: keys never expire",
        "services/table/idempotency.py",
        "            elif entry.at >= horizon:",
        "            elif True:",
    ),
    Mutation(
        "snapshot: none at hand end",
        "services/table/commits.py",
        "if not (hand_over or self.repository.snapshot_due(table.since_snapshot)):",
        "if not self.repository.snapshot_due(table.since_snapshot):",
    ),
    Mutation(
        "snapshot: the commit counter never advances",
        "services/table/commits.py",
        "        table.since_snapshot += 1\n",
        "",
    ),
    Mutation(
        "commit: a retry's landed commit is decided again instead of reloaded",
        "services/table/app.py",
        "                if result.duplicate:  # this very commit landed before",
        "                if False:  # this very commit landed before",
    ),
    Mutation(
        "commit: an automatic step decided on a stale state is not dropped",
        "services/table/app.py",
        "            if automatic and based_on is not None and table.sequence != based_on:\n"
        "                return None",
        "            if False:\n                return None",
    ),
    Mutation(
        "commit: after a conflict an automatic step is decided again",
        "services/table/app.py",
        "                    if automatic:\n"
        "                        return None\n"
        "                    metrics.RETRIES.inc()\n",
        "                    metrics.RETRIES.inc()\n",
    ),
    Mutation(
        "commit: the hand-end commit does not reveal the seed",
        "services/table/app.py",
        "state, events = await self.automation.reveal_at_hand_end(state, events)",
        "state, events = state, events",
    ),
    Mutation(
        "publish: hole cards go out in the public projection",
        "libs/tableproto/envelope.py",
        "    public = [public_event(e, seeds) for e in events]\n",
        "    public = list(events)\n",
    ),
    Mutation(
        "registry: an opened table is not registered (nobody adopts it)",
        "services/table/ownership.py",
        "            await self.registry.add(table_id)\n",
        "            pass\n",
    ),
    Mutation(
        "publish: a load does not publish what a dead owner appended but never published",
        "services/table/commits.py",
        "            await self.projector.catch_up(table_id, loaded.sequence)\n",
        "            pass\n",
    ),
    Mutation(
        "showdown: the evaluator is asked twice per showdown",
        "services/table/ranking.py",
        "                    await values_for_showdown(\n"
        "                        self.ranker, state.config.variant, state.hand, need, known\n"
        "                    )\n",
        "                    await values_for_showdown(\n"
        "                        self.ranker, state.config.variant, state.hand, need, known\n"
        "                    )\n"
        "                    await values_for_showdown(\n"
        "                        self.ranker, state.config.variant, state.hand, need,\n"
        "                        KnownValues(),\n"
        "                    )\n",
    ),
]


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


def _run_tests(copy: Path) -> tuple[bool, str]:
    """(passed, the first failing test or why)."""
    try:
        done = subprocess.run(
            [sys.executable, *PYTEST, *TESTS],
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
        passed, why = _run_tests(copy)
        if not passed:
            raise SystemExit(f"the tests fail without any mutation: {why}")
        for mutation in mutations:
            path = copy / mutation.path
            original = path.read_text()
            path.write_text(original.replace(mutation.before, mutation.after))
            started = time.monotonic()
            try:
                passed, why = _run_tests(copy)
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
