"""deploy/k8s: the base and both overlays render (tests/deploy/kustomize.py, checked against
`kubectl kustomize` where it exists), every manifest validates against the Kubernetes schema
(kubernetes-validate, offline), and what the manifests promise holds: gRPC health probes,
resources, locked-down pods, disruption budgets, network policies that let only the gateway be
reached from outside, a 3-node JetStream cluster, and each service's environment made of exactly
the variables it validates at start."""

from __future__ import annotations

import copy
import functools
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import kubernetes_validate
import pytest
import yaml

from libs.devstack import find_nats_server
from libs.devstack.access import (
    NATS_PERMISSIONS,
    REDIS_KEYS,
    nats_password_variable,
    nats_users_template,
    redis_user_rule,
)
from libs.platform.identity import IDENTITIES, PublicKeys, ServiceKey
from tests.deploy.expected import (
    DEFAULT_METRICS_PORTS,
    DEFAULT_PORTS,
    DEPLOY,
    SERVICES,
    shared_variables,
    variables,
)
from tests.deploy.kubectl import kubectl
from tests.deploy.kustomize import Manifest, render

K8S = DEPLOY / "k8s"
TREES = {"base": K8S / "base", "dev": K8S / "overlays" / "dev"}
TREES["production"] = K8S / "overlays" / "production"
OVERLAYS = ("dev", "production")
#: The oldest Kubernetes the manifests are validated for (gRPC probes are GA since 1.27).
KUBERNETES_VERSION = "1.30"
NAMESPACE = "holdem"


#: The public service-token keys of every identity (dev: in git; production: out of band).
PUBLIC_KEYS_CONFIG = "holdem-service-public-keys"


def service_secret(name: str) -> str:
    """The Secret with service ``name``'s credentials (its NATS and Redis URLs)."""
    return f"holdem-{name}-secrets"


@functools.cache
def _rendered(tree: str) -> tuple[Manifest, ...]:
    return tuple(render(TREES[tree]))


def rendered(tree: str) -> list[Manifest]:
    return copy.deepcopy(list(_rendered(tree)))


def find(manifests: list[Manifest], kind: str, name: str) -> Manifest:
    for manifest in manifests:
        if manifest["kind"] == kind and manifest["metadata"]["name"] == name:
            return manifest
    raise AssertionError(f"no {kind} {name}")


def of_kind(manifests: list[Manifest], kind: str) -> list[Manifest]:
    return [m for m in manifests if m["kind"] == kind]


def pod_spec(workload: Manifest) -> dict[str, Any]:
    spec: dict[str, Any] = workload["spec"]["template"]["spec"]
    return spec


# ---- rendering and the schema ---------------------------------------------------------------


@pytest.mark.parametrize("tree", OVERLAYS)
def test_each_overlay_renders_every_part_into_the_namespace(tree: str) -> None:
    manifests = rendered(tree)
    deployments = {m["metadata"]["name"] for m in of_kind(manifests, "Deployment")}
    assert deployments == {*SERVICES, "redis"}
    assert {m["metadata"]["name"] for m in of_kind(manifests, "StatefulSet")} == {"nats"}
    assert of_kind(manifests, "NetworkPolicy")
    for manifest in manifests:
        if manifest["kind"] != "Namespace":
            assert manifest["metadata"]["namespace"] == NAMESPACE, manifest["metadata"]["name"]
        assert manifest["metadata"]["labels"]["app.kubernetes.io/part-of"] == "holdem"


@pytest.mark.parametrize("tree", list(TREES))
def test_every_manifest_validates_against_the_kubernetes_schema(tree: str) -> None:
    for manifest in rendered(tree):
        kubernetes_validate.validate(manifest, KUBERNETES_VERSION, strict=True)


