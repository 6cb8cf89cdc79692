"""``holdem audit chips``: ask the lobby for the chip invariant now (wallets + reserved + chips
on tables and in pots + cash-outs on their way + rake = grants; docs/lobby.md, "The chip
audit") and print it, or ``--json``. Exit 0 when it holds, 1 when it does not, 2 when the lobby
cannot be asked."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import grpc
from google.protobuf.json_format import MessageToDict
from holdem.lobby.v1 import lobby_pb2, lobby_pb2_grpc

from libs.cli.arguments import number
from libs.devstack.identity import channel_as, cli_service_key, cli_tls
from libs.devstack.stackstate import stack_address

DEFAULT_LOBBY = "127.0.0.1:50052"


def run(args: argparse.Namespace) -> int:
    if args.lobby is None:
        args.lobby = stack_address("lobby") or DEFAULT_LOBBY
    try:
        with channel_as(args.lobby, key=cli_service_key(), tls=cli_tls()) as channel:
            audit = lobby_pb2_grpc.LobbyServiceStub(channel).AuditChips(
                lobby_pb2.AuditChipsRequest(), timeout=args.timeout
            )
    except grpc.RpcError as exc:
        print(
            f"holdem audit chips: the lobby at {args.lobby} did not answer: "
            f"{exc.code().name} {exc.details()}",
            file=sys.stderr,
        )
        return 2
    if args.json:
        body: dict[str, Any] = MessageToDict(
            audit, always_print_fields_with_no_presence=True, preserving_proto_field_name=True
        )
        print(json.dumps(body, indent=2))
    else:
        accounted = audit.wallets + audit.reserved + audit.on_tables + audit.in_flight + audit.rake
        print(f"grants     {audit.grants:>14}")
        print(f"wallets    {audit.wallets:>14}")
        print(f"reserved   {audit.reserved:>14}  ({audit.open_sagas} sagas open)")
        print(
            f"on tables  {audit.on_tables:>14}  ({len(audit.tables)} tables, "
            f"{audit.seated_players} players seated)"
        )
        print(f"in flight  {audit.in_flight:>14}")
        print(f"rake       {audit.rake:>14}")
        verdict = "holds" if audit.holds else f"DOES NOT HOLD ({accounted - audit.grants:+d})"
        print(f"invariant  {verdict}")
    return 0 if audit.holds else 1


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("audit", help="check invariants of a running stack")
    kinds = parser.add_subparsers(dest="audit", required=True)
    chips = kinds.add_parser(
        "chips", help="wallets + reserved + on tables + in flight + rake = grants, now"
    )
    chips.add_argument(
        "--lobby",
        help=f"the lobby's host:port (default: the local stack's, else {DEFAULT_LOBBY})",
    )
    chips.add_argument("--json", action="store_true", help="machine-readable output")
    chips.add_argument(
        "--timeout", type=number(0.1, 3600, "--timeout"), default=60.0, help="seconds to wait"
    )
    chips.set_defaults(func=run)
