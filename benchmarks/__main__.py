"""``python -m benchmarks [NAME] [--json] [options]``: run one benchmark, or all of them.

Add a benchmark by writing a module with ``NAME``, ``DESCRIPTION``, ``add_arguments`` and ``run``
(see ``benchmarks.engine``) and listing it in ``BENCHMARKS``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from types import ModuleType

from benchmarks import Result
from benchmarks import ai as ai_benchmark
from benchmarks import bots as bots_benchmark
from benchmarks import dealer as dealer_benchmark
from benchmarks import durability as durability_benchmark
from benchmarks import engine as engine_benchmark
from benchmarks import evaluator as evaluator_benchmark
from benchmarks import gateway as gateway_benchmark
from benchmarks import icm as icm_benchmark
from benchmarks import server as server_benchmark
from benchmarks import table as table_benchmark

BENCHMARKS: dict[str, ModuleType] = {
    module.NAME: module
    for module in (
        engine_benchmark,
        dealer_benchmark,
        evaluator_benchmark,
        table_benchmark,
        durability_benchmark,
        ai_benchmark,
        icm_benchmark,
        bots_benchmark,
        gateway_benchmark,
        server_benchmark,
    )
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description="Throughput benchmarks against peer libraries."
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    commands = parser.add_subparsers(dest="benchmark", metavar="BENCHMARK")
    for name, module in BENCHMARKS.items():
        sub = commands.add_parser(name, help=module.DESCRIPTION, description=module.DESCRIPTION)
        sub.add_argument("--json", action="store_true", help="print JSON instead of a table")
        add_arguments: Callable[[argparse.ArgumentParser], None] = module.add_arguments
        add_arguments(sub)
    return parser


def _value(value: float, unit: str) -> str:
    return f"{value:,.0f}{unit}" if unit == "/s" else f"{value:,.2f} {unit}"


def format_table(results: Sequence[Result]) -> str:
    header = ("benchmark", "ours", "peer", "peer's", "ours/peer")
    rows = [
        (
            r.name,
            _value(r.ours_per_s, r.unit),
            r.peer,
            _value(r.peer_per_s, r.unit),
            f"{r.ratio:.2f}x" if r.ratio < 1 else f"{r.ratio:.1f}x",
        )
        for r in results
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(
            cell.ljust(w) if i in (0, 2) else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in [header, *rows]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.benchmark is None:
        names = list(BENCHMARKS)
        # Each benchmark's own defaults.
        per_benchmark = {name: _parser().parse_args([name]) for name in names}
    else:
        names = [args.benchmark]
        per_benchmark = {args.benchmark: args}
    results: list[Result] = []
    for name in names:
        run: Callable[[argparse.Namespace], list[Result]] = BENCHMARKS[name].run
        results.extend(run(per_benchmark[name]))
    if args.json:
        print(json.dumps([r.to_json() for r in results], indent=2))
    else:
        print(format_table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
