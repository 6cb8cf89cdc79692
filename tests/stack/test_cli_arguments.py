"""Every number a ``holdem`` command takes is checked where argparse reads it: out of its range,
NaN or not a number, the command stops with its usage error (exit 2, the argument named and the
range said) before it starts anything (no stack, no servers, no services)."""

from __future__ import annotations

import pytest

from libs.cli.main import main
from libs.cli.shortstack import main as shortstack_main

REFUSED = [
    (["chaos", "--hands", "-1"], "--hands must be 1 to 100,000, got -1"),
    (["chaos", "--players", "100"], "--players must be 2 to 6, got 100"),
    (["chaos", "--kill-every", "-5"], "--kill-every must be 0 to"),
    (["chaos", "--seed", "-1"], "--seed must be 0 to"),
    (["chaos", "--stall-timeout", "0"], "--stall-timeout must be 1 to"),
    (["chaos", "--timeout", "nan"], "--timeout must be 1 to 604,800, got nan"),
    (["play", "--hands", "-5"], "--hands must be 0 to"),
    (["play", "--bomb-pot", "-10"], "--bomb-pot must be 0 to"),
    (["play", "--bomb-every", "-2"], "--bomb-every must be 0 to"),
    (["play", "--buy-in", "-100"], "--buy-in must be 1 to"),
    (["play", "--buy-in", "lots"], "--buy-in must be a whole number, not 'lots'"),
    (["stack", "up", "--timeout", "-1"], "--timeout must be 1 to 3,600, got -1"),
    (["stack", "up", "--demo-hands", "-3"], "--demo-hands must be 0 to"),
    (["stack", "status", "--timeout", "nan"], "--timeout must be 0.1 to 60, got nan"),
    (["stack", "down", "--timeout", "inf"], "--timeout must be 0 to 3,600, got inf"),
    (["tls-certs", "--days", "-1", "/nonexistent"], "--days must be 1 to 36,500, got -1"),
    (["tournament", "--timeout", "-5", "--entrants", "2"], "--timeout must be 1 to"),
    (["audit", "chips", "--timeout", "-1"], "--timeout must be 0.1 to 3,600, got -1"),
    (["nemesis", "--duration", "-3"], "--duration must be 0.5 to 86,400, got -3"),
    (["nemesis", "--tables", "0"], "--tables must be 1 to 100, got 0"),
    (["nemesis", "--seed", "1.5"], "--seed must be a whole number, not '1.5'"),
    (["arena", "--a", "hard", "--b", "lbr", "--hands", "2", "--lbr-draws", "0"], "--lbr-draws"),
]


@pytest.mark.parametrize(("argv", "said"), REFUSED, ids=[" ".join(a) for a, _ in REFUSED])
def test_a_number_out_of_range_is_the_commands_usage_error(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["charts", "--samples", "-2"], "--samples must be 1 to"),
        (["raises", "--iterations", "0"], "--iterations must be 1 to"),
        (["tables", "--iterations-tables", "-1"], "--iterations-tables must be 0 to"),
    ],
)
def test_the_chart_generator_refuses_the_same_way(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        shortstack_main(argv)
    assert stopped.value.code == 2
    assert said in capsys.readouterr().err
