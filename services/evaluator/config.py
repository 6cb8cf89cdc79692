"""Evaluator configuration: the shared HOLDEM_* variables and the cost caps of one call."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from libs.platform.config import PlatformConfig, load_platform_config
from libs.platform.configvars import Var, integer

SERVICE = "evaluator"


@dataclass(frozen=True)
class Limits:
    """What one call may cost (the HOLDEM_EVALUATOR_* settings)."""

    max_batch: int = 1_000  # holdings per EvaluateBatch
    max_equity_ms: int = 5_000  # time of one Equity call's Monte Carlo estimate
    max_equity_samples: int = 20_000_000  # runouts sampled by one Equity call


DEFAULT_LIMITS = Limits()

MAX_BATCH = Var(
    "HOLDEM_EVALUATOR_MAX_BATCH",
    integer(minimum=1, maximum=10_000),
    "1000",
    "most holdings one EvaluateBatch call may rank (more: INVALID_ARGUMENT)",
)
MAX_EQUITY_MS = Var(
    "HOLDEM_EVALUATOR_MAX_EQUITY_MS",
    integer(minimum=10, maximum=60_000),
    "5000",
    "most milliseconds one Equity call's Monte Carlo runs (a larger time_budget_ms is cut to it)",
)
MAX_EQUITY_SAMPLES = Var(
    "HOLDEM_EVALUATOR_MAX_EQUITY_SAMPLES",
    integer(minimum=1_000, maximum=100_000_000),
    "20000000",
    "most runouts one Equity call samples (a larger max_samples is cut to it)",
)
MAX_CALLS_PER_CALLER = Var(
    "HOLDEM_EVALUATOR_MAX_CALLS_PER_CALLER",
    integer(minimum=1, maximum=1_000),
    "4",
    "calls one caller may have in flight; more are answered RESOURCE_EXHAUSTED with a retry hint",
)
VARIABLES: tuple[Var[Any], ...] = (
    MAX_BATCH,
    MAX_EQUITY_MS,
    MAX_EQUITY_SAMPLES,
    MAX_CALLS_PER_CALLER,
)


@dataclass(frozen=True)
class EvaluatorConfig:
    platform: PlatformConfig
    limits: Limits = DEFAULT_LIMITS
    max_calls_per_caller: int = 4


def load_config(environ: Mapping[str, str]) -> EvaluatorConfig:
    platform, values = load_platform_config(SERVICE, environ, VARIABLES)
    return EvaluatorConfig(
        platform=platform,
        limits=Limits(
            max_batch=values[MAX_BATCH],
            max_equity_ms=values[MAX_EQUITY_MS],
            max_equity_samples=values[MAX_EQUITY_SAMPLES],
        ),
        max_calls_per_caller=values[MAX_CALLS_PER_CALLER],
    )
