"""Entry point of the `holdem` console script: one sub-command per module.

Each command module exposes ``register(subparsers)``, which adds its parser and sets
``func`` (taking the parsed namespace, returning the exit status).
"""

from __future__ import annotations

import os

# gRPC's core logs an INFO line whenever a tool forks a process while channels exist; quiet it.
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

import argparse
import importlib
import sys
from collections.abc import Sequence

COMMAND_MODULES = (
    "libs.cli.replay",
    "libs.cli.stack",
    "libs.cli.chaos",
    "libs.cli.nemesis",
    "libs.cli.verify",
    "libs.cli.bench",
    "libs.cli.arena",
    "libs.cli.audit",
    "libs.cli.servicekeys",
    "libs.cli.tlscerts",
    "libs.cli.load",
    "libs.cli.play",
    "libs.cli.chat",
    "libs.cli.tournament",
    "libs.cli.tournaments",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="holdem", description="holdem poker platform tools")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    status: int = args.func(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
