"""``holdem chat``: the lobby's chat or a table's in the terminal, through the gateway
(docs/chat.md). ``--say TEXT`` posts one message and prints it; ``--mute ID`` / ``--unmute ID``
change the caller's mutes; with none of them it prints the room's kept messages and then each
new one, and posts every line typed (end with Ctrl-D)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys

from holdem.gateway.v1 import gateway_pb2

from libs.cli.play import gateway_address, gateway_tls
from libs.client.client import GatewayClient
from libs.client.errors import GatewayError


def line(message: gateway_pb2.ChatMessage) -> str:
    who = message.sender_name or message.sender_id
    return (
        f"[{message.sequence}] {who}{' (spectator)' if message.spectator else ''}: {message.text}"
    )


async def _log_in(client: GatewayClient, args: argparse.Namespace) -> None:
    if args.user:
        await client.login(args.user, args.password or "")
    else:
        await client.guest_login(args.guest or "chatter")


async def _follow(client: GatewayClient, table_id: str) -> None:
    async def printer() -> None:
        async for message in client.watch_chat(table_id=table_id):
            print(line(message), flush=True)

    task = asyncio.create_task(printer())
    loop = asyncio.get_running_loop()
    try:
        while True:
            typed = await loop.run_in_executor(None, sys.stdin.readline)
            if not typed:
                break
            if typed.strip():
                try:
                    await client.send_chat(typed.strip(), table_id=table_id)
                except GatewayError as error:
                    print(f"! {error}", file=sys.stderr, flush=True)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, GatewayError):
            await task


async def _run(args: argparse.Namespace) -> int:
    async with GatewayClient(gateway_address(args.gateway), tls=gateway_tls(args)) as client:
        try:
            await _log_in(client, args)
            table_id = args.table or ""
            if args.say is not None:
                print(line(await client.send_chat(args.say, table_id=table_id)))
            elif args.mute or args.unmute:
                muted = await client.mute_chat_player(args.mute or args.unmute, bool(args.mute))
                print("muted: " + (", ".join(muted) or "nobody"))
            else:
                await _follow(client, table_id)
        except GatewayError as error:
            print(error, file=sys.stderr)
            return 1
    return 0


def _cmd_chat(args: argparse.Namespace) -> int:
    return asyncio.run(_run(args))


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    chat = subparsers.add_parser("chat", help="the lobby's or a table's chat in the terminal")
    chat.add_argument("--gateway", help="gateway host:port (default: the local stack's)")
    chat.add_argument("--tls", action="store_true", help="TLS to the gateway (system CAs)")
    chat.add_argument("--tls-ca", metavar="FILE", help="TLS to the gateway, trusting this CA")
    chat.add_argument("--user", help="log in with this account")
    chat.add_argument("--password", help="the account's password")
    chat.add_argument("--guest", help="chat as a guest with this name (default 'chatter')")
    chat.add_argument("--table", help="this table's chat (default: the lobby's)")
    what = chat.add_mutually_exclusive_group()
    what.add_argument("--say", metavar="TEXT", help="post TEXT and exit")
    what.add_argument("--mute", metavar="PLAYER_ID", help="stop seeing this player's messages")
    what.add_argument("--unmute", metavar="PLAYER_ID", help="see this player's messages again")
    chat.set_defaults(func=_cmd_chat)
