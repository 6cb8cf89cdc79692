"""Every source module is small and says what it owns: no Python file of libs/, services/,
benchmarks/, tests/ or deploy/ passes 400 lines (the generated code in gen/ and the C kernels
are not Python sources here), and each one that has any code opens with a docstring."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE_ROOTS = ("libs", "services", "benchmarks", "tests", "deploy")
MAX_LINES = 400


def sources() -> list[Path]:
    return sorted(
        path
        for root in SOURCE_ROOTS
        for path in (ROOT / root).rglob("*.py")
        if "__pycache__" not in path.parts
    )


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def line_count(path: Path) -> int:
    return len(path.read_text().splitlines())


def test_no_source_file_passes_400_lines() -> None:
    too_long = {
        relative(path): line_count(path) for path in sources() if line_count(path) > MAX_LINES
    }
    assert not too_long, f"split by what each part owns (over {MAX_LINES} lines): {too_long}"


def test_every_module_says_what_it_owns() -> None:
    silent = [
        relative(path)
        for path in sources()
        if path.read_text().strip() and ast.get_docstring(ast.parse(path.read_text())) is None
    ]
    assert not silent, f"modules without a docstring saying what they own: {silent}"
