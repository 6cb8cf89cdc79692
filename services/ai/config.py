"""Ai configuration: the shared HOLDEM_* variables (none of its own yet)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from libs.platform.config import PlatformConfig, load_platform_config
from libs.platform.configvars import Var

SERVICE = "ai"
VARIABLES: tuple[Var[Any], ...] = ()


@dataclass(frozen=True)
class AiConfig:
    platform: PlatformConfig


def load_config(environ: Mapping[str, str]) -> AiConfig:
    platform, _ = load_platform_config(SERVICE, environ, VARIABLES)
    return AiConfig(platform=platform)
