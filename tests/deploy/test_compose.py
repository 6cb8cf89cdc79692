"""docker-compose.yml: valid against the compose specification's JSON schema (no Docker needed),
the six services from one image with gRPC health checks and start order, each given exactly the
variables it validates at start; `docker compose config` too where the plugin is installed."""

from __future__ import annotations

import importlib.resources
import json
import re
import shutil
import subprocess
from typing import Any

import jsonschema
import pytest
import yaml

from libs.devstack.access import (
    NATS_PERMISSIONS,
    REDIS_KEYS,
    nats_password_variable,
    nats_users_template,
    redis_user_rule,
)
from libs.platform.identity import IDENTITIES, TOOLS, PublicKeys, ServiceKey
from tests.deploy.expected import DEFAULT_METRICS_PORTS, DEFAULT_PORTS, ROOT, SERVICES, variables

COMPOSE = ROOT / "docker-compose.yml"
INFRA = {"nats", "redis"}
MONITORING = {"prometheus", "grafana"}


def _compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return data


def _port(address: str) -> int:
    return int(address.rsplit(":", 1)[1])


def _compose_schema() -> dict[str, Any]:
    """The compose specification's schema, as vendored by check-jsonschema (a pinned dev
    dependency, so this runs offline and changes only when the pin does)."""
    vendor = importlib.resources.files("check_jsonschema.builtin_schemas.vendor")
    schema: dict[str, Any] = json.loads(vendor.joinpath("compose-spec.json").read_text())
    return schema


def _schema_errors(document: dict[str, Any]) -> list[str]:
    schema = _compose_schema()
    validator = jsonschema.validators.validator_for(schema)(schema)
    return [
        f"{'.'.join(map(str, error.path))}: {error.message}"
        for error in validator.iter_errors(document)
    ]


def test_compose_file_is_valid_against_the_compose_spec() -> None:
    assert _schema_errors(_compose()) == []


def test_the_schema_check_catches_mistakes() -> None:
    broken = _compose()
    broken["services"]["table"]["helthcheck"] = broken["services"]["table"].pop("healthcheck")
    broken["services"]["lobby"]["depends_on"]["table"] = {"condition": "service_happy"}
    errors = _schema_errors(broken)
    assert any("helthcheck" in error for error in errors), errors
    assert any(error.startswith("services.lobby.depends_on") for error in errors), errors


def test_compose_has_infra_and_six_services_with_healthchecks() -> None:
    services = _compose()["services"]
    always = {name for name, svc in services.items() if "profiles" not in svc}
    assert always == {*INFRA, *SERVICES}
    assert {name for name, svc in services.items() if svc.get("profiles") == ["monitoring"]} == (
        MONITORING
    )
    for name, svc in services.items():
        assert svc.get("healthcheck", {}).get("test"), f"{name} has no healthcheck"
    assert "-js" in services["nats"]["command"]


def test_compose_services_listen_and_are_probed_on_their_default_port() -> None:
    services = _compose()["services"]
    for name in SERVICES:
        svc = services[name]
        port = DEFAULT_PORTS[name]
        assert svc["command"] == [f"services.{name}"]
        assert _port(svc["environment"]["HOLDEM_LISTEN"]) == port
        assert _port(svc["environment"]["HOLDEM_METRICS_LISTEN"]) == DEFAULT_METRICS_PORTS[name]
        test = svc["healthcheck"]["test"]
        assert test[:4] == ["CMD", "python", "-m", "libs.platform.healthcheck"]
        assert _port(test[4]) == port
        assert svc["read_only"] is True
        assert svc["user"] != "root" and not str(svc["user"]).startswith("0")


def test_each_service_gets_exactly_the_variables_it_validates() -> None:
    """One source of truth: libs/platform/config.py and services/<name>/config.py."""
    services = _compose()["services"]
    for name in SERVICES:
        assert set(services[name]["environment"]) == variables(name), name


def test_compose_env_wires_every_service_to_the_others() -> None:
    services = _compose()["services"]
    for name in SERVICES:
        env = services[name]["environment"]
        nats_user = f"{name}:${{HOLDEM_NATS_{name.upper()}_PASSWORD:-dev-nats-{name}}}@"
        redis_user = f"{name}:${{HOLDEM_REDIS_{name.upper()}_PASSWORD:-dev-redis-{name}}}@"
        # its own user where it has one (libs/devstack/access.py), else none: it cannot connect
        nats_auth = nats_user if name in NATS_PERMISSIONS else ""
        redis_auth = redis_user if name in REDIS_KEYS else ""
        assert env["HOLDEM_NATS_URL"] == f"nats://{nats_auth}nats:4222", name
        assert env["HOLDEM_REDIS_URL"] == f"redis://{redis_auth}redis:6379/0", name
        for other in SERVICES:
            assert env[f"HOLDEM_{other.upper()}_ADDR"] == f"{other}:{DEFAULT_PORTS[other]}"


