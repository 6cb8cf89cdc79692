"""Gateway configuration: the shared HOLDEM_* variables (HOLDEM_LOBBY_ADDR, HOLDEM_TABLE_ADDR and
HOLDEM_TOURNAMENT_ADDR say where its backends are), the token keys it verifies with, its limits, and
its HTTP port for browsers (Connect and gRPC-Web, allowed origins, the web client's files)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from libs.auth import KeyRing
from libs.platform.config import PlatformConfig, load_platform_config
from libs.platform.configkeys import OPTIONAL_TOKEN_KEYS
from libs.platform.configvars import OFF, OPTIONAL_ADDRESS, OPTIONAL_PATH, Var, integer, number
from services.gateway.chatconfig import CHAT_VARIABLES, ChatConfig, chat_config

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
TOURNAMENT_POLL = Var(
    "HOLDEM_GATEWAY_TOURNAMENT_POLL_SECONDS",
    number(minimum=0.1, maximum=60),
    "1",
    "how often a WatchTournament stream reads its tournament (an update goes out when anything "
    "but the countdown changed)",
)
DISCONNECT_GRACE = Var(
    "HOLDEM_GATEWAY_DISCONNECT_GRACE_SECONDS",
    number(minimum=0.1, maximum=3600),
    "10",
    "how long a seated player may be gone (their last WatchTable stream of the table closed, no "
    "call since) before the gateway tells the table they are disconnected (disconnect "
    "protection: their turn gets the time bank once, then they are folded and sat out)",
)
HTTP_LISTEN = Var(
    "HOLDEM_GATEWAY_HTTP_LISTEN",
    OPTIONAL_ADDRESS,
    OFF,
    "host:port of the gateway's HTTP port: GatewayService over Connect and gRPC-Web for "
    f"browsers, and the web client's files (port 0 = any free port; {OFF} = none)",
)
HTTP_ORIGINS = Var(
    "HOLDEM_GATEWAY_HTTP_ORIGINS",
    OPTIONAL_PATH,
    "",
    "origins allowed to call the HTTP port from another site (CORS), comma-separated, e.g. "
    "https://play.example.org; * allows any; empty: none (the web client it serves is the "
    "same origin and needs none)",
)
HTTP_MAX_BODY = Var(
    "HOLDEM_GATEWAY_HTTP_MAX_BODY_BYTES",
    integer(minimum=1024, maximum=64 << 20),
    str(1 << 20),
    "largest request body the HTTP port reads (bigger: refused)",
)
HTTP_MAX_STREAMS = Var(
    "HOLDEM_GATEWAY_HTTP_MAX_STREAMS",
    integer(minimum=1, maximum=1000000),
    "2000",
    "WatchTable streams open at once on the HTTP port (more: RESOURCE_EXHAUSTED)",
)
WEB_ROOT = Var(
    "HOLDEM_GATEWAY_WEB_ROOT",
    OPTIONAL_PATH,
    "",
    "directory of the built web client served at / of the HTTP port (empty: web/dist of this "
    "checkout, when built)",
)
VARIABLES: tuple[Var[Any], ...] = (
    OPTIONAL_TOKEN_KEYS,
    RATE_PER_SECOND,
    RATE_BURST,
    WATCH_BUFFER,
    WATCHES_PER_PLAYER,
    HISTORIES_PER_PLAYER,
    TOURNAMENT_POLL,
    DISCONNECT_GRACE,
    HTTP_LISTEN,
    HTTP_ORIGINS,
    HTTP_MAX_BODY,
    HTTP_MAX_STREAMS,
    WEB_ROOT,
    *CHAT_VARIABLES,
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
    tournament_poll_seconds: float = 1.0
    disconnect_grace_seconds: float = 10.0
    http_listen: str | None = None
    http_origins: tuple[str, ...] = ()
    http_max_body_bytes: int = 1 << 20
    http_max_streams: int = 2000
    web_root: str = ""
    chat: ChatConfig = field(default_factory=ChatConfig)


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
        tournament_poll_seconds=values[TOURNAMENT_POLL],
        disconnect_grace_seconds=values[DISCONNECT_GRACE],
        http_listen=values[HTTP_LISTEN],
        http_origins=tuple(o.strip() for o in values[HTTP_ORIGINS].split(",") if o.strip()),
        http_max_body_bytes=values[HTTP_MAX_BODY],
        http_max_streams=values[HTTP_MAX_STREAMS],
        web_root=values[WEB_ROOT],
        chat=chat_config(values),
    )
