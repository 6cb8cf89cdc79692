"""``holdem arena``: measure two bots against each other through the rules engine.

    holdem arena --a hard --b normal --hands 10000 [--variant holdem|omaha|omaha_hi_lo]
                 [--structure no_limit|pot_limit|fixed_limit] [--seats 2..6] [--seed S] [--json]
    holdem arena --ladder [--scale X] [--json]

A takes one seat and B every other one; duplicate seating replays each deck with A in every
seat (``libs.ai.arena``). SPEC is easy, normal, hard, call (calling station), random, fold, or
``grpc://HOST:PORT[?difficulty=easy|normal|hard]``: any process serving holdem.ai.v1.AiService,
sent the request the table sends for its bot seats (``libs.aiproto``). ``--b lbr`` plays Local
Best Response (``libs.ai.lbr``) against the in-process level of ``--a``, heads-up no-limit
hold'em, each deck twice with the seats swapped. Exit status: 0, or 2 for
bad arguments or an outside bot that cannot be reached; ``--ladder`` exits 1 unless every rung's
interval is above zero.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from libs.ai.arena import (
    MAX_SEATS,
    MIN_SEATS,
    LevelPlayer,
    MatchConfig,
    MatchResult,
    Player,
    Progress,
    Scoring,
    run_match,
)
from libs.ai.decision import Decision
from libs.ai.ladder import LADDER, LADDER_BUDGET, Rung, holds, markdown, run_ladder
from libs.ai.lbr import LbrResult, run_lbr
from libs.ai.policy import DEFAULT_BUDGET, Level, warm_up
from libs.ai.view import SeatView
from libs.cli.arguments import number, whole_number
from libs.poker.config import BettingStructure, Variant

MAX_HANDS = 100_000_000
PROGRESS_EVERY = 5.0  # seconds
SPEC_HELP = (
    "easy, normal, hard, call, random, fold, pushfold, grpc://HOST:PORT[?difficulty=LEVEL], "
    "or lbr (Local Best Response against the other side's level)"
)


class RemoteFailure(RuntimeError):
    """An outside bot failed in a way the clock rule does not cover (unreachable, refused)."""


@dataclass
class RemotePlayer:
    """An outside process implementing holdem.ai.v1.AiService."""

    spec: str
    address: str
    difficulty: Level
    budget_ms: int

    def __post_init__(self) -> None:
        import grpc
        from holdem.ai.v1 import ai_pb2_grpc

        self._grpc = grpc
        from libs.devstack.identity import channel_as, cli_service_key, cli_tls

        self._channel = channel_as(self.address, key=cli_service_key(), tls=cli_tls())
        try:
            grpc.channel_ready_future(self._channel).result(timeout=5)
        except grpc.FutureTimeoutError:
            raise RemoteFailure(f"cannot reach {self.spec} within 5 s") from None
        self._stub = ai_pb2_grpc.AiServiceStub(self._channel)

    @property
    def name(self) -> str:
        return self.spec

    def act(self, view: SeatView, seed: int) -> Decision | None:
        from libs.aiproto.requests import TableContext, decide_request, decision_from_response

        request = decide_request(
            view, self.difficulty, seed, self.budget_ms, TableContext.numbered(view.players)
        )
        # The table gives a bot its budget plus a little for the way there and back.
        timeout = self.budget_ms / 1000 + 0.25
        try:
            response = self._stub.Decide(request, timeout=timeout)
        except self._grpc.RpcError as exc:
            code = exc.code()
            if code == self._grpc.StatusCode.DEADLINE_EXCEEDED:
                return None
            raise RemoteFailure(f"{self.spec} answered {code.name}: {exc.details()}") from None
        return decision_from_response(response, view)


def parse_spec(spec: str, budget_ms: int) -> Player:
    """A player from its SPEC (raises ValueError with a readable message)."""
    if spec.startswith("grpc://"):
        parts = urlsplit(spec)
        if not parts.hostname or parts.port is None:
            raise ValueError(f"{spec!r}: expected grpc://HOST:PORT")
        query = parse_qs(parts.query)
        wanted = query.get("difficulty", ["hard"])[-1].lower()
        if wanted not in ("easy", "normal", "hard"):
            raise ValueError(f"{spec!r}: difficulty must be easy, normal or hard")
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        return RemotePlayer(spec, f"{host}:{parts.port}", Level(wanted), budget_ms)
    try:
        level = Level(spec.lower())
    except ValueError:
        raise ValueError(f"unknown player {spec!r}: expected {SPEC_HELP}") from None
    return LevelPlayer(level, budget_ms / 1000)


def _fmt_ci(result: MatchResult) -> str:
    ci = result.summary().ci95
    return f"[{ci[0]:+,.0f}, {ci[1]:+,.0f}]" if ci else "n/a (fewer than 2 duplicate groups)"


def _progress(label: str, quiet: bool) -> Progress | None:
    if quiet:
        return None
    last = [time.perf_counter()]

    def report(result: MatchResult, groups: int) -> None:
        now = time.perf_counter()
        done = len(result.groups)
        if now - last[0] < PROGRESS_EVERY and done != groups:
            return
        if done == groups and result.seconds < PROGRESS_EVERY:
            return
        last[0] = now
        s = result.summary()
        print(
            f"[arena] {label}: {result.hands:,}/{groups * result.config.seats:,} hands, "
            f"A {s.mean:+,.0f} mbb/hand {_fmt_ci(result)}, {result.seconds:,.0f} s",
            file=sys.stderr,
            flush=True,
        )

    return report


def _text(result: MatchResult) -> str:
    c = result.config
    s = result.summary()
    ev = "all-in EV" if c.scoring is Scoring.ALLIN_EV else "chips won"
    answers = []
    for side, name in (("a", result.a), ("b", result.b)):
        t = result.tallies[side]
        if t.illegal or t.no_answer:
            answers.append(f"{name}: {t.illegal} illegal, {t.no_answer} without answer")
    lines = [
        f"{result.a} (A) vs {result.b} (B): {c.variant.value} {c.structure.value}, "
        f"{c.seats} seats (A in one, B in the others), {c.stack_bb:g} bb stacks"
        f"{_antes(c)}, seed {c.seed}",
        f"{result.hands:,} hands in {s.n:,} duplicate groups of {c.seats}; scoring: {ev} "
        f"({result.allin_ev_hands:,} hands settled by all-in EV)",
        f"A: {s.mean:+,.1f} mbb/hand, 95% CI {_fmt_ci(result)}, sd {s.sd:,.0f} mbb per group",
    ]
    if answers:
        lines.append("clock rule applied: " + "; ".join(answers))
    return "\n".join(lines)


def _antes(config: MatchConfig) -> str:
    if config.big_blind_ante_bb:
        return f", big blind ante {config.big_blind_ante_bb:g} bb"
    return f", antes {config.ante_bb:g} bb" if config.ante_bb else ""


def _scale(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--scale must be a number, not {text!r}") from None
    if not 0 < value <= 100:
        raise argparse.ArgumentTypeError(f"--scale must be above 0 and at most 100, got {text}")
    return value


def run(args: argparse.Namespace) -> int:
    try:
        base = MatchConfig(
            variant=Variant(args.variant),
            structure=BettingStructure(args.structure),
            seats=args.seats,
            stack_bb=args.stack_bb,
            seed=args.seed,
            scoring=Scoring(args.scoring),
            ante_bb=args.ante,
            big_blind_ante_bb=args.bb_ante,
        )
    except ValueError as exc:
        print(f"holdem arena: {exc}", file=sys.stderr)
        return 2
    if args.ladder:
        return _ladder(args, base)
    if args.a is None or args.b is None or args.hands is None:
        print("holdem arena: --a, --b and --hands are required (or --ladder)", file=sys.stderr)
        return 2
    budget_ms = round(DEFAULT_BUDGET * 1000) if args.budget_ms is None else args.budget_ms
    if "lbr" in (args.a, args.b):
        return _lbr(args, base, budget_ms)
    try:
        a = parse_spec(args.a, budget_ms)
        b = parse_spec(args.b, budget_ms)
    except (ValueError, RemoteFailure) as exc:
        print(f"holdem arena: {exc}", file=sys.stderr)
        return 2
    warm_up()
    if args.hands % args.seats and not args.quiet:
        rounded = -(-args.hands // args.seats) * args.seats
        print(
            f"[arena] --hands {args.hands:,} rounded up to {rounded:,}: whole duplicate groups "
            f"of {args.seats} hands (one per seat for A)",
            file=sys.stderr,
        )
    try:
        result = run_match(a, b, args.hands, base, _progress(f"{a.name} vs {b.name}", args.quiet))
    except RemoteFailure as exc:
        print(f"holdem arena: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(_text(result))
    return 0


def _lbr(args: argparse.Namespace, base: MatchConfig, budget_ms: int) -> int:
    """``--b lbr`` (or ``--a lbr``): Local Best Response against an in-process level."""
    other = args.a if args.b == "lbr" else args.b
    if other not in {level.value for level in Level}:
        print(f"holdem arena: LBR plays an in-process level, not {other!r}", file=sys.stderr)
        return 2
    level = Level(other)
    warm_up()
    last = [time.perf_counter()]

    def progress(result: LbrResult) -> None:
        if args.quiet or time.perf_counter() - last[0] < PROGRESS_EVERY:
            return
        last[0] = time.perf_counter()
        s = result.summary()
        ci = f"[{s.ci95[0]:+,.0f}, {s.ci95[1]:+,.0f}]" if s.ci95 else "n/a"
        print(f"[arena] lbr vs {other}: {2 * s.n} hands, LBR {s.mean:+,.0f} {ci}", file=sys.stderr)

    try:
        result = run_lbr(level, args.hands, base, budget_ms / 1000, progress, args.lbr_draws)
    except ValueError as exc:
        print(f"holdem arena: {exc}", file=sys.stderr)
        return 2
    out = result.to_json()
    if args.json:
        print(json.dumps(out))
    else:
        ci = out["ci95"]
        print(
            f"LBR vs {other}: {out['hands']:,} hands ({out['pairs']} duplicate pairs), LBR "
            f"{result.summary().mean:+,.1f} mbb/hand, 95% CI {ci}"
        )
    return 0


def _ladder(args: argparse.Namespace, base: MatchConfig) -> int:
    warm_up()

    def progress(rung: Rung) -> Progress | None:
        return _progress(f"{rung.setting} {rung.a.value} vs {rung.b.value}", args.quiet)

    budget = LADDER_BUDGET if args.budget_ms is None else args.budget_ms / 1000
    results = run_ladder(LADDER, args.seed, args.scale, budget, progress, base=base)
    if args.json:
        print(json.dumps([{"setting": r.setting, **m.to_json()} for r, m in results]))
    else:
        print(markdown(results))
    failed = [f"{r.setting} {r.a.value} > {r.b.value}" for r, m in results if not holds(m)]
    if failed:
        print("interval not above zero: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "arena",
        help="play two bots against each other (duplicate seating) and measure A in mbb/hand",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--a", metavar="SPEC", help=f"player A: {SPEC_HELP}")
    parser.add_argument("--b", metavar="SPEC", help="player B (every other seat), as --a")
    parser.add_argument(
        "--hands",
        type=whole_number(1, MAX_HANDS, "--hands"),
        help="hands to play (rounded up to whole duplicate groups of --seats hands)",
    )
    parser.add_argument("--variant", choices=[v.value for v in Variant], default="holdem")
    parser.add_argument(
        "--structure", choices=[s.value for s in BettingStructure], default="no_limit"
    )
    parser.add_argument(
        "--seats",
        type=whole_number(MIN_SEATS, MAX_SEATS, "--seats"),
        default=2,
        help=f"{MIN_SEATS} to {MAX_SEATS} (default 2)",
    )
    parser.add_argument(
        "--seed", type=whole_number(0, 2**63 - 1, "--seed"), default=1, help="decks and bots"
    )
    parser.add_argument(
        "--stack-bb",
        type=number(1, 100_000, "--stack-bb"),
        default=100.0,
        help="stack of every seat at the start of each hand, in big blinds (default 100)",
    )
    parser.add_argument(
        "--ante",
        type=number(0, 100_000, "--ante"),
        default=0.0,
        help="every player's ante, in big blinds (default 0; e.g. 0.1)",
    )
    parser.add_argument(
        "--bb-ante",
        type=number(0, 100_000, "--bb-ante"),
        default=0.0,
        help="a big blind ante: the big blind antes this for the table, dead (default 0; e.g. 1)",
    )
    parser.add_argument(
        "--scoring",
        choices=[s.value for s in Scoring],
        default=Scoring.ALLIN_EV.value,
        help="allin_ev (default): all-in before the river is scored by equity; chips: as dealt",
    )
    parser.add_argument(
        "--budget-ms",
        type=whole_number(1, 10_000, "--budget-ms"),
        default=None,
        help=f"time budget per decision (default {round(DEFAULT_BUDGET * 1000)}; "
        f"--ladder: {round(LADDER_BUDGET * 1000):,}, so the sample caps bind, not the clock)",
    )
    parser.add_argument(
        "--lbr-draws",
        type=whole_number(1, 10_000, "--lbr-draws"),
        default=1,
        help="LBR: draws of the level's policy per decision, averaged (default 1)",
    )
    parser.add_argument("--ladder", action="store_true", help="play the whole ladder instead")
    parser.add_argument(
        "--scale", type=_scale, default=1.0, help="--ladder: multiply every rung's hands"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.set_defaults(func=run)
