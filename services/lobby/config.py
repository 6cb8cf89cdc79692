"""Lobby configuration: the shared HOLDEM_* variables plus the lobby's own."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from libs.auth import KeyRing
from libs.platform.config import PlatformConfig, load_platform_config
from libs.platform.configkeys import OPTIONAL_TOKEN_KEYS
from libs.platform.configvars import Var, integer, number

SERVICE = "lobby"

STARTING_CHIPS = Var(
    "HOLDEM_LOBBY_STARTING_CHIPS",
    integer(minimum=0, maximum=10**12),
    "10000",
    "virtual chips granted to a new player's wallet",
)
TOKEN_TTL_SECONDS = Var(
    "HOLDEM_LOBBY_TOKEN_TTL_SECONDS",
    integer(minimum=60, maximum=30 * 86400),
    "86400",
    "lifetime of a login token",
)


LOGIN_FAILURES_PER_USER = Var(
    "HOLDEM_LOBBY_LOGIN_FAILURES_PER_USER",
    integer(minimum=1, maximum=1000),
    "5",
    "failed logins of one username from one client address per window before that address "
    "gets RESOURCE_EXHAUSTED for it (the owner elsewhere is not refused)",
)
LOGIN_FAILURES_PER_USER_TOTAL = Var(
    "HOLDEM_LOBBY_LOGIN_FAILURES_PER_USER_TOTAL",
    integer(minimum=1, maximum=1000000),
    "100",
    "failed logins of one username from every address per window; past it only addresses "
    "with no failure for that username in the window may try it (guessing spread over many "
    "addresses)",
)
LOGIN_FAILURES_PER_PEER = Var(
    "HOLDEM_LOBBY_LOGIN_FAILURES_PER_PEER",
    integer(minimum=1, maximum=100000),
    "20",
    "failed logins from one peer (the calling address, or the client address the authenticated "
    "gateway forwards) per window before RESOURCE_EXHAUSTED",
)
LOGIN_WINDOW_SECONDS = Var(
    "HOLDEM_LOBBY_LOGIN_WINDOW_SECONDS",
    integer(minimum=1, maximum=86400),
    "300",
    "window over which failed logins are counted",
)
GUESTS_PER_ADDRESS = Var(
    "HOLDEM_LOBBY_GUESTS_PER_ADDRESS",
    integer(minimum=1, maximum=1000000),
    "20",
    "guest accounts one client address (the calling address, or the one the authenticated "
    "gateway forwards) may create per guest window before RESOURCE_EXHAUSTED; as many "
    "registered accounts, counted apart (TOO_MANY_ACCOUNTS; tools are not counted)",
)
GUEST_WINDOW_SECONDS = Var(
    "HOLDEM_LOBBY_GUEST_WINDOW_SECONDS",
    integer(minimum=1, maximum=7 * 86400),
    "3600",
    "window over which guest (and registered) accounts are counted per client address",
)
OPEN_TABLES_PER_PLAYER = Var(
    "HOLDEM_LOBBY_OPEN_TABLES_PER_PLAYER",
    integer(minimum=1, maximum=100000),
    "10",
    "tables one player may have created and not yet closed; CreateTable past it is "
    "FAILED_PRECONDITION (TOO_MANY_OPEN_TABLES) until one closes",
)
HOUSE_AI_MAX_BUY_IN = Var(
    "HOLDEM_LOBBY_HOUSE_AI_MAX_BUY_IN",
    integer(minimum=1, maximum=10**12),
    "20000",
    "most chips a house AI is bought in with (the table's max buy-in, at most this); a table "
    "whose min buy-in is above it gets no AIs (INVALID_BOTS)",
)
SAGA_RESUME_SECONDS = Var(
    "HOLDEM_LOBBY_SAGA_RESUME_SECONDS",
    number(minimum=0.1, maximum=3600),
    "2",
    "how often the process manager drives unfinished buy-in sagas",
)
LEAVE_WAIT_SECONDS = Var(
    "HOLDEM_LOBBY_LEAVE_WAIT_SECONDS",
    number(minimum=0, maximum=60),
    "10",
    "how long LeaveTable waits for the cash-out credit (a leave during a hand answers at once)",
)
SEAT_OFFER_SECONDS = Var(
    "HOLDEM_LOBBY_SEAT_OFFER_SECONDS",
    number(minimum=1, maximum=600),
    "60",
    "how long a free seat of a full table is offered to each waiting player in turn",
)
VARIABLES: tuple[Var[Any], ...] = (
    STARTING_CHIPS,
    TOKEN_TTL_SECONDS,
    OPTIONAL_TOKEN_KEYS,
    LOGIN_FAILURES_PER_USER,
    LOGIN_FAILURES_PER_PEER,
    LOGIN_FAILURES_PER_USER_TOTAL,
    LOGIN_WINDOW_SECONDS,
    GUESTS_PER_ADDRESS,
    GUEST_WINDOW_SECONDS,
    OPEN_TABLES_PER_PLAYER,
    HOUSE_AI_MAX_BUY_IN,
    SAGA_RESUME_SECONDS,
    LEAVE_WAIT_SECONDS,
    SEAT_OFFER_SECONDS,
)


@dataclass(frozen=True)
class LobbyConfig:
    platform: PlatformConfig
    starting_chips: int
    token_ttl_seconds: int
    token_keys: KeyRing | None = None
    login_failures_per_user: int = 5
    login_failures_per_peer: int = 20
    login_failures_per_user_total: int = 100
    login_window_seconds: int = 300
    guests_per_address: int = 20
    guest_window_seconds: int = 3600
    open_tables_per_player: int = 10
    house_ai_max_buy_in: int = 20_000
    saga_resume_seconds: float = 2.0
    leave_wait_seconds: float = 10.0
    seat_offer_seconds: float = 60.0


def load_config(environ: Mapping[str, str]) -> LobbyConfig:
    platform, values = load_platform_config(SERVICE, environ, VARIABLES)
    return LobbyConfig(
        platform=platform,
        starting_chips=values[STARTING_CHIPS],
        token_ttl_seconds=values[TOKEN_TTL_SECONDS],
        token_keys=values[OPTIONAL_TOKEN_KEYS],
        login_failures_per_user=values[LOGIN_FAILURES_PER_USER],
        login_failures_per_peer=values[LOGIN_FAILURES_PER_PEER],
        login_failures_per_user_total=values[LOGIN_FAILURES_PER_USER_TOTAL],
        login_window_seconds=values[LOGIN_WINDOW_SECONDS],
        guests_per_address=values[GUESTS_PER_ADDRESS],
        guest_window_seconds=values[GUEST_WINDOW_SECONDS],
        open_tables_per_player=values[OPEN_TABLES_PER_PLAYER],
        house_ai_max_buy_in=values[HOUSE_AI_MAX_BUY_IN],
        saga_resume_seconds=values[SAGA_RESUME_SECONDS],
        leave_wait_seconds=values[LEAVE_WAIT_SECONDS],
        seat_offer_seconds=values[SEAT_OFFER_SECONDS],
    )
