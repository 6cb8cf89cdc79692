"""The configuration's documentation, made from the declarations: one row per variable (the
shared ones, then each service's own; a variable several services read is one row naming them
all) and the Markdown table of docs/platform.md, which a test keeps equal to it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from libs.platform.config import (
    DEFAULT_HOST,
    DEFAULT_METRICS_PORTS,
    DEFAULT_PORTS,
    listen_var,
    metrics_listen_var,
    platform_vars,
)
from libs.platform.configvars import Var


@dataclass(frozen=True)
class VarDoc:
    name: str
    default: str
    meaning: str


def documentation(service_vars: Mapping[str, Iterable[Var[Any]]] | None = None) -> list[VarDoc]:
    """One row per variable: the shared ones, then each service's own (``{service: vars}``)."""
    per_service = (
        (listen_var("gateway"), DEFAULT_PORTS),
        (metrics_listen_var("gateway"), DEFAULT_METRICS_PORTS),
    )
    rows = [
        VarDoc(
            var.name,
            f"{DEFAULT_HOST} + per service: "
            + ", ".join(f"{name} :{port}" for name, port in ports.items()),
            var.help,
        )
        for var, ports in per_service
    ]
    shared = platform_vars("gateway")[len(per_service) :]
    rows += [VarDoc(v.name, _default(v), _meaning(v)) for v in shared]
    # A variable several services read (e.g. HOLDEM_TOKEN_KEYS) is one row naming them all.
    readers: dict[str, list[str]] = {}
    declared: dict[str, Var[Any]] = {}
    for service, variables in (service_vars or {}).items():
        for var in variables:
            readers.setdefault(var.name, []).append(service)
            declared.setdefault(var.name, var)
    rows += [
        VarDoc(v.name, _default(v), f"{', '.join(readers[v.name])}: {_meaning(v)}")
        for v in declared.values()
    ]
    return rows


def _default(var: Var[Any]) -> str:
    """The default column: a value; ``(none)`` for an optional variable whose default is empty
    (the HOLDEM_TLS_* files: none means plaintext); ``(required)`` only for one without one."""
    if var.default is None:
        return "(required)"
    return var.default or "(none)"


def _meaning(var: Var[Any]) -> str:
    return f"{var.help} ({var.type.description})"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown_table(rows: Iterable[VarDoc]) -> str:
    lines = ["| variable | default | meaning |", "|---|---|---|"]
    lines += [f"| `{r.name}` | `{r.default}` | {_cell(r.meaning)} |" for r in rows]
    return "\n".join(lines) + "\n"