def test_the_schema_check_catches_mistakes() -> None:
    table = find(rendered("dev"), "Deployment", "table")
    typo = copy.deepcopy(table)
    container = pod_spec(typo)["containers"][0]
    container["readinessProbe"]["grcp"] = container["readinessProbe"].pop("grpc")
    wrong_type = copy.deepcopy(table)
    wrong_type["spec"]["replicas"] = "three"
    for bad in (typo, wrong_type):
        with pytest.raises(kubernetes_validate.ValidationError):
            kubernetes_validate.validate(bad, KUBERNETES_VERSION, strict=True)


def _kustomize_command() -> list[str]:
    return [kubectl(), "kustomize"]


def _by_identity(manifests: list[Manifest]) -> dict[tuple[str, str], Manifest]:
    return {(m["kind"], m["metadata"]["name"]): m for m in manifests}


@pytest.mark.parametrize("tree", list(TREES))
def test_the_renderer_agrees_with_kustomize(tree: str) -> None:
    """Our renderer (used by every test here) against the real one (the pinned kubectl's)."""
    command = _kustomize_command()
    result = subprocess.run(
        [*command, str(TREES[tree])], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    real = [doc for doc in yaml.safe_load_all(result.stdout) if doc]
    assert _by_identity(rendered(tree)) == _by_identity(real)


# ---- workloads --------------------------------------------------------------------------------


@pytest.mark.parametrize("tree", OVERLAYS)
def test_services_are_probed_on_grpc_health_sized_and_locked_down(tree: str) -> None:
    manifests = rendered(tree)
    for name in SERVICES:
        port, metrics_port = DEFAULT_PORTS[name], DEFAULT_METRICS_PORTS[name]
        service = find(manifests, "Service", name)
        assert [(p["name"], p["port"]) for p in service["spec"]["ports"]] == [
            ("grpc", port),
            ("metrics", metrics_port),
        ]
        deployment = find(manifests, "Deployment", name)
        template = deployment["spec"]["template"]
        annotations = template["metadata"]["annotations"]
        assert annotations["prometheus.io/scrape"] == "true"
        assert annotations["prometheus.io/port"] == str(metrics_port)
        pod = template["spec"]
        assert pod["automountServiceAccountToken"] is False
        (container,) = pod["containers"]
        assert container["args"] == [f"services.{name}"]
        env = {e["name"]: e.get("value") for e in container["env"]}
        assert env["HOLDEM_LISTEN"] == f"0.0.0.0:{port}"
        assert env["HOLDEM_METRICS_LISTEN"] == f"0.0.0.0:{metrics_port}"
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        assert ports == {"grpc": port, "metrics": metrics_port}
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            assert container[probe]["grpc"] == {"port": port}, (name, probe)
        for kind in ("requests", "limits"):
            assert set(container["resources"][kind]) == {"cpu", "memory"}, (name, kind)


@pytest.mark.parametrize("tree", OVERLAYS)
def test_every_pod_runs_as_non_root_with_a_read_only_root_filesystem(tree: str) -> None:
    for workload in [
        *of_kind(rendered(tree), "Deployment"),
        *of_kind(rendered(tree), "StatefulSet"),
    ]:
        name = workload["metadata"]["name"]
        spec = pod_spec(workload)
        assert spec["securityContext"]["runAsNonRoot"] is True, name
        assert spec["securityContext"]["runAsUser"] != 0, name
        assert spec["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}, name
        for container in spec["containers"]:
            context = container["securityContext"]
            assert context["readOnlyRootFilesystem"] is True, name
            assert context["allowPrivilegeEscalation"] is False, name
            assert context["capabilities"] == {"drop": ["ALL"]}, name
            assert set(container["resources"]["limits"]) == {"cpu", "memory"}, name


@pytest.mark.parametrize("tree", OVERLAYS)
def test_each_replicated_workload_has_a_disruption_budget_for_its_pods(tree: str) -> None:
    manifests = rendered(tree)
    budgets = of_kind(manifests, "PodDisruptionBudget")
    for name in (*SERVICES, "nats"):
        kind = "StatefulSet" if name == "nats" else "Deployment"
        labels = find(manifests, kind, name)["spec"]["template"]["metadata"]["labels"]
        (budget,) = [b for b in budgets if selects(b["spec"]["selector"], labels)]
        assert budget["spec"]["maxUnavailable"] == 1, name


def test_production_runs_more_replicas_and_bigger_volumes_than_dev() -> None:
    dev, production = rendered("dev"), rendered("production")

    def replicas(manifests: list[Manifest], name: str) -> int:
        count: int = find(manifests, "Deployment", name)["spec"]["replicas"]
        return count

    assert all(replicas(dev, name) == 1 for name in SERVICES)
    # every service, the lobby too (its replicas share the stores: docs/lobby.md)
    for name in ("gateway", "lobby", "table", "dealer", "evaluator", "ai"):
        assert replicas(production, name) >= 2, name

    def storage(manifests: list[Manifest]) -> str:
        (claim,) = find(manifests, "StatefulSet", "nats")["spec"]["volumeClaimTemplates"]
        size: str = claim["spec"]["resources"]["requests"]["storage"]
        return size

    assert (storage(dev), storage(production)) == ("1Gi", "50Gi")
    images = {
        c["image"]
        for d in of_kind(production, "Deployment")
        if d["metadata"]["name"] in SERVICES
        for c in pod_spec(d)["containers"]
    }
    assert images == {"registry.example.com/holdem:0.1.0"}


# ---- configuration: one source of truth -------------------------------------------------------


def _secret_keys(name: str = "table") -> set[str]:
    secret = find(rendered("dev"), "Secret", service_secret(name))
    return set(secret["stringData"])


def _public_keys_config() -> dict[str, str]:
    data: dict[str, str] = find(rendered("dev"), "ConfigMap", PUBLIC_KEYS_CONFIG)["data"]
    return data


def _environment(manifests: list[Manifest], container: dict[str, Any]) -> set[str]:
    names = {e["name"] for e in container.get("env", [])}
    for source in container.get("envFrom", []):
        if source.get("configMapRef", {}).get("name") == PUBLIC_KEYS_CONFIG:
            names |= set(_public_keys_config())  # production creates it out of band
        elif "configMapRef" in source:
            names |= set(find(manifests, "ConfigMap", source["configMapRef"]["name"])["data"])
        else:
            assert source["secretRef"]["name"] == service_secret(container["name"])
            names |= _secret_keys(container["name"])
    return names


@pytest.mark.parametrize("tree", OVERLAYS)
def test_each_service_gets_exactly_the_variables_it_validates(tree: str) -> None:
    manifests = rendered(tree)
    for name in SERVICES:
        (container,) = pod_spec(find(manifests, "Deployment", name))["containers"]
        assert _environment(manifests, container) == variables(name), name
    shared = set(find(manifests, "ConfigMap", "holdem-config")["data"])
    public = set(_public_keys_config())
    assert shared | public | _secret_keys() == shared_variables()
    assert not shared & _secret_keys() and not public & (shared | _secret_keys())


def test_each_service_secret_holds_its_own_service_key_and_no_other() -> None:
    """Per-service keys (libs/platform/identity.py): the Secret of a service has the one private
    key whose public half the shared ConfigMap lists under that service, and no other identity's;
    the public keys are in a ConfigMap, never next to a private key."""
    manifests = rendered("dev")
    public = PublicKeys.parse(_public_keys_config()["HOLDEM_SERVICE_PUBLIC_KEYS"])
    assert public.identities() == set(IDENTITIES)
    seen = set()
    for name in SERVICES:
        secret = find(manifests, "Secret", service_secret(name))["stringData"]
        key = ServiceKey.parse(secret["HOLDEM_SERVICE_KEY"])
        assert public.holds(name, key), name
        assert not any(public.holds(other, key) for other in IDENTITIES if other != name), name
        assert "HOLDEM_SERVICE_PUBLIC_KEYS" not in secret and "HOLDEM_SERVICE_KEYS" not in secret
        seen.add(secret["HOLDEM_SERVICE_KEY"])
    assert len(seen) == len(SERVICES)
    for deployment in of_kind(manifests, "Deployment"):
        (container,) = pod_spec(deployment)["containers"]
        refs = [s.get("secretRef", s.get("configMapRef")) for s in container.get("envFrom", [])]
        if deployment["metadata"]["name"] in SERVICES:
            assert {"name": PUBLIC_KEYS_CONFIG} in refs


def test_each_service_connects_as_its_own_nats_and_redis_user() -> None:
    """The users of `holdem stack up` (libs/devstack/access.py): each service's Secret names its
    own user (none where it has none), nats-server loads the generated users file with the
    passwords of holdem-nats-users, redis-server one --user rule per service."""
    manifests = rendered("dev")
    nats_passwords = find(manifests, "Secret", "holdem-nats-users")["stringData"]
    redis_passwords = find(manifests, "Secret", "holdem-redis-users")["stringData"]
    for name in SERVICES:
        urls = find(manifests, "Secret", service_secret(name))["stringData"]
        nats_user = urlsplit(urls["HOLDEM_NATS_URL"])
        redis_user = urlsplit(urls["HOLDEM_REDIS_URL"])
        assert nats_user.username == (name if name in NATS_PERMISSIONS else None), name
        assert redis_user.username == (name if name in REDIS_KEYS else None), name
        if nats_user.username:
            assert nats_user.password == nats_passwords[nats_password_variable(name)]
        if redis_user.username:
            assert redis_user.password == redis_passwords[f"HOLDEM_REDIS_{name.upper()}_PASSWORD"]
    config = find(manifests, "ConfigMap", "nats-config")["data"]
    assert config["holdem-users.conf"] == nats_users_template()
    assert "include ./holdem-users.conf" in config["nats.conf"]
    nats = pod_spec(find(manifests, "StatefulSet", "nats"))["containers"][0]
    assert {"secretRef": {"name": "holdem-nats-users"}} in nats["envFrom"]
    redis = pod_spec(find(manifests, "Deployment", "redis"))["containers"][0]
    assert {"secretRef": {"name": "holdem-redis-users"}} in redis["envFrom"]
    rules = " ".join(redis["args"]).split(" --user ")[1:]
    assert rules == [
        "default off",
        *(
            redis_user_rule(user, f"$(HOLDEM_REDIS_{user.upper()}_PASSWORD)").removeprefix("user ")
            for user in REDIS_KEYS
        ),
    ]


def test_the_secret_comes_from_git_only_in_dev() -> None:
    assert of_kind(rendered("dev"), "Secret")
    assert of_kind(rendered("production"), "Secret") == []
    assert of_kind(rendered("base"), "Secret") == []
    # the public keys are bound to the private ones: they come out of band with them
    for tree in ("production", "base"):
        names = {m["metadata"]["name"] for m in of_kind(rendered(tree), "ConfigMap")}
        assert PUBLIC_KEYS_CONFIG not in names, tree


# ---- network policies -----------------------------------------------------------------------


def selects(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """Kubernetes label-selector semantics (matchLabels and matchExpressions)."""
    if any(labels.get(k) != v for k, v in selector.get("matchLabels", {}).items()):
        return False
    for expression in selector.get("matchExpressions", []):
        key, operator = expression["key"], expression["operator"]
        values = expression.get("values", [])
        matched = {
            "In": key in labels and labels[key] in values,
            "NotIn": key not in labels or labels[key] not in values,
            "Exists": key in labels,
            "DoesNotExist": key not in labels,
        }[operator]
        if not matched:
            return False
    return True


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
    "gateway": {"lobby", "table", "nats"},
    "lobby": {"table", "nats"},
    "table": {"dealer", "evaluator", "ai", "nats", "redis"},
    "dealer": {"redis"},
    "evaluator": set(),
    "ai": {"evaluator"},
}
SERVICE_PORTS = {**DEFAULT_PORTS, "nats": 4222, "redis": 6379}


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
        assert reachable == {("gateway", DEFAULT_PORTS["gateway"])}, source


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
    assert reachable == metrics | {("gateway", DEFAULT_PORTS["gateway"])}


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
