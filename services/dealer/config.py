"""Dealer configuration: the shared HOLDEM_* variables (it uses HOLDEM_REDIS_URL for seeds)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from libs.platform.config import PlatformConfig, load_platform_config
from libs.platform.configvars import Var

SERVICE = "dealer"
VARIABLES: tuple[Var[Any], ...] = ()


@dataclass(frozen=True)
class DealerConfig:
    platform: PlatformConfig


def load_config(environ: Mapping[str, str]) -> DealerConfig:
    platform, _ = load_platform_config(SERVICE, environ, VARIABLES)
    return DealerConfig(platform=platform)
