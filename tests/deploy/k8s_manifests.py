"""The Kubernetes manifests as the deploy tests read them: each tree (base, dev, production)
rendered once, and small lookups over the rendered set."""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping
from typing import Any

from tests.deploy.expected import (
    DEPLOY,
)
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
