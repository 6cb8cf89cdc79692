"""libs/poker imports run one way: no module imports, directly or through others, a module that
imports it back (a cycle makes the import order decide what is defined, and hides layering)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "libs" / "poker"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, name: str) -> set[str]:
    """The libs.poker modules ``path`` imports (relative or absolute, at any depth)."""
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            found.add(target)
            # ``from . import x`` may name a submodule
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return {m for m in found if m.startswith("libs.poker")}


def _graph() -> dict[str, set[str]]:
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {name: _imports(path, name) & paths.keys() - {name} for name, path in paths.items()}


def test_the_poker_package_has_no_import_cycle() -> None:
    graph = _graph()
    # A package __init__ re-exports its submodules: count only the submodules' own imports.
    graph = {
        name: {m for m in deps if not (graph.get(m) is not None and name.startswith(m + "."))}
        for name, deps in graph.items()
    }
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    cycles: list[list[str]] = []

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for dep in sorted(graph[name]):
            if state.get(dep) == 1:
                cycles.append([*path[path.index(dep) :], dep])
            elif dep not in state:
                visit(dep, [*path, dep])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert cycles == []
    assert "libs.poker.hand_values" in graph["libs.poker.fast.tables"]
