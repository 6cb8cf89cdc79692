"""``holdem verify HAND...`` / ``holdem verify --table T``: the command around the fairness audit.

This module reads the arguments and files, and prints the results; the audit itself (what a fair
hand is, the PHH and JSON history formats) is ``libs.fairdeck``: ``audit`` checks a hand's cards
against its revealed seed, ``histories`` reads and writes hand histories; this module also reads
a table's events from JetStream for ``--table`` (``read_table_events``). Exit 0 if every hand is
fair, 1 on any difference, 2 if a file or the stream cannot be read.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from libs.devstack.identity import cli_tls
from libs.eventstore.jetstream import TABLE_STREAM, JetStreamEventStore
from libs.fairdeck.audit import Outcome, outcomes_from_stream
from libs.fairdeck.histories import verify_text
from libs.platform.natsconn import connect_nats
from libs.platform.tls import TlsFiles
from libs.tableproto.envelope import decode_commit


async def read_table_events(
    nats_url: str, stream: str, table_id: str, tls: TlsFiles | None = None
) -> list[Any]:
    """Every event of ``table_id``'s stream, in order (the commits' events flattened); ``tls``
    for a ``tls://`` URL."""
    nc = await connect_nats(nats_url, tls)
    try:
        commits = await JetStreamEventStore(nc, stream=stream).read(table_id)
    finally:
        await nc.close()
    return [event for commit in commits for event in decode_commit(commit.data)[1]]


def run(args: argparse.Namespace) -> int:
    outcomes: list[Outcome] = []
    if args.table:
        try:
            events = asyncio.run(read_table_events(args.nats, args.stream, args.table, cli_tls()))
        except Exception as exc:  # unreachable server, missing stream: say so plainly
            print(f"holdem verify: cannot read table {args.table}: {exc}", file=sys.stderr)
            return 2
        outcomes = outcomes_from_stream(events)
        if args.hand:
            outcomes = [o for o in outcomes if o.path == f"hand {args.hand}"]
        if not outcomes:
            print(f"holdem verify: no finished hand found for table {args.table}", file=sys.stderr)
            return 2
    elif not args.hands:
        print("holdem verify: name hand files, or --table TABLE_ID", file=sys.stderr)
        return 2
    for name in args.hands:
        try:
            text = Path(name).read_text(encoding="utf-8")
        except OSError as exc:
            print(f"holdem verify: cannot read {name}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        outcomes.append(verify_text(text, name))
    if args.json:
        print(
            json.dumps(
                [
                    {"path": o.path, "ok": o.ok, "cards": o.cards, "failures": list(o.failures)}
                    for o in outcomes
                ],
                indent=2,
            )
        )
    else:
        for outcome in outcomes:
            if outcome.ok:
                print(
                    f"OK   {outcome.path}: commitment and all {outcome.cards} dealt cards "
                    "follow from the revealed seed"
                )
            else:
                print(f"FAIL {outcome.path}: {len(outcome.failures)} difference(s)")
                for failure in outcome.failures:
                    print(f"     - {failure}")
    return 0 if all(o.ok for o in outcomes) else 1


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "verify",
        help="check a hand's cards against its revealed seed (provably fair)",
        description=(
            "Recompute each hand's deck from its revealed seed and check the commitment "
            "(SHA-256 of the seed) and every dealt card: hole cards, board and burns. HAND is a "
            "PHH file with user fields _seed, _commitment, _shuffle_algorithm (and optionally "
            "_burns), or a JSON hand (see libs/fairdeck/histories.py). Exit 0 if every hand is "
            "fair, 1 on any difference, 2 if a file cannot be read."
        ),
        epilog=(
            "With --table, the hands come straight from the table's event stream in JetStream "
            "(every finished hand, or --hand N)."
        ),
    )
    parser.add_argument("hands", nargs="*", metavar="HAND", help="hand history file (PHH or JSON)")
    parser.add_argument("--table", help="verify the hands of this table's event stream")
    parser.add_argument("--hand", help="with --table: only this hand id")
    parser.add_argument(
        "--nats", default="nats://127.0.0.1:4222", help="with --table: the NATS server URL"
    )
    parser.add_argument("--stream", default=TABLE_STREAM, help="with --table: the JetStream stream")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.set_defaults(func=run)
