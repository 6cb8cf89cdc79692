"""``holdem tls-certs DIR``: make the TLS files of a deployment (libs/platform/tls.py,
docs/hardening.md "TLS between services").

Writes a new CA (``ca.pem``; its private key is not kept, so nothing more can be issued under it:
run it again for a new set) and one certificate and key per identity (``<identity>.pem``,
``<identity>.key``, owner-only). Each certificate names its identity, then every ``--host`` (the
names and addresses the service is reached at; default: loopback). Give each service
HOLDEM_TLS_CA=ca.pem and its own HOLDEM_TLS_CERT / HOLDEM_TLS_KEY; operators' commands use the
``tools`` pair.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from libs.cli.arguments import whole_number
from libs.platform.identity import IDENTITIES
from libs.platform.tls import CA_FILE, LOOPBACK_HOSTS, VALID_DAYS, cert_file, issue_set, key_file


def run(args: argparse.Namespace) -> int:
    directory: Path = args.directory
    if directory.exists() and any(directory.iterdir()) and not args.force:
        print(
            f"holdem tls-certs: {directory} is not empty (--force replaces its files)",
            file=sys.stderr,
        )
        return 2
    identities = args.identity or list(IDENTITIES)
    issue_set(directory, identities, args.host or LOOPBACK_HOSTS, days=args.days)
    print(f"CA: {directory / CA_FILE}")
    for identity in identities:
        print(f"{identity}: {directory / cert_file(identity)} {directory / key_file(identity)}")
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "tls-certs", help="make a CA and a certificate per service (mutual TLS between services)"
    )
    parser.add_argument("directory", type=Path, help="where to write the files")
    parser.add_argument(
        "--host",
        action="append",
        help="a DNS name or IP address every certificate is valid for (repeatable; default: "
        "localhost and loopback); each certificate also names its identity",
    )
    parser.add_argument(
        "--identity",
        action="append",
        choices=IDENTITIES,
        help="only this identity (repeatable; default: every one)",
    )
    parser.add_argument(
        "--days",
        type=whole_number(1, 36_500, "--days"),
        default=VALID_DAYS,
        help=f"validity (default {VALID_DAYS})",
    )
    parser.add_argument("--force", action="store_true", help="write into a non-empty directory")
    parser.set_defaults(func=run)
