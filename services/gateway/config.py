"""Gateway configuration: the shared HOLDEM_* variables (HOLDEM_LOBBY_ADDR and HOLDEM_TABLE_ADDR
say where its backends are)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from libs.platform.config import PlatformConfig, Var, load_platform_config

SERVICE = "gateway"
VARIABLES: tuple[Var[Any], ...] = ()


@dataclass(frozen=True)
class GatewayConfig:
    platform: PlatformConfig


def load_config(environ: Mapping[str, str]) -> GatewayConfig:
    platform, _ = load_platform_config(SERVICE, environ, VARIABLES)
    return GatewayConfig(platform=platform)
