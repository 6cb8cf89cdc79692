"""``holdem tournaments``: tournaments for players, through the gateway (docs/tournaments.md,
"Players through the gateway"). ``list`` (``--status``), ``show ID`` (the clock, the prizes, the
standings), ``register ID``, ``unregister ID``, ``rebuy ID``, ``add-on ID`` and ``watch ID`` (a
line per change of the clock, the field or the caller's seat, and where a move took them, until
the tournament ends). ``--json`` prints the answers as JSON. Log in with ``--user`` (an account
keeps its registrations between runs) or ``--guest NAME`` (a new guest each run)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

from libs.cli.play import gateway_address, gateway_tls
from libs.client.client import GatewayClient
from libs.client.errors import GatewayError
from libs.client.tournament_text import (
    show_lines,
    summary_line,
    update_line,
)

ACTIONS = ("list", "show", "register", "unregister", "rebuy", "add-on", "watch")


def _json(message: Message) -> str:
    return json.dumps(MessageToDict(message, preserving_proto_field_name=True), sort_keys=True)


async def _act(client: GatewayClient, args: argparse.Namespace) -> None:
    tid = args.id or ""
    if args.action == "list":
        found = await client.tournaments(args.status or ())
        for summary in found:
            print(_json(summary) if args.json else summary_line(summary))
        if not found and not args.json:
            print("no tournaments")
    elif args.action == "show":
        tournament = await client.tournament(tid)
        print(_json(tournament) if args.json else "\n".join(show_lines(tournament)))
    elif args.action == "register":
        summary = await client.register_tournament(tid)
        print(_json(summary) if args.json else f"registered: {summary_line(summary)}")
    elif args.action == "unregister":
        answer = await client.unregister_tournament(tid)
        print(_json(answer) if args.json else f"unregistered: {answer.refund} chips back")
    elif args.action in ("rebuy", "add-on"):
        buy = client.rebuy if args.action == "rebuy" else client.add_on
        bought = await buy(tid)
        said = f"{bought.chips} chips for {bought.cost}: stack {bought.stack}"
        print(_json(bought) if args.json else said)
    else:
        async for update in client.watch_tournament(tid):
            print(_json(update) if args.json else update_line(update), flush=True)


async def _run(args: argparse.Namespace) -> int:
    if args.action != "list" and not args.id:
        print(f"holdem tournaments {args.action} needs a tournament id", file=sys.stderr)
        return 2
    async with GatewayClient(gateway_address(args.gateway), tls=gateway_tls(args)) as client:
        try:
            if args.user:
                await client.login(args.user, args.password or "")
            else:
                await client.guest_login(args.guest or "player")
            await _act(client, args)
        except GatewayError as error:
            print(error, file=sys.stderr)
            return 1
    return 0


def _cmd(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_run(args))
    except KeyboardInterrupt:
        return 130


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = subparsers.add_parser(
        "tournaments", help="tournaments through the gateway: list, show, register, watch"
    )
    cmd.add_argument("action", choices=ACTIONS, help="what to do")
    cmd.add_argument("id", nargs="?", help="the tournament (all but list)")
    cmd.add_argument("--status", action="append", help="list: only this status (repeatable)")
    cmd.add_argument("--json", action="store_true", help="print the answers as JSON")
    cmd.add_argument("--gateway", help="gateway host:port (default: the local stack's)")
    cmd.add_argument("--tls", action="store_true", help="TLS to the gateway (system CAs)")
    cmd.add_argument("--tls-ca", metavar="FILE", help="TLS to the gateway, trusting this CA")
    cmd.add_argument("--user", help="log in with this account")
    cmd.add_argument("--password", help="the account's password")
    cmd.add_argument("--guest", help="as a new guest with this name (default 'player')")
    cmd.set_defaults(func=_cmd)
