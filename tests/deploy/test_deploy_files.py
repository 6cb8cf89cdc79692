"""docker-compose.yml, deploy/k8s and deploy/Dockerfile describe the same six services, wired by
the agreed HOLDEM_* variables, with gRPC health checks. Pure file checks, plus the real tools'
own validation (`docker compose config`, `kubectl kustomize`) where they are installed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from libs.devstack import SERVICE_NAMES
from libs.platform.config import DEFAULT_PORTS

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
K8S = ROOT / "deploy" / "k8s"
DOCKERFILE = ROOT / "deploy" / "Dockerfile"


def _compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return data


def _port(address: str) -> int:
    return int(address.rsplit(":", 1)[1])


# --- docker compose ---------------------------------------------------------------------------


def test_compose_has_infra_and_six_services_with_healthchecks() -> None:
    services = _compose()["services"]
    assert set(services) == {"nats", "redis", *SERVICE_NAMES}
    for name, svc in services.items():
        assert svc.get("healthcheck", {}).get("test"), f"{name} has no healthcheck"
    assert "-js" in services["nats"]["command"]


def test_compose_services_listen_and_are_probed_on_their_default_port() -> None:
    services = _compose()["services"]
    for name in SERVICE_NAMES:
        svc = services[name]
        port = DEFAULT_PORTS[name]
        assert svc["command"] == [f"services.{name}"]
        assert _port(svc["environment"]["HOLDEM_LISTEN"]) == port
        test = svc["healthcheck"]["test"]
        assert test[:4] == ["CMD", "python", "-m", "libs.platform.healthcheck"]
        assert _port(test[4]) == port
        assert svc["read_only"] is True
        assert svc["user"] != "root" and not str(svc["user"]).startswith("0")


def test_compose_env_wires_every_service_to_the_others() -> None:
    services = _compose()["services"]
    for name in SERVICE_NAMES:
        env = services[name]["environment"]
        assert env["HOLDEM_NATS_URL"] == "nats://nats:4222"
        assert env["HOLDEM_REDIS_URL"] == "redis://redis:6379/0"
        for other in SERVICE_NAMES:
            assert env[f"HOLDEM_{other.upper()}_ADDR"] == f"{other}:{DEFAULT_PORTS[other]}"


def test_compose_start_order_waits_for_healthy_dependencies() -> None:
    services = _compose()["services"]
    graph: dict[str, list[str]] = {}
    for name in SERVICE_NAMES:
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
    if not _docker_compose_available():
        pytest.skip("the docker compose plugin is not installed (`docker compose version` fails)")
    # `config` only parses and interpolates: no Docker daemon needed
    result = subprocess.run(
        ["docker", "compose", "-f", str(COMPOSE), "config", "--quiet"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr


# --- Dockerfile -------------------------------------------------------------------------------


def test_dockerfile_is_multi_stage_non_root_and_runs_a_module() -> None:
    text = DOCKERFILE.read_text()
    lines = [line.strip() for line in text.splitlines()]
    assert sum(line.startswith("FROM ") for line in lines) >= 2
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users and users[-1].split(":")[0] not in ("root", "0")
    assert 'ENTRYPOINT ["python", "-m"]' in lines
    assert "grpc_tools.protoc" in text


# --- Kubernetes -------------------------------------------------------------------------------


def _k8s_docs() -> list[dict[str, Any]]:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    docs: list[dict[str, Any]] = []
    for resource in kustomization["resources"]:
        docs += [d for d in yaml.safe_load_all((K8S / resource).read_text()) if d]
    return docs


def _find(docs: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    for doc in docs:
        if doc["kind"] == kind and doc["metadata"]["name"] == name:
            return doc
    raise AssertionError(f"no {kind} {name} in deploy/k8s")


def test_k8s_has_a_deployment_and_service_per_service_with_grpc_probes() -> None:
    docs = _k8s_docs()
    for name in SERVICE_NAMES:
        port = DEFAULT_PORTS[name]
        service = _find(docs, "Service", name)
        assert [p["port"] for p in service["spec"]["ports"]] == [port]
        pod = _find(docs, "Deployment", name)["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True
        (container,) = pod["containers"]
        assert container["args"] == [f"services.{name}"]
        assert {"name": "HOLDEM_LISTEN", "value": f"0.0.0.0:{port}"} in container["env"]
        for probe in ("readinessProbe", "livenessProbe"):
            assert container[probe]["grpc"]["port"] == port
        assert container["securityContext"]["readOnlyRootFilesystem"] is True
        assert container["resources"]["limits"]["memory"]
        assert container["resources"]["limits"]["cpu"]


def test_k8s_runs_nats_with_jetstream_in_a_statefulset_and_redis() -> None:
    docs = _k8s_docs()
    nats = _find(docs, "StatefulSet", "nats")
    assert nats["spec"]["volumeClaimTemplates"]
    assert "jetstream" in _find(docs, "ConfigMap", "nats-config")["data"]["nats.conf"]
    _find(docs, "Deployment", "redis")
    config = _find(docs, "ConfigMap", "holdem-config")["data"]
    for name in SERVICE_NAMES:
        assert config[f"HOLDEM_{name.upper()}_ADDR"] == f"{name}:{DEFAULT_PORTS[name]}"
    for doc in docs:
        if doc["kind"] in ("Deployment", "StatefulSet"):
            spec = doc["spec"]["template"]["spec"]
            assert spec["securityContext"]["runAsNonRoot"] is True, doc["metadata"]["name"]
            for container in spec["containers"]:
                assert container["securityContext"]["readOnlyRootFilesystem"] is True


def test_kustomize_builds_the_manifests() -> None:
    if shutil.which("kubectl"):
        argv = ["kubectl", "kustomize", str(K8S)]
    elif shutil.which("kustomize"):
        argv = ["kustomize", "build", str(K8S)]
    else:
        pytest.skip("neither kubectl nor kustomize is installed")
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    kinds = [d["kind"] for d in yaml.safe_load_all(result.stdout) if d]
    assert kinds.count("Deployment") == len(SERVICE_NAMES) + 1  # + redis
    assert all(
        d["metadata"].get("namespace") == "holdem"
        for d in yaml.safe_load_all(result.stdout)
        if d and d["kind"] != "Namespace"
    )
