"""``holdem service-keys``: make the Ed25519 service keys of a deployment
(libs/platform/identity.py, docs/operations.md "Service keys").

``holdem service-keys new --kid prod1`` prints one private key per identity, each to be given to
that service only (``HOLDEM_SERVICE_KEY``; the lines are named ``HOLDEM_SERVICE_KEY_<IDENTITY>``,
the variables docker-compose.yml reads, so the output can be an ``.env`` file), and the public
keys every service verifies with (``HOLDEM_SERVICE_PUBLIC_KEYS``). ``--identity`` limits it to
some identities (a rotation: add their public entries to the list). ``holdem service-keys public
--identity table`` reads a private key on standard input and prints its public entry.
"""

from __future__ import annotations

import argparse
import sys

from libs.platform.identity import IDENTITIES, PublicKeys, ServiceKey, ServiceKeyError


def private_variable(identity: str) -> str:
    """The name under which ``new`` prints ``identity``'s private key (docker-compose.yml's)."""
    return f"HOLDEM_SERVICE_KEY_{identity.upper()}"


def run_new(args: argparse.Namespace) -> int:
    identities = args.identity or list(IDENTITIES)
    try:
        keys = {identity: ServiceKey.generate(args.kid) for identity in identities}
    except ServiceKeyError as exc:
        print(f"holdem service-keys: {exc}", file=sys.stderr)
        return 2
    print("# private keys, secrets: give each to its own service only, as HOLDEM_SERVICE_KEY")
    for identity, key in keys.items():
        print(f"{private_variable(identity)}={key.format()}")
    public = PublicKeys.of({identity: [key] for identity, key in keys.items()}).format()
    if args.identity:
        # a rotation: the old entries stay until the new keys sign everywhere
        print("# append to HOLDEM_SERVICE_PUBLIC_KEYS of every service (after a comma), before")
        print("# any service signs with the new key (docs/operations.md):")
        print(public)
    else:
        print("# every service (not a secret)")
        print(f"HOLDEM_SERVICE_PUBLIC_KEYS={public}")
    return 0


def run_public(args: argparse.Namespace) -> int:
    text = sys.stdin.read().strip()
    text = text.split("=", 1)[1] if "=" in text.split(":", 1)[0] else text  # VAR=kid:base64
    try:
        print(ServiceKey.parse(text).public_entry(args.identity))
    except ServiceKeyError as exc:
        print(f"holdem service-keys: {exc}", file=sys.stderr)
        return 2
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "service-keys", help="make the services' Ed25519 key pairs (service tokens)"
    )
    commands = parser.add_subparsers(dest="service_keys", required=True)
    new = commands.add_parser(
        "new", help="a private key per identity and the public keys of all, as VAR=value lines"
    )
    new.add_argument("--kid", default="k1", help="the key id (1-32 of A-Z a-z 0-9 _ -)")
    new.add_argument(
        "--identity",
        action="append",
        choices=IDENTITIES,
        help="only this identity (repeatable; default: every one)",
    )
    new.set_defaults(func=run_new)
    public = commands.add_parser(
        "public", help="the public entry of a private key read on standard input"
    )
    public.add_argument("--identity", required=True, choices=IDENTITIES)
    public.set_defaults(func=run_public)
