"""``holdem tournament --entrants N --ai LEVELS --structure NAME --seed S [--json]``: a whole
tournament of AIs through the real services.

On the stack of ``holdem stack up`` (its state in $HOLDEM_STACK_DIR, default ./.stack), or
``--tournament`` / ``--lobby`` addresses, or else a stack of its own started for the run
(``LocalStack``, stopped at the end), it registers N bot players in the lobby (each a wallet
with the grant), creates a sit & go for N entrants (``--structure`` regular, turbo or hyper,
levels counted in ``--unit`` hands or minutes; ``--stack`` chips each; ``--seats`` a table),
registers them through the tournament service (the registration saga: each buy-in leaves the
player's wallet once), AI levels from ``LEVELS`` (comma-separated easy,normal,hard) seated in
turn, waits for the end, and prints (``--json``: one JSON object)::

    {entrants, tables_max, hands, levels, seconds, prize_pool, paid_total, places, chips_constant,
     moves, hand_for_hand_hands, tournament_id, buy_in, audit_holds}

``places``: every entrant's final place, prize (the tournament's) and paid (what reached their
wallet: balance after less balance after the buy-in, read from the lobby); ``paid_total`` the sum
of ``paid``; ``chips_constant``: every look at the running tournament found entrants x stack
chips in play, and so did the end; ``hand_for_hand_hands``: the hand-for-hand rounds (one hand at
every table each); ``audit_holds``: the lobby's chip audit at the end (nothing left in
tournaments). ``--seed`` names the run's tournament and players; the draw and the cards are the
services' own randomness. Exit 0 when the money and the chips add up, 1 when not, 2 when the
services cannot be reached or refused.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import uuid
from dataclasses import dataclass
from typing import Any

import grpc
from holdem.common.v1 import common_pb2
from holdem.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from holdem.tournament.v1 import tournament_pb2 as pb
from holdem.tournament.v1 import tournament_pb2_grpc

from libs.cli.arguments import number, whole_number
from libs.devstack.identity import aio_channel_as, cli_service_key, cli_tls
from libs.devstack.stackstate import stack_address

LEVELS = {
    "easy": common_pb2.BOT_DIFFICULTY_EASY,
    "normal": common_pb2.BOT_DIFFICULTY_NORMAL,
    "hard": common_pb2.BOT_DIFFICULTY_HARD,
}
STRUCTURES = ("regular", "turbo", "hyper")
UNITS = {"hands": pb.LEVEL_UNIT_HANDS, "minutes": pb.LEVEL_UNIT_MINUTES}
OVER = ("finished", "cancelled")
POLL_SECONDS = 0.5
RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


@dataclass(frozen=True)
class Run:
    entrants: int
    levels: tuple[str, ...]
    structure: str = "hyper"
    unit: str = "hands"
    seed: int = 1
    stack: int = 1000
    seats: int = 9
    buy_in: int = 100
    timeout: float = 3600.0


@dataclass(frozen=True)
class Addresses:
    tournament: str
    lobby: str
    key: str | None = None  # the tools' private key (None: this process's own)
    tls: Any = None


def _levels(text: str) -> tuple[str, ...]:
    levels = tuple(x.strip() for x in text.split(",") if x.strip())
    bad = [x for x in levels if x not in LEVELS]
    if not levels or bad:
        raise argparse.ArgumentTypeError(
            f"--ai takes levels comma-separated from {', '.join(LEVELS)}, not {text[:40]!r}"
        )
    return levels


async def _call(stub: Any, method: str, request: Any, deadline: float) -> Any:
    """A call, asked again while the service is not there yet (starting, failing over)."""
    while True:
        try:
            return await getattr(stub, method)(request, timeout=30)
        except grpc.aio.AioRpcError as exc:
            if exc.code() not in RETRYABLE or time.monotonic() > deadline:
                raise
        await asyncio.sleep(0.5)


def _config(run: Run) -> pb.TournamentConfig:
    return pb.TournamentConfig(
        name=f"{run.entrants} AIs, {run.structure}",
        kind=pb.TOURNAMENT_KIND_SIT_AND_GO,
        seats_per_table=run.seats,
        starting_stack=run.stack,
        buy_in=run.buy_in,
        min_entrants=run.entrants,
        max_entrants=run.entrants,
        structure=pb.BlindStructure(name=run.structure, unit=UNITS[run.unit]),
    )


async def play(run: Run, at: Addresses, progress: Any = None) -> dict[str, Any]:
    """The whole tournament; its report (the module's docstring)."""
    deadline = time.monotonic() + run.timeout
    tag = f"s{run.seed}x{uuid.uuid4().hex[:6]}"
    async with (
        aio_channel_as(at.tournament, key=at.key, tls=at.tls, peer="tournament") as tch,
        aio_channel_as(at.lobby, key=at.key, tls=at.tls, peer="lobby") as lch,
    ):
        tournaments = tournament_pb2_grpc.TournamentServiceStub(tch)
        lobby = lobby_pb2_grpc.LobbyServiceStub(lch)
        players: list[tuple[str, str]] = []  # (player id, level)
        for i in range(run.entrants):
            name = f"ai{tag}n{i}"
            request = lobby_pb2.RegisterPlayerRequest(
                username=name, password=f"pw-{name}-{uuid.uuid4().hex}", is_bot=True
            )
            made = await _call(lobby, "RegisterPlayer", request, deadline)
            players.append((made.player.player_id, run.levels[i % len(run.levels)]))
        started = time.monotonic()
        created = await _call(
            tournaments,
            "CreateTournament",
            pb.CreateTournamentRequest(
                tournament_id=f"t{tag}", config=_config(run), idempotency_key=f"create-{tag}"
            ),
            deadline,
        )
        tid = created.tournament.summary.tournament_id
        before: dict[str, int] = {}
        for i, (player_id, level) in enumerate(players):
            wallet = await _call(
                lobby, "GetWallet", lobby_pb2.GetWalletRequest(player_id=player_id), deadline
            )
            before[player_id] = wallet.wallet.balance - run.buy_in
            register = pb.RegisterRequest(
                tournament_id=tid,
                player_id=player_id,
                idempotency_key=f"reg-{tag}-{i}",
                is_bot=True,
                bot_level=LEVELS[level],
            )
            await _call(tournaments, "Register", register, deadline)
        expected_chips = run.entrants * run.stack
        chips_constant = True
        while True:
            got = await _call(
                tournaments, "GetTournament", pb.GetTournamentRequest(tournament_id=tid), deadline
            )
            t = got.tournament
            s = t.summary
            if s.status == "running" and s.chips_in_play != expected_chips:
                chips_constant = False
            if progress is not None:
                progress(s)
            if s.status in OVER and s.payments_owed == 0:
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"tournament {tid} not over after {run.timeout:.0f} s")
            await asyncio.sleep(POLL_SECONDS)
        seconds = time.monotonic() - started
        level_of = dict(players)
        places = []
        for row in t.standings:
            wallet = await _call(
                lobby, "GetWallet", lobby_pb2.GetWalletRequest(player_id=row.player_id), deadline
            )
            places.append(
                {
                    "player_id": row.player_id,
                    "level": level_of.get(row.player_id, ""),
                    "place": row.place,
                    "tied": row.tied,
                    "prize": row.prize,
                    "paid": wallet.wallet.balance - before[row.player_id],
                }
            )
        places.sort(key=lambda p: (p["place"], p["player_id"]))
        audit = await _call(lobby, "AuditChips", lobby_pb2.AuditChipsRequest(), deadline)
    if sum(row.stack for row in t.standings) != expected_chips:
        chips_constant = False
    return {
        "tournament_id": tid,
        "status": s.status,
        "entrants": s.entrants,
        "tables_max": s.most_tables,
        "hands": s.hands,
        "levels": s.level,
        "seconds": round(seconds, 1),
        "buy_in": run.buy_in,
        "prize_pool": s.prize_pool,
        "paid_total": sum(p["paid"] for p in places),
        "places": places,
        "chips_constant": chips_constant,
        "moves": s.moves,
        "hand_for_hand_hands": s.hand_for_hand_rounds,
        "audit_holds": audit.holds and audit.in_tournaments == 0,
    }


