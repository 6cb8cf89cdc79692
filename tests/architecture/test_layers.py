"""The layers of .importlinter hold, and lint-imports notices when they do not: in a copy of the
code with one bad import per contract (the domain speaking grpc, a domain package reaching into
infrastructure, a service importing a tool, one service importing another, a cycle between two
modules) each contract reports its own."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
PACKAGES = ("libs", "services", "benchmarks")

LAYERS = "Layers: tools > services > infrastructure > domain"
INDEPENDENT = "Services are independent of each other"
PURE = "The domain does no I/O and speaks no protocol"
ACYCLIC = "No cycles between packages, nor between the modules of a package"

#: (module, the import added to its end, the contract it breaks, what the report says)
BAD_IMPORTS = [
    ("libs/poker/cards.py", "import grpc", PURE, "libs.poker.cards -> grpc"),
    ("libs/lobby/account.py", "import libs.eventstore.store", LAYERS, "libs.eventstore.store"),
    ("services/table/config.py", "import libs.cli.main", LAYERS, "-> libs.cli.main"),
    ("services/dealer/app.py", "import services.lobby.app", INDEPENDENT, "-> services.lobby.app"),
    ("libs/platform/tasks.py", "import libs.platform.server", ACYCLIC, ".tasks -> .server"),
]


def lint(root: Path) -> subprocess.CompletedProcess[str]:
    """lint-imports with the repository's contracts on the packages at ``root`` (found there
    first; the generated ``holdem`` package where it is installed)."""
    return subprocess.run(
        [str(LINT_IMPORTS), str(ROOT / ".importlinter"), "--no-cache"],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": str(LINT_IMPORTS.parent)},
        capture_output=True,
        text=True,
        check=False,
    )


def broken_sections(report: str) -> dict[str, str]:
    """Each broken contract's name -> its part of the report."""
    tail = report.split("Broken contracts", 1)[1]
    # a section starts with the contract's name underlined by dashes
    parts = re.split(r"\n([^\n]+)\n-+\n", tail)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_the_code_keeps_every_contract() -> None:
    result = lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 4 kept, 0 broken." in result.stdout


def test_each_contract_reports_the_import_that_breaks_it(tmp_path: Path) -> None:
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    for module, line, _, _ in BAD_IMPORTS:
        path = tmp_path / module
        path.write_text(path.read_text() + f"\n{line}\n")

    result = lint(tmp_path)

    assert result.returncode == 1, result.stdout + result.stderr
    sections = broken_sections(result.stdout)
    assert set(sections) == {LAYERS, INDEPENDENT, PURE, ACYCLIC}, result.stdout
    for module, _, contract, reported in BAD_IMPORTS:
        assert reported in sections[contract], f"{module}: {reported!r} not in {contract!r}"
