"""deploy/k8s: the base and both overlays render (tests/deploy/kustomize.py, checked against
`kubectl kustomize` where it exists), every manifest validates against the Kubernetes schema
(kubernetes-validate, offline), and what the manifests promise holds: gRPC health probes,
resources, locked-down pods, disruption budgets, network policies that let only the gateway be
reached from outside, a 3-node JetStream cluster, and each service's environment made of exactly
the variables it validates at start."""

from __future__ import annotations

import copy
import subprocess
from typing import Any
from urllib.parse import urlsplit

import kubernetes_validate
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
from tests.deploy.expected import (
    DEFAULT_METRICS_PORTS,
    DEFAULT_PORTS,
    SERVICES,
    WEB_PORT,
    WEB_ROOT,
    shared_variables,
    variables,
)
from tests.deploy.k8s_manifests import (
    KUBERNETES_VERSION,
    NAMESPACE,
    OVERLAYS,
    PUBLIC_KEYS_CONFIG,
    TREES,
    find,
    of_kind,
    pod_spec,
    rendered,
    selects,
    service_secret,
)
from tests.deploy.kubectl import kubectl
from tests.deploy.kustomize import Manifest


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
def test_the_gateway_serves_the_web_client_on_its_http_port(tree: str) -> None:
    """The HTTP port (the web client, Connect, gRPC-Web) is in the Service and the pod, serves
    the web client where the image keeps it (tests/deploy/test_dockerfile.py), and the startup
    probe gets the page there: that port starts after the gRPC port says SERVING
    (libs/platform/server.py), so the pod starts only when both serve and the image carries the
    web client (without it the page is a 404); readiness and liveness stay on gRPC health."""
    manifests = rendered(tree)
    service = find(manifests, "Service", "gateway")
    (http,) = [p for p in service["spec"]["ports"] if p["name"] == "http"]
    assert (http["port"], http["targetPort"], http["appProtocol"]) == (WEB_PORT, "http", "http")
    (container,) = pod_spec(find(manifests, "Deployment", "gateway"))["containers"]
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["HOLDEM_GATEWAY_HTTP_LISTEN"] == f"0.0.0.0:{WEB_PORT}"
    config = find(manifests, "ConfigMap", "holdem-gateway-config")["data"]
    assert config["HOLDEM_GATEWAY_WEB_ROOT"] == WEB_ROOT
    assert config["HOLDEM_GATEWAY_HTTP_ORIGINS"] == ""  # the page's own origin needs none
    assert container["startupProbe"]["httpGet"] == {"path": "/", "port": WEB_PORT}


@pytest.mark.parametrize("tree", OVERLAYS)
def test_services_are_probed_on_grpc_health_sized_and_locked_down(tree: str) -> None:
    manifests = rendered(tree)
    for name in SERVICES:
        port, metrics_port = DEFAULT_PORTS[name], DEFAULT_METRICS_PORTS[name]
        service = find(manifests, "Service", name)
        web = [("http", WEB_PORT)] if name == "gateway" else []  # test below
        assert [(p["name"], p["port"]) for p in service["spec"]["ports"]] == [
            ("grpc", port),
            ("metrics", metrics_port),
            *web,
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
        assert ports == {"grpc": port, "metrics": metrics_port, **dict(web)}
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            if (name, probe) != ("gateway", "startupProbe"):  # test below
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


def _downward(env: dict[str, Any]) -> bool:
    return not env["name"].startswith("HOLDEM_") and "fieldRef" in env.get("valueFrom", {})


def _environment(manifests: list[Manifest], container: dict[str, Any]) -> set[str]:
    # the downward API's inputs (the pod's IP for HOLDEM_TABLE_ADVERTISE_ADDR) are no settings
    names = {e["name"] for e in container.get("env", []) if not _downward(e)}
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
    # every service deployed here, and the tools; an identity no deployed service holds
    # (the tournament service's, until it is deployed) has no key here
    assert public.identities() == {*SERVICES, TOOLS}
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
