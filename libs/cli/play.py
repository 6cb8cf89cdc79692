"""``holdem play`` and ``holdem watch``: the terminal client (libs/tui) against a gateway.

The gateway address is ``--gateway``, else the local stack's (``holdem stack up`` / ``make up``
state file), else localhost:50051. Every choice the screens ask for can be given on the command
line instead (``--guest NAME``, ``--create --bots hard,normal,easy``, ``--table ID``), so scripts
and ``make run`` open straight onto a table.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from libs.cli.arguments import whole_number
from libs.devstack.stackstate import stack_address

DEFAULT_GATEWAY = "localhost:50051"


def gateway_address(explicit: str | None, state_dir: Path | None = None) -> str:
    return explicit or stack_address("gateway", state_dir) or DEFAULT_GATEWAY


def gateway_tls(args: argparse.Namespace) -> bool | bytes:
    """TLS to the gateway: ``--tls-ca FILE`` (trust that CA only), ``--tls`` (the system's CAs),
    else the local stack's own CA when it runs with ``--tls``, else plaintext."""
    if args.tls_ca is not None:
        return Path(args.tls_ca).read_bytes()
    if args.tls:
        return True
    from libs.devstack.identity import cli_gateway_ca

    return (cli_gateway_ca() or False) if not args.gateway else False


def _blinds(text: str) -> tuple[int, int]:
    from libs.tui.newtable import parse_blinds

    try:
        return parse_blinds(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _cmd_play(args: argparse.Namespace) -> int:
    from libs.tui.app import PlayApp
    from libs.tui.newtable import STRUCTURE_ARGS, VARIANT_ARGS, NewTable, parse_levels

    create = None
    if args.create:
        try:
            bots = parse_levels(args.bots)
        except ValueError as error:
            print(error, file=sys.stderr)
            return 2
        small, big = args.blinds
        create = NewTable(
            variant=VARIANT_ARGS[args.variant],
            structure=STRUCTURE_ARGS[args.structure],
            small_blind=small,
            big_blind=big,
            seats=args.seats,
            bots=bots,
            hand_limit=args.hands,
            run_it_max=args.run_it,
            rabbit_hunt=args.rabbit_hunt,
            straddle=args.straddle,
            bomb_pot_ante=args.bomb_pot or 0,
            bomb_pot_every=args.bomb_every,
            bomb_pot_vote=args.bomb_vote,
        )
    app = PlayApp(
        gateway_address(args.gateway),
        user=args.user or "",
        password=args.password or "",
        guest=args.guest or "",
        table_id=args.table or "",
        create=create,
        buy_in=args.buy_in,
        tls=gateway_tls(args),
    )
    app.run()
    return 0


def _cmd_watch(args: argparse.Namespace) -> int:
    from libs.tui.app import PlayApp

    app = PlayApp(
        gateway_address(args.gateway),
        user=args.user or "",
        password=args.password or "",
        guest=args.guest or ("spectator" if not args.user else ""),
        table_id=args.table,
        spectate=True,
        tls=gateway_tls(args),
    )
    app.run()
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    def common(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--gateway", help="gateway host:port (default: the local stack's)")
        parser.add_argument(
            "--tls", action="store_true", help="TLS to the gateway, trusting the system's CAs"
        )
        parser.add_argument(
            "--tls-ca", metavar="FILE", help="TLS to the gateway, trusting this CA (PEM) only"
        )
        parser.add_argument("--user", help="log in with this account (asks otherwise)")
        parser.add_argument("--password", help="the account's password")
        parser.add_argument("--guest", help="play as a guest with this name")

    play = subparsers.add_parser(
        "play", help="play poker in the terminal through the gateway (textual)"
    )
    common(play)
    play.add_argument("--table", help="sit down at this table (skips the lobby)")
    play.add_argument("--create", action="store_true", help="create a table and sit down")
    play.add_argument(
        "--variant", choices=sorted(("holdem", "omaha", "omaha-hi-lo")), default="holdem"
    )
    play.add_argument("--structure", choices=("nl", "pl", "fl"), default="nl")
    play.add_argument("--blinds", type=_blinds, default=(1, 2), help="SMALL/BIG (default 1/2)")
    play.add_argument("--seats", type=int, default=6, choices=range(2, 11), metavar="2..10")
    play.add_argument("--bots", default="", help="AI opponents by level, e.g. hard,normal,easy")
    play.add_argument(
        "--hands",
        type=whole_number(0, 10**6, "--hands"),
        default=0,
        help="close the table after N hands",
    )
    play.add_argument(
        "--run-it",
        type=int,
        default=1,
        choices=(1, 2, 3),
        help="offer running the board up to N times when all in (1: not offered)",
    )
    play.add_argument("--rabbit-hunt", action="store_true", help="offer the rabbit hunt")
    play.add_argument(
        "--straddle", action="store_true", help="allow the straddle (a seat setting, [t])"
    )
    play.add_argument(
        "--bomb-pot",
        type=whole_number(0, 10**12, "--bomb-pot"),
        metavar="ANTE",
        help="bomb pots: every player antes ANTE chips",
    )
    play.add_argument(
        "--bomb-every",
        type=whole_number(0, 10_000, "--bomb-every"),
        default=0,
        metavar="N",
        help="a bomb pot every N hands",
    )
    play.add_argument(
        "--bomb-vote", action="store_true", help="bomb pots when every player agrees ([v])"
    )
    play.add_argument(
        "--buy-in",
        type=whole_number(1, 10**12, "--buy-in"),
        help="chips to sit down with (default 100 big blinds)",
    )
    play.set_defaults(func=_cmd_play)

    watch = subparsers.add_parser("watch", help="watch a table in the terminal (spectator)")
    common(watch)
    watch.add_argument("table", help="the table id")
    watch.set_defaults(func=_cmd_watch)
