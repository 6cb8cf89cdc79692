"""Every error code a service can answer with maps to the status it is meant to get.

The codes are collected from the code itself: every place a coded error (``DomainError`` or the
engine's ``PokerError`` families, or an exception class with a fixed ``code``) is built in the
modules a service runs, with the code it is given. Each must be UPPER_SNAKE, listed with its
intended status in tests/services/intended_codes.py, and mapped to that status by the service's
error mapper. A new code without an entry there fails; so does an entry no code path raises any
more, and a mapper refinement that no raised code uses (it could never match).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import grpc
import pytest

from libs.errors import DomainError
from libs.platform.errors import ErrorMapper
from libs.poker.errors import PokerError
from tests.services.intended_codes import SERVICES

ROOT = Path(__file__).resolve().parents[2]
UPPER_SNAKE = re.compile(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$")

S = grpc.StatusCode


@dataclass(frozen=True)
class Raised:
    code: str
    error: type[BaseException]
    where: str


def _module(path: Path) -> ModuleType:
    name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    return importlib.import_module(name.removesuffix(".__init__"))


def _resolve(node: ast.expr, namespace: dict[str, Any]) -> Any:
    """The value of a name or dotted name in a module's namespace (else a LookupError)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in namespace:
            raise LookupError(node.id)
        return namespace[node.id]
    if isinstance(node, ast.Attribute):
        return getattr(_resolve(node.value, namespace), node.attr)
    raise LookupError(ast.unparse(node))


def _coded(cls: object) -> bool:
    if not isinstance(cls, type) or not issubclass(cls, BaseException):
        return False
    return issubclass(cls, (DomainError, PokerError)) or isinstance(getattr(cls, "code", None), str)


def raised_codes(sources: list[str]) -> list[Raised]:
    """Every coded error built in ``sources`` (files or folders), with its code."""
    files = sorted(
        f
        for source in sources
        for f in ((ROOT / source).rglob("*.py") if (ROOT / source).is_dir() else [ROOT / source])
    )
    found: list[Raised] = []
    for path in files:
        namespace = vars(_module(path))
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            try:
                cls = _resolve(node.func, namespace)
            except (LookupError, AttributeError):
                continue  # a local name or a method: not an error class
            if not _coded(cls):
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            fixed = next((vars(c)["code"] for c in cls.__mro__ if "code" in vars(c)), None)
            if isinstance(fixed, str):
                found.append(Raised(fixed, cls, where))
                continue
            argument = (
                node.args[0]
                if node.args
                else next((k.value for k in node.keywords if k.arg == "code"), None)
            )
            assert argument is not None, f"{where}: a coded error without a code"
            for expr, home in _code_expressions(argument, tree, namespace):
                try:
                    code = _resolve(expr, home)
                except (LookupError, AttributeError):
                    pytest.fail(f"{where}: the code {ast.unparse(expr)} is not a constant")
                assert isinstance(code, str), f"{where}: the code is not a string"
                found.append(Raised(code, cls, where))
    return found


def _code_expressions(
    argument: ast.expr, tree: ast.Module, namespace: dict[str, Any]
) -> list[tuple[ast.expr, dict[str, Any]]]:
    """The expressions a code argument comes from, each with the namespace it is read in:
    itself, or for ``Error(*reason)`` with ``reason = helper(...)`` the first item of every
    tuple ``helper`` returns (``helper`` defined in this module or imported into it)."""
    if not isinstance(argument, ast.Starred):
        return [(argument, namespace)]
    name = ast.unparse(argument.value)
    helpers = {
        node.value.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and [ast.unparse(t) for t in node.targets] == [name]
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
    }
    found: list[tuple[ast.expr, dict[str, Any]]] = []
    for helper in sorted(helpers):
        function = namespace.get(helper)
        home = inspect.getmodule(function)
        source = ast.parse(inspect.getsource(home)) if home is not None else tree
        found += [
            (ret.value.elts[0], vars(home) if home is not None else namespace)
            for node in ast.walk(source)
            if isinstance(node, ast.FunctionDef) and node.name == getattr(function, "__name__", "")
            for ret in ast.walk(node)
            if isinstance(ret, ast.Return) and isinstance(ret.value, ast.Tuple)
        ]
    assert found, f"cannot tell where the code {ast.unparse(argument)} comes from"
    return found


def mapper_of(service: str) -> ErrorMapper:
    server = importlib.import_module(f"services.{service}.server")
    factory = getattr(server, "error_mapper", ErrorMapper)
    mapper = factory()
    assert isinstance(mapper, ErrorMapper)
    return mapper


def status_of(mapper: ErrorMapper, raised: Raised) -> grpc.StatusCode:
    error = raised.error.__new__(raised.error)  # its own __init__ may take other arguments
    error.code = raised.code  # type: ignore[attr-defined]
    error.message = "m"  # type: ignore[attr-defined]
    return mapper.to_grpc(error).status


@pytest.mark.parametrize("service", sorted(SERVICES))
def test_every_code_a_service_raises_maps_to_its_intended_status(service: str) -> None:
    sources, intended = SERVICES[service]
    raised = raised_codes(sources)
    mapper = mapper_of(service)
    assert raised, f"no coded errors found for {service}"
    for r in raised:
        assert UPPER_SNAKE.match(r.code), f"{r.where}: {r.code!r} is not UPPER_SNAKE"
        assert r.code in intended, f"{r.where}: {r.code} has no intended status in this test"
        assert status_of(mapper, r) == intended[r.code], f"{r.where}: {r.code}"
    codes = {r.code for r in raised}
    assert set(intended) <= codes, f"listed but never raised: {sorted(set(intended) - codes)}"
    assert set(mapper.codes) <= codes, "the mapper refines a code nothing raises"
    assert not mapper.types, "the mapper refines error classes: every coded error has a kind"
