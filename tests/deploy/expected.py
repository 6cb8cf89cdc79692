"""What the deployment files must agree with, taken from the code: the services, their ports, and
the variables each one validates at start (libs/platform/config.py + services/<name>/config.py,
the one source of truth for the environment)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from libs.platform.config import DEFAULT_METRICS_PORTS, DEFAULT_PORTS, SERVICES, platform_vars
from libs.platform.configvars import Var
from services.ai.config import VARIABLES as AI_VARS
from services.dealer.config import VARIABLES as DEALER_VARS
from services.evaluator.config import VARIABLES as EVALUATOR_VARS
from services.gateway.config import VARIABLES as GATEWAY_VARS
from services.lobby.config import VARIABLES as LOBBY_VARS
from services.table.config import VARIABLES as TABLE_VARS
from services.tournament.config import VARIABLES as TOURNAMENT_VARS

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"

__all__ = [
    "DEFAULT_METRICS_PORTS",
    "DEFAULT_PORTS",
    "DEPLOY",
    "ROOT",
    "SERVICES",
    "WEB_PORT",
    "WEB_ROOT",
    "variables",
]

#: The gateway's HTTP port in the containers (HOLDEM_GATEWAY_HTTP_LISTEN: the web client, Connect
#: and gRPC-Web), and where the image keeps the built web client (HOLDEM_GATEWAY_WEB_ROOT).
WEB_PORT = 8080
WEB_ROOT = "/opt/holdem/web"

OWN_VARIABLES: Mapping[str, Sequence[Var[Any]]] = {
    "gateway": GATEWAY_VARS,
    "lobby": LOBBY_VARS,
    "table": TABLE_VARS,
    "dealer": DEALER_VARS,
    "evaluator": EVALUATOR_VARS,
    "ai": AI_VARS,
    "tournament": TOURNAMENT_VARS,
}
#: Set per process (each service its own address), never in shared configuration.
PER_PROCESS = frozenset({"HOLDEM_LISTEN", "HOLDEM_METRICS_LISTEN"})


def variables(service: str) -> set[str]:
    """Every variable ``service`` reads and validates at start."""
    return {v.name for v in (*platform_vars(service), *OWN_VARIABLES[service])}


def shared_variables() -> set[str]:
    """The variables every service reads, minus the per-process ones."""
    return set.intersection(*(variables(s) for s in SERVICES)) - PER_PROCESS