def _default(value: str) -> str:
    """The default of a ``${VARIABLE:-default}`` interpolation."""
    match = re.fullmatch(r"\$\{([A-Z0-9_]+):-(.+)\}", value)
    assert match is not None, value
    return match.group(2)


def test_each_service_signs_with_its_own_key_only() -> None:
    """Per-service keys (libs/platform/identity.py): each service's HOLDEM_SERVICE_KEY (its own
    variable to override) is the one whose public half HOLDEM_SERVICE_PUBLIC_KEYS lists under
    that service, and no other identity's; the tools key named in the comments (for the CLI)
    is listed as tools."""
    services = _compose()["services"]
    keys = {}
    for name in SERVICES:
        env = services[name]["environment"]
        assert env["HOLDEM_SERVICE_KEY"].startswith(f"${{HOLDEM_SERVICE_KEY_{name.upper()}:-")
        assert env["HOLDEM_SERVICE_PUBLIC_KEYS"].startswith("${HOLDEM_SERVICE_PUBLIC_KEYS:-")
        public = PublicKeys.parse(_default(env["HOLDEM_SERVICE_PUBLIC_KEYS"]))
        assert public.identities() == set(IDENTITIES)
        key = ServiceKey.parse(_default(env["HOLDEM_SERVICE_KEY"]))
        assert [i for i in IDENTITIES if public.holds(i, key)] == [name]
        keys[name] = key.format()
    assert len(set(keys.values())) == len(SERVICES)
    tools = re.search(r"as tools with HOLDEM_SERVICE_KEY=(\S+)", COMPOSE.read_text())
    assert tools is not None and public.holds(TOOLS, ServiceKey.parse(tools.group(1)))


def test_nats_and_redis_run_with_the_users_of_the_local_stack() -> None:
    """The same users and permissions as `holdem stack up` (libs/devstack/access.py): the NATS
    users file is generated from it, its passwords come from the environment of the nats
    container, and Redis has one --user rule per service with the default user off."""
    services = _compose()["services"]
    users_file = ROOT / "deploy" / "nats" / "holdem-users.conf"
    assert users_file.read_text() == nats_users_template()
    nats = services["nats"]
    assert nats["command"][-2:] == ["-c", "/etc/nats/holdem-users.conf"]
    assert "./deploy/nats/holdem-users.conf:/etc/nats/holdem-users.conf:ro" in nats["volumes"]
    assert nats["environment"] == {
        nats_password_variable(user): (f"${{{nats_password_variable(user)}:-dev-nats-{user}}}")
        for user in [*NATS_PERMISSIONS, "admin"]
    }
    command = services["redis"]["command"]
    rules = [rule.strip() for rule in command.split("--user")[1:]]
    assert rules[0] == "default off"
    assert rules[1:] == [
        redis_user_rule(
            user, f"${{HOLDEM_REDIS_{user.upper()}_PASSWORD:-dev-redis-{user}}}"
        ).removeprefix("user ")
        for user in REDIS_KEYS
    ]


def test_only_the_gateway_and_the_local_monitoring_are_published() -> None:
    services = _compose()["services"]
    published = {name: svc["ports"] for name, svc in services.items() if "ports" in svc}
    assert published.pop("gateway") == ["50051:50051"]
    assert set(published) == MONITORING
    for ports in published.values():
        assert all(str(port).startswith("127.0.0.1:") for port in ports)


def test_compose_start_order_waits_for_healthy_dependencies() -> None:
    services = _compose()["services"]
    graph: dict[str, list[str]] = {}
    for name in SERVICES:
        depends = services[name].get("depends_on", {})
        assert isinstance(depends, dict)
        for target, cond in depends.items():
            assert target in services
            assert cond == {"condition": "service_healthy"}, (name, target)
        graph[name] = list(depends)
    assert {"nats", "redis"} <= set(graph["table"])
    assert {"lobby", "table"} <= set(graph["gateway"])

    def visit(node: str, path: tuple[str, ...]) -> None:
        assert node not in path, f"depends_on cycle: {' -> '.join((*path, node))}"
        for nxt in graph.get(node, []):
            visit(nxt, (*path, node))

    for name in graph:
        visit(name, ())


def _docker_compose_available() -> bool:
    if shutil.which("docker") is None:
        return False
    probe = subprocess.run(["docker", "compose", "version"], capture_output=True, check=False)
    return probe.returncode == 0


def test_docker_compose_config_accepts_the_file() -> None:
    """The real tool on top of the schema check above, where the compose plugin exists."""
    if not _docker_compose_available():
        pytest.skip("the docker compose plugin is not installed (the schema test still runs)")
    # `config` only parses and interpolates: no Docker daemon needed
    result = subprocess.run(
        ["docker", "compose", "-f", str(COMPOSE), "--profile", "monitoring", "config", "--quiet"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
