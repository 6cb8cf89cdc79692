"""deploy/k8s's network: policies that let only the gateway be reached from outside, Prometheus
scrape every service and each service reach exactly what it calls; and NATS as a 3-node
JetStream cluster whose rendered configuration the real nats-server accepts."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from libs.devstack import find_nats_server
from libs.devstack.access import (
    NATS_PERMISSIONS,
    nats_password_variable,
)
from tests.deploy.expected import (
    DEFAULT_METRICS_PORTS,
    DEFAULT_PORTS,
    SERVICES,
    WEB_PORT,
)
from tests.deploy.k8s_manifests import (
    NAMESPACE,
    OVERLAYS,
    find,
    of_kind,
    pod_spec,
    rendered,
    selects,
)
from tests.deploy.kustomize import Manifest
from tests.deploy.natsrun import served_jetstream

# ---- network policies -----------------------------------------------------------------------


#: A connection's source: its namespace's labels (None: outside the cluster) and its pod's.
Source = tuple[Mapping[str, str] | None, Mapping[str, str]]
OUTSIDE: Source = (None, {})
OTHER_NAMESPACE: Source = ({"kubernetes.io/metadata.name": "default"}, {"app": "curious"})
MONITORING: Source = (
    {"kubernetes.io/metadata.name": "monitoring"},
    {"app.kubernetes.io/name": "prometheus"},
)


def in_namespace(name: str) -> Source:
    return {"kubernetes.io/metadata.name": NAMESPACE}, {"app.kubernetes.io/name": name}


def _peer_admits(peer: Mapping[str, Any], source: Source) -> bool:
    namespace_labels, pod_labels = source
    if "ipBlock" in peer:
        return namespace_labels is None
    if namespace_labels is None:
        return False
    if "namespaceSelector" in peer:
        if not selects(peer["namespaceSelector"], namespace_labels):
            return False
    elif namespace_labels.get("kubernetes.io/metadata.name") != NAMESPACE:
        return False
    return selects(peer.get("podSelector", {}), pod_labels)


def admitted(policies: list[Manifest], pod: Mapping[str, str], port: int, source: Source) -> bool:
    """Whether the policies let ``source`` open ``port`` on a pod labelled ``pod``."""
    isolating = [
        p
        for p in policies
        if selects(p["spec"]["podSelector"], pod) and "Ingress" in p["spec"]["policyTypes"]
    ]
    if not isolating:
        return True
    for policy in isolating:
        for rule in policy["spec"].get("ingress", []):
            ports = [p["port"] for p in rule.get("ports", [])]
            if ports and port not in ports:
                continue
            peers = rule.get("from", [])
            if not peers or any(_peer_admits(peer, source) for peer in peers):
                return True
    return False


def _pods(manifests: list[Manifest]) -> dict[str, tuple[dict[str, str], list[int]]]:
    """name -> (pod labels, container ports) of every workload."""
    pods = {}
    for workload in [*of_kind(manifests, "Deployment"), *of_kind(manifests, "StatefulSet")]:
        labels = workload["spec"]["template"]["metadata"]["labels"]
        ports = [p["containerPort"] for c in pod_spec(workload)["containers"] for p in c["ports"]]
        pods[workload["metadata"]["name"]] = (labels, ports)
    return pods


#: Who calls whom (ARCHITECTURE.md, "Services": talks to), on its gRPC or client port.
CALLS = {
    "gateway": {"lobby", "table", "tournament", "nats"},
    "lobby": {"table", "nats"},
    "table": {"dealer", "evaluator", "ai", "nats", "redis"},
    "dealer": {"redis"},
    "evaluator": set(),
    "ai": {"evaluator"},
    "tournament": {"lobby", "table", "nats", "redis"},
}
SERVICE_PORTS = {**DEFAULT_PORTS, "nats": 4222, "redis": 6379}
#: What anyone may reach: the gateway's gRPC port and its HTTP port (browsers).
GATEWAY_PUBLIC = {("gateway", DEFAULT_PORTS["gateway"]), ("gateway", WEB_PORT)}


@pytest.mark.parametrize("tree", OVERLAYS)
def test_only_the_gateway_is_reachable_from_outside(tree: str) -> None:
    manifests = rendered(tree)
    policies = of_kind(manifests, "NetworkPolicy")
    for source in (OUTSIDE, OTHER_NAMESPACE):
        reachable = {
            (name, port)
            for name, (labels, ports) in _pods(manifests).items()
            for port in ports
            if admitted(policies, labels, port, source)
        }
        assert reachable == GATEWAY_PUBLIC, source


@pytest.mark.parametrize("tree", OVERLAYS)
def test_prometheus_may_scrape_every_service_and_nothing_else(tree: str) -> None:
    manifests = rendered(tree)
    policies = of_kind(manifests, "NetworkPolicy")
    reachable = {
        (name, port)
        for name, (labels, ports) in _pods(manifests).items()
        for port in ports
        if admitted(policies, labels, port, MONITORING)
    }
    metrics = {(name, DEFAULT_METRICS_PORTS[name]) for name in SERVICES}
    assert reachable == metrics | GATEWAY_PUBLIC


@pytest.mark.parametrize("tree", OVERLAYS)
def test_inside_the_namespace_each_service_reaches_exactly_what_it_calls(tree: str) -> None:
    manifests = rendered(tree)
    policies = of_kind(manifests, "NetworkPolicy")
    pods = _pods(manifests)
    for caller, callees in CALLS.items():
        for target, port in SERVICE_PORTS.items():
            expected = target in callees or target == "gateway"
            labels = pods[target][0]
            got = admitted(policies, labels, port, in_namespace(caller))
            assert got == expected, f"{caller} -> {target}:{port} admitted={got}"
    nats = pods["nats"][0]
    assert admitted(policies, nats, 6222, in_namespace("nats"))  # cluster routes
    assert not admitted(policies, nats, 6222, in_namespace("table"))


# ---- NATS -------------------------------------------------------------------------------------


@pytest.mark.parametrize("tree", OVERLAYS)
def test_nats_is_a_three_node_jetstream_cluster_with_a_valid_config(
    tree: str, tmp_path: Path
) -> None:
    manifests = rendered(tree)
    nats = find(manifests, "StatefulSet", "nats")
    assert nats["spec"]["replicas"] == 3
    assert nats["spec"]["volumeClaimTemplates"]
    conf = find(manifests, "ConfigMap", "nats-config")["data"]["nats.conf"]
    assert "jetstream" in conf
    headless = nats["spec"]["serviceName"]
    routes = {f"nats-route://nats-{i}.{headless}:6222" for i in range(3)}
    assert all(route in conf for route in routes)
    # the real nats-server checks the rendered file, with the environment the pods give it
    limits = find(manifests, "ConfigMap", "nats-limits")["data"]
    path = tmp_path / "nats.conf"
    path.write_text(conf.replace("store_dir: /data", f"store_dir: {tmp_path / 'data'}"))
    users = find(manifests, "ConfigMap", "nats-config")["data"]["holdem-users.conf"]
    (tmp_path / "holdem-users.conf").write_text(users)
    passwords = {nats_password_variable(u): "x" for u in [*NATS_PERMISSIONS, "admin"]}
    result = subprocess.run(
        [find_nats_server(), "-t", "-c", str(path)],
        env={**limits, **passwords, "SERVER_NAME": "nats-0"},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # ...and run with it fsyncs every JetStream write before acknowledging it (natsconf)
    env = {**limits, **passwords, "SERVER_NAME": "nats-0"}
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    assert served_jetstream(path, run_dir, env).get("sync_always") is True