def adds_up(report: dict[str, Any]) -> bool:
    """The money and the chips: prizes = pool paid once each, one place each, chips constant."""
    places = sorted(p["place"] for p in report["places"])
    return bool(
        report["status"] == "finished"
        and report["paid_total"] == report["prize_pool"]
        and all(p["paid"] == p["prize"] for p in report["places"])
        and len(places) == report["entrants"]
        and places[0] == 1
        and all(place >= 1 for place in places)
        and report["chips_constant"]
        and report["audit_holds"]
    )


def _addresses(args: argparse.Namespace) -> Addresses | None:
    tournament = args.tournament or stack_address("tournament")
    lobby = args.lobby or stack_address("lobby")
    if tournament is None or lobby is None:
        return None
    return Addresses(tournament, lobby, key=cli_service_key(), tls=cli_tls())


def run(args: argparse.Namespace) -> int:
    spec = Run(
        entrants=args.entrants,
        levels=args.ai,
        structure=args.structure,
        unit=args.unit,
        seed=args.seed,
        stack=args.stack,
        seats=args.seats,
        timeout=args.timeout,
    )

    def progress(s: pb.TournamentSummary) -> None:
        if not args.quiet:
            print(
                f"\r{s.status}: level {s.level}, {s.players_left}/{s.entrants} left, "
                f"{s.tables} tables, {s.hands} hands   ",
                end="",
                file=sys.stderr,
            )

    at = _addresses(args)
    stack = None
    try:
        if at is None:
            from libs.devstack import LocalStack

            print("no stack running: starting one for this run", file=sys.stderr)
            stack = LocalStack(log_level="warning").start()
            at = Addresses(stack.address("tournament"), stack.address("lobby"))
        report = asyncio.run(play(spec, at, progress))
    except grpc.aio.AioRpcError as exc:
        print(f"\nholdem tournament: {exc.code().name} {exc.details()}", file=sys.stderr)
        return 2
    finally:
        if stack is not None:
            stack.stop()
    if not args.quiet:
        print(file=sys.stderr)
    if args.json:
        print(json.dumps(report))
    else:
        print(
            f"{report['entrants']} entrants, {report['hands']} hands, level {report['levels']}, "
            f"{report['seconds']} s; prize pool {report['prize_pool']}, paid "
            f"{report['paid_total']}; chips constant: {report['chips_constant']}"
        )
        for p in report["places"][:10]:
            print(f"  {p['place']:>4}  {p['player_id']}  {p['level']:<6}  {p['prize']}")
    return 0 if adds_up(report) else 1


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "tournament", help="run a whole tournament of AIs through the services"
    )
    parser.add_argument(
        "--entrants",
        type=whole_number(2, 10_000, "--entrants"),
        default=12,
        help="AIs in the field, 2 to 10,000 (default 12)",
    )
    parser.add_argument(
        "--ai",
        type=_levels,
        default=("easy", "normal", "hard"),
        help="the levels the entrants cycle through (default easy,normal,hard)",
    )
    parser.add_argument(
        "--structure",
        choices=STRUCTURES,
        default="hyper",
        help="how fast the blinds rise (default hyper)",
    )
    parser.add_argument(
        "--unit",
        choices=tuple(UNITS),
        default="hands",
        help="a level lasts so many hands or minutes (default hands)",
    )
    parser.add_argument(
        "--stack",
        type=whole_number(20, 10**9, "--stack"),
        default=1000,
        help="starting chips (default 1000)",
    )
    parser.add_argument(
        "--seats",
        type=whole_number(2, 10, "--seats"),
        default=9,
        help="seats per table, 2 to 10 (default 9)",
    )
    parser.add_argument(
        "--seed",
        type=whole_number(0, 2**63 - 1, "--seed"),
        default=1,
        help="names the run's tournament and players (default 1); the cards are the services' own",
    )
    parser.add_argument(
        "--timeout",
        type=number(1, 7 * 86_400, "--timeout"),
        default=3600.0,
        help="seconds to wait at most",
    )
    parser.add_argument("--tournament", help="the tournament service's host:port")
    parser.add_argument("--lobby", help="the lobby's host:port")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.set_defaults(func=run)
