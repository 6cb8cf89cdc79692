"""``holdem bench [NAME] [--json]``: the benchmarks of ``make bench`` (``python -m benchmarks``),
side by side with their peers: engine, dealer, evaluator, table, ai, bots."""

from __future__ import annotations

import argparse
import importlib


def run(args: argparse.Namespace) -> int:
    main = importlib.import_module("benchmarks.__main__").main
    argv = ([args.name] if args.name else []) + (["--json"] if args.json else []) + args.rest
    status: int = main(argv)
    return status


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("bench", help="run the benchmarks (as make bench)")
    parser.add_argument(
        "name", nargs="?", help="engine, dealer, evaluator, table, ai or bots (default: all)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON rows")
    parser.add_argument("rest", nargs=argparse.REMAINDER, help="options of that benchmark")
    parser.set_defaults(func=run)
