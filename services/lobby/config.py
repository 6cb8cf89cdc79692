"""Lobby configuration: the shared HOLDEM_* variables plus the lobby's own."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from libs.platform.config import PlatformConfig, Var, integer, load_platform_config

SERVICE = "lobby"

STARTING_CHIPS = Var(
    "HOLDEM_LOBBY_STARTING_CHIPS",
    integer(minimum=0),
    "10000",
    "virtual chips credited to a new player's wallet",
)
TOKEN_TTL_SECONDS = Var(
    "HOLDEM_LOBBY_TOKEN_TTL_SECONDS",
    integer(minimum=60),
    "86400",
    "lifetime of a login token",
)
VARIABLES: tuple[Var[Any], ...] = (STARTING_CHIPS, TOKEN_TTL_SECONDS)


@dataclass(frozen=True)
class LobbyConfig:
    platform: PlatformConfig
    starting_chips: int
    token_ttl_seconds: int


def load_config(environ: Mapping[str, str]) -> LobbyConfig:
    platform, values = load_platform_config(SERVICE, environ, VARIABLES)
    return LobbyConfig(
        platform=platform,
        starting_chips=values[STARTING_CHIPS],
        token_ttl_seconds=values[TOKEN_TTL_SECONDS],
    )
