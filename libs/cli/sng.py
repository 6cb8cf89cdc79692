"""``python -m libs.cli.sng``: sit-and-go tournaments of A against B (``libs.ai.sng``), A's
average prize per tournament with its 95 % interval against its fair share.

    python -m libs.cli.sng --a hard --b normal --count 200 [--players 6] [--payouts 50,30,20]
                           [--no-prizes] [--seed S] [--json]

``--no-prizes`` hides the payouts from every player (they play chips): the control arm for
measuring what deciding by prize equity (ICM) is worth.
"""

from __future__ import annotations

import argparse
import json
import sys

from libs.ai.policy import warm_up
from libs.ai.sng import SngConfig, SngSeries, run_sngs
from libs.cli.arena import SPEC_HELP, parse_spec
from libs.cli.arguments import whole_number


def _payouts(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(p) for p in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"payouts are whole numbers, comma separated: {text!r}"
        ) from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", default="hard", help=SPEC_HELP)
    parser.add_argument("--b", default="normal", help=SPEC_HELP)
    parser.add_argument("--count", type=whole_number(1, 100_000, "--count"), default=100)
    parser.add_argument("--players", type=whole_number(2, 6, "--players"), default=6)
    parser.add_argument("--payouts", type=_payouts, default=(50, 30, 20))
    parser.add_argument("--seed", type=whole_number(0, 2**63 - 1, "--seed"), default=1)
    parser.add_argument("--budget-ms", type=whole_number(1, 60_000, "--budget-ms"), default=10_000)
    parser.add_argument("--no-prizes", action="store_true", help="players see no payouts")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        config = SngConfig(
            players=args.players,
            payouts=args.payouts,
            seed=args.seed,
            show_prizes=not args.no_prizes,
        )
        a, b = parse_spec(args.a, args.budget_ms), parse_spec(args.b, args.budget_ms)
    except ValueError as error:
        parser.error(str(error))
    warm_up()

    def progress(series: SngSeries) -> None:
        if len(series.results) % 20 == 0:
            s = series.summary()
            print(f"{s.n} tournaments: mean prize {s.mean:.2f}", file=sys.stderr)

    series = run_sngs(a, b, args.count, config, progress)
    out = series.to_json()
    if args.json:
        print(json.dumps(out))
    else:
        ci = out["ci95"]
        print(
            f"{out['a']} vs {out['b']}: {out['tournaments']} tournaments, mean prize "
            f"{out['mean_prize']:.2f} (share {out['share']:.2f}), 95% interval {ci}, "
            f"places {out['places']}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
