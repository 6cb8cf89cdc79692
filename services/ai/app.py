"""AI use cases: choose an action for a bot from exactly what a seated player sees (its
``PlayerView`` and ``LegalActions``, read and checked by ``libs.aiproto``) at the requested
difficulty, within the time budget and the call's deadline, whichever ends first; and a level's
policy at a decision (its action shares with each asked hold'em holding, ``libs.ai.probe``)."""

from __future__ import annotations

import secrets

import numpy as np
import numpy.typing as npt

from libs.ai import Decision, decide
from libs.ai import warm_up as warm_up_levels
from libs.ai.probe import HOLDINGS, policy
from libs.aiproto.policy import PolicyQuery
from libs.aiproto.reading import Request

#: Budget when the request gives none (``time_budget_ms = 0``).
DEFAULT_TIME_BUDGET_MS = 200
#: Kept back from the call's deadline for the answer's way back.
DEADLINE_MARGIN_SECONDS = 0.02


def warm_up() -> None:
    """Build the levels' tables now rather than on the first request."""
    warm_up_levels()


def budget_seconds(time_budget_ms: int, time_remaining: float | None) -> float:
    """The time a decision may take: the request's budget (or the default), cut to the call's
    deadline less a margin."""
    budget = (time_budget_ms or DEFAULT_TIME_BUDGET_MS) / 1000
    if time_remaining is not None:
        budget = min(budget, max(0.0, time_remaining - DEADLINE_MARGIN_SECONDS))
    return budget


def choose(request: Request, time_remaining: float | None) -> Decision:
    """The decision for a checked request; seed 0 means a fresh random one."""
    seed = request.seed or secrets.randbits(63) + 1
    budget = budget_seconds(request.time_budget_ms, time_remaining)
    return decide(request.view, request.level, seed, budget)


def policy_of(query: PolicyQuery, time_remaining: float | None) -> npt.NDArray[np.float64]:
    """``[1326, 3]`` action shares for the asked holdings (fold, check or call, bet or raise);
    each decision has the request's budget, and seed 0 means a fresh random one."""
    request = query.request
    seed = request.seed or secrets.randbits(63) + 1
    budget = budget_seconds(request.time_budget_ms, time_remaining)
    wanted = np.zeros(len(HOLDINGS), dtype=bool)
    wanted[query.holdings] = True
    return policy(request.view, request.level, seed, budget, wanted, query.draws)
