"""Gateway configuration: the shared HOLDEM_* variables (HOLDEM_LOBBY_ADDR and HOLDEM_TABLE_ADDR
say where its backends are), the token keys it verifies with, and its limits."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from libs.auth import KeyRing
from libs.platform.config import PlatformConfig, load_platform_config
from libs.platform.configkeys import OPTIONAL_TOKEN_KEYS
from libs.platform.configvars import Var, integer, number

SERVICE = "gateway"


RATE_PER_SECOND = Var(
    "HOLDEM_GATEWAY_RATE_PER_SECOND",
    number(minimum=0.1, maximum=100000),
    "50",
    "calls one player (or, before logging in, one peer) may make per second, sustained",
)
RATE_BURST = Var(
    "HOLDEM_GATEWAY_RATE_BURST",
    integer(minimum=1, maximum=100000),
    "100",
    "calls one player (or peer) may make at once above the sustained rate",
)
WATCH_BUFFER = Var(
    "HOLDEM_GATEWAY_WATCH_BUFFER",
    integer(minimum=8, maximum=100000),
    "512",
    "table updates buffered for one WatchTable stream; a client further behind gets "
    "ABORTED (FELL_BEHIND) and resumes with from_sequence",
)
WATCHES_PER_PLAYER = Var(
    "HOLDEM_GATEWAY_WATCHES_PER_PLAYER",
    integer(minimum=1, maximum=1000),
    "16",
    "WatchTable streams one player (or peer) may have open at once",
)
HISTORIES_PER_PLAYER = Var(
    "HOLDEM_GATEWAY_HISTORIES_PER_PLAYER",
    integer(minimum=1, maximum=100),
    "2",
    "GetHandHistory calls one player may have in flight (each reads a table's stream in the "
    "table service); more are answered RESOURCE_EXHAUSTED with a retry hint",
)
VARIABLES: tuple[Var[Any], ...] = (
    OPTIONAL_TOKEN_KEYS,
    RATE_PER_SECOND,
    RATE_BURST,
    WATCH_BUFFER,
    WATCHES_PER_PLAYER,
    HISTORIES_PER_PLAYER,
)


@dataclass(frozen=True)
class GatewayConfig:
    platform: PlatformConfig
    token_keys: KeyRing | None = None
    rate_per_second: float = 50.0
    rate_burst: int = 100
    watch_buffer: int = 512
    watches_per_player: int = 16
    histories_per_player: int = 2


def load_config(environ: Mapping[str, str]) -> GatewayConfig:
    platform, values = load_platform_config(SERVICE, environ, VARIABLES)
    return GatewayConfig(
        platform=platform,
        token_keys=values[OPTIONAL_TOKEN_KEYS],
        rate_per_second=values[RATE_PER_SECOND],
        rate_burst=values[RATE_BURST],
        watch_buffer=values[WATCH_BUFFER],
        watches_per_player=values[WATCHES_PER_PLAYER],
        histories_per_player=values[HISTORIES_PER_PLAYER],
    )
