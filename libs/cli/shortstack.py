"""Making the short-stack solver's data again: the class-vs-class equity table
(``python -m libs.cli.shortstack equities``, a few minutes) and the heads-up push-or-fold charts
solved from it (``python -m libs.cli.shortstack charts``, about a minute), the six-handed charts
(``python -m libs.cli.shortstack tables``, about ten minutes), the heads-up raise, fold or call
off charts (``python -m libs.cli.shortstack raises``, a few minutes) and the six-handed ones
(``python -m libs.cli.shortstack tableraises``, about ten minutes; every chart for the three
ante structures of ``charts.Antes``), written beside
libs/ai/shortstack's modules, which read them."""

from __future__ import annotations

import argparse
from importlib import resources

import numpy as np

from libs.ai.shortstack import charts, equities, raising, tableraise
from libs.cli.arguments import whole_number


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=["equities", "charts", "tables", "raises", "tableraises"])
    parser.add_argument(
        "--samples",
        type=whole_number(1, 10**10, "--samples"),
        default=equities.GENERATED_WITH["samples"],
    )
    parser.add_argument(
        "--seed", type=whole_number(0, 2**63 - 1, "--seed"), default=equities.GENERATED_WITH["seed"]
    )
    parser.add_argument(
        "--iterations",
        type=whole_number(1, 10**9, "--iterations"),
        default=charts.GENERATED_WITH["iterations"],
    )
    parser.add_argument(
        "--iterations-tables",
        type=whole_number(0, 10**9, "--iterations-tables"),
        default=0,
        help="0: the kept count",
    )
    args = parser.parse_args(argv)
    folder = resources.files("libs.ai.shortstack")
    if args.what == "equities":
        table = equities.estimate(args.samples, args.seed)
        np.save(
            str(folder.joinpath(equities.DATA)), np.rint(table * equities.SCALE).astype(np.uint16)
        )
    elif args.what == "raises":
        solved = raising.solve_raise_charts(raising.RAISE_GENERATED_WITH["iterations"])
        packed = np.rint(solved * 255).astype(np.uint8)
        np.save(str(folder.joinpath(raising.RAISE_DATA)), packed)
    elif args.what == "tableraises":
        iterations = tableraise.TABLE_RAISE_GENERATED_WITH["iterations"]
        packed = np.rint(tableraise.solve_table_raise_charts(iterations) * 255).astype(np.uint8)
        np.savez_compressed(str(folder.joinpath(tableraise.TABLE_RAISE_DATA)), charts=packed)
    elif args.what == "tables":
        iterations = args.iterations_tables or charts.TABLE_GENERATED_WITH["iterations"]
        packed = np.rint(charts.solve_tables(iterations) * 255).astype(np.uint8)
        np.savez_compressed(str(folder.joinpath(charts.TABLE_DATA)), charts=packed)
    else:
        solved = charts.solve_all(args.iterations)
        np.save(str(folder.joinpath(charts.DATA)), np.rint(solved * 255).astype(np.uint8))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
