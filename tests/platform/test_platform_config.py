"""libs.platform.config: variables are validated at start with a message naming each bad one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from libs.devstack.services import service_key_env
from libs.platform.config import DEFAULT_PORTS, load_platform_config
from libs.platform.configdoc import documentation, markdown_table
from libs.platform.configvars import ConfigError, Var, integer, parse_env
from services.ai.config import VARIABLES as AI_VARS
from services.dealer.config import VARIABLES as DEALER_VARS
from services.evaluator.config import VARIABLES as EVALUATOR_VARS
from services.gateway.config import VARIABLES as GATEWAY_VARS
from services.lobby.config import STARTING_CHIPS
from services.lobby.config import VARIABLES as LOBBY_VARS
from services.lobby.config import load_config as load_lobby_config
from services.table.config import VARIABLES as TABLE_VARS
from services.tournament.config import VARIABLES as TOURNAMENT_VARS

#: Every service needs its service-token keys (libs.platform.identity).
keyed = service_key_env

DOCS = Path(__file__).resolve().parents[2] / "docs" / "platform.md"
SERVICE_VARS = {
    "gateway": GATEWAY_VARS,
    "lobby": LOBBY_VARS,
    "table": TABLE_VARS,
    "dealer": DEALER_VARS,
    "evaluator": EVALUATOR_VARS,
    "ai": AI_VARS,
    "tournament": TOURNAMENT_VARS,
}


def problems(environ: dict[str, str], service: str = "lobby") -> dict[str, str]:
    with pytest.raises(ConfigError) as caught:
        load_platform_config(service, {**keyed(service), **environ}, SERVICE_VARS[service])
    return dict(caught.value.problems)


def test_defaults_need_no_environment() -> None:
    platform, _ = load_platform_config("table", keyed("table"))
    assert platform.listen == "127.0.0.1:50053"
    assert platform.peer("lobby") == "127.0.0.1:50052"
    assert platform.nats_url == "nats://127.0.0.1:4222"
    assert platform.redis_url == "redis://127.0.0.1:6379/0"
    assert (platform.log_level, platform.log_format) == ("info", "json")


@pytest.mark.parametrize("service", sorted(DEFAULT_PORTS))
def test_each_service_listens_on_its_own_default_port(service: str) -> None:
    platform, _ = load_platform_config(service, keyed(service))
    assert platform.listen == f"127.0.0.1:{DEFAULT_PORTS[service]}"


def test_values_are_read_and_normalised() -> None:
    config = load_lobby_config(
        {
            **keyed("lobby"),
            "HOLDEM_LISTEN": "0.0.0.0:7000",
            "HOLDEM_GATEWAY_ADDR": "[::1]:7001",
            "HOLDEM_LOG_LEVEL": "DEBUG",
            "HOLDEM_SHUTDOWN_GRACE_SECONDS": "2.5",
            "HOLDEM_LOBBY_STARTING_CHIPS": "500",
        }
    )
    assert config.platform.listen == "0.0.0.0:7000"
    assert config.platform.peer("gateway") == "[::1]:7001"
    assert config.platform.log_level == "debug"
    assert config.platform.shutdown_grace_seconds == 2.5
    assert config.starting_chips == 500


def test_empty_value_means_default() -> None:
    platform, _ = load_platform_config("ai", {**keyed("ai"), "HOLDEM_LISTEN": ""})
    assert platform.listen == "127.0.0.1:50056"


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        ("HOLDEM_LISTEN", "50051", "is not host:port"),
        ("HOLDEM_LISTEN", "localhost:99999", "no valid port"),
        ("HOLDEM_LISTEN", "::1:50051", "IPv6 host in brackets"),
        ("HOLDEM_LOBBY_ADDR", "lobby", "is not host:port"),
        ("HOLDEM_NATS_URL", "http://x:4222", "nats|tls:// URL"),
        ("HOLDEM_REDIS_URL", "redis://:notaport", "redis"),
        ("HOLDEM_LOG_LEVEL", "loud", "not one of debug, info"),
        ("HOLDEM_LOG_FORMAT", "xml", "not one of json, console"),
        ("HOLDEM_SHUTDOWN_GRACE_SECONDS", "soon", "is not a number"),
        ("HOLDEM_SHUTDOWN_GRACE_SECONDS", "-1", "below the minimum"),
        ("HOLDEM_RPC_MAX_ATTEMPTS", "9", "above the maximum 5"),
        ("HOLDEM_LOBBY_STARTING_CHIPS", "lots", "is not an integer"),
    ],
)
def test_invalid_value_names_variable_and_problem(name: str, value: str, reason: str) -> None:
    found = problems({name: value})
    assert list(found) == [name]
    assert reason in found[name]
    assert "expected" in found[name]


def test_every_bad_variable_is_reported_at_once() -> None:
    found = problems({"HOLDEM_LISTEN": "x", "HOLDEM_LOG_FORMAT": "xml"})
    assert set(found) == {"HOLDEM_LISTEN", "HOLDEM_LOG_FORMAT"}


def test_error_message_lists_each_variable_on_its_own_line() -> None:
    with pytest.raises(ConfigError) as caught:
        load_lobby_config({"HOLDEM_LISTEN": "x", "HOLDEM_LOBBY_STARTING_CHIPS": "-5"})
    text = str(caught.value)
    assert re.search(r"^  HOLDEM_LISTEN: 'x' is not host:port", text, re.M)
    assert re.search(r"^  HOLDEM_LOBBY_STARTING_CHIPS: -5 is below the minimum 0", text, re.M)


def test_missing_required_variable() -> None:
    secret = Var("HOLDEM_TEST_SECRET", integer(minimum=1), None, "a required setting")
    with pytest.raises(ConfigError) as caught:
        parse_env([secret, STARTING_CHIPS], {})
    assert caught.value.problems == (("HOLDEM_TEST_SECRET", "is required but not set"),)


def test_documentation_lists_every_variable_once() -> None:
    rows = documentation(SERVICE_VARS)
    names = [row.name for row in rows]
    assert len(names) == len(set(names))
    for service in DEFAULT_PORTS:
        assert f"HOLDEM_{service.upper()}_ADDR" in names
    assert {"HOLDEM_LISTEN", "HOLDEM_NATS_URL", "HOLDEM_REDIS_URL", "HOLDEM_LOG_LEVEL"} <= set(
        names
    )
    assert {"HOLDEM_LOG_FORMAT", "HOLDEM_SHUTDOWN_GRACE_SECONDS"} <= set(names)


def test_docs_table_matches_the_declarations() -> None:
    """docs/platform.md carries the generated table verbatim (the failure shows it); it is the one
    copy (the README links to it)."""
    expected = markdown_table(documentation(SERVICE_VARS))
    assert expected in DOCS.read_text(), f"update the table in {DOCS}:\n{expected}"


def test_a_variable_read_by_several_services_is_one_row_naming_them() -> None:
    from libs.platform.configkeys import TOKEN_KEYS

    rows = documentation({"gateway": (TOKEN_KEYS,), "lobby": (TOKEN_KEYS, STARTING_CHIPS)})
    keys = [row for row in rows if row.name == "HOLDEM_TOKEN_KEYS"]
    assert len(keys) == 1
    assert keys[0].meaning.startswith("gateway, lobby: keys of player tokens")
    assert keys[0].default == "(required)"


def test_an_optional_variable_with_an_empty_default_is_not_shown_required() -> None:
    rows = {row.name: row.default for row in documentation(SERVICE_VARS)}
    assert rows["HOLDEM_TLS_CA"] == rows["HOLDEM_TLS_CERT"] == rows["HOLDEM_TLS_KEY"] == "(none)"
    assert rows["HOLDEM_SERVICE_KEY"] == rows["HOLDEM_SERVICE_PUBLIC_KEYS"] == "(required)"
