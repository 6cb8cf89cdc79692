"""Referential integrity of a rendered set of Kubernetes manifests: everything a manifest names
must be in the set (or be an image this project builds or pins).

``problems(manifests, images, external)`` lists, one line each, every reference that does not
resolve: a container image that is neither the project's nor a pinned base; a Service whose
selector picks no pod or whose target port no picked container declares; a probe on a port its
container does not declare; a Secret or ConfigMap (envFrom, env valueFrom, volume) or a key of
one that is not in the set, unless it is one of ``external`` (created out of band, as the
production overlay's Secrets are); a NetworkPolicy, PodDisruptionBudget or StatefulSet
``serviceName`` that selects no pod or names no headless Service; a NetworkPolicy port no
selected pod declares; a ``HOLDEM_*_ADDR`` or a nats:// / redis:// URL (in env or in a Secret)
whose host is no Service or whose port that Service does not serve.

What this cannot say without a cluster: whether the images can be pulled, whether the CNI
enforces the policies, whether the probes pass, whether the pods fit, whether admission
(PodSecurity ``restricted``) accepts them, whether DNS and storage classes exist.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Iterator, Mapping
from typing import Any
from urllib.parse import urlsplit

Manifest = dict[str, Any]
WORKLOADS = ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job")


def _name(manifest: Manifest) -> str:
    return str(manifest["metadata"]["name"])


def _namespace(manifest: Manifest) -> str:
    return str(manifest["metadata"].get("namespace", "default"))


def _pods(manifests: Iterable[Manifest]) -> Iterator[tuple[Manifest, dict[str, Any]]]:
    """(workload, pod template) of every workload."""
    for manifest in manifests:
        if manifest["kind"] in WORKLOADS:
            yield manifest, manifest["spec"]["template"]


def _containers(template: Mapping[str, Any]) -> list[dict[str, Any]]:
    spec = template["spec"]
    return [*spec.get("initContainers", []), *spec.get("containers", [])]


def _selects(selector: Mapping[str, Any] | None, labels: Mapping[str, str]) -> bool:
    """Does a label selector (matchLabels / matchExpressions, or a plain map) pick ``labels``?"""
    if selector is None:
        return False
    plain = {k: v for k, v in selector.items() if k not in ("matchLabels", "matchExpressions")}
    wanted = {**plain, **selector.get("matchLabels", {})}
    if any(labels.get(key) != value for key, value in wanted.items()):
        return False
    for expression in selector.get("matchExpressions", []):
        key, operator, values = expression["key"], expression["operator"], expression.get("values")
        present = key in labels
        if operator == "In" and labels.get(key) not in values:
            return False
        if operator == "NotIn" and present and labels[key] in values:
            return False
        if operator == "Exists" and not present:
            return False
        if operator == "DoesNotExist" and present:
            return False
    return True


def _selected(manifests: list[Manifest], namespace: str, selector: Any) -> list[dict[str, Any]]:
    return [
        template
        for workload, template in _pods(manifests)
        if _namespace(workload) == namespace
        and _selects(selector, template["metadata"].get("labels", {}))
    ]


def _declares(container: Mapping[str, Any], port: int | str) -> bool:
    for declared in container.get("ports", []):
        if port in (declared["containerPort"], declared.get("name")):
            return True
    return False


def _data(manifest: Manifest) -> dict[str, str]:
    """A Secret's or ConfigMap's keys and values (a Secret's data decoded)."""
    values = dict(manifest.get("stringData", {}))
    for key, value in manifest.get("data", {}).items():
        values[key] = (
            base64.b64decode(value).decode() if manifest["kind"] == "Secret" else str(value)
        )
    return values


def problems(
    manifests: list[Manifest],
    images: Iterable[str],
    external: Iterable[tuple[str, str]] = (),
) -> list[str]:
    """Every unresolved reference in ``manifests`` (see the module's doc). ``images``: the image
    references allowed; ``external``: (kind, name) of Secrets/ConfigMaps made out of band."""
    found: list[str] = []
    allowed_images = set(images)
    outside = set(external)
    stores = {
        (m["kind"], _namespace(m), _name(m)): _data(m)
        for m in manifests
        if m["kind"] in ("Secret", "ConfigMap")
    }
    services = {(_namespace(m), _name(m)): m for m in manifests if m["kind"] == "Service"}

    def store(kind: str, namespace: str, name: str, key: str | None, where: str) -> None:
        if (kind, name) in outside:
            return
        data = stores.get((kind, namespace, name))
        if data is None:
            found.append(f"{where}: {kind} {name} is not in the set")
        elif key is not None and key not in data:
            found.append(f"{where}: {kind} {name} has no key {key}")

    def address(host_port: str, namespace: str, where: str) -> None:
        host, _, port = host_port.rpartition(":")
        service = services.get((namespace, host.split(".")[0]))
        if service is None:
            found.append(f"{where}: {host_port}: no Service {host}")
        elif int(port) not in [p["port"] for p in service["spec"]["ports"]]:
            found.append(f"{where}: {host_port}: Service {host} does not serve port {port}")

    def value_refers(name: str, value: str, namespace: str, where: str) -> None:
        if value.startswith("$("):  # the pod's own address (downward API), no Service's
            return
        if name.endswith("_ADDR") and ":" in value:
            address(value, namespace, f"{where} {name}")
        if name.endswith("_URL") and value.startswith(("nats://", "redis://", "tls://")):
            for one in value.split(","):
                parts = urlsplit(one.strip())
                address(f"{parts.hostname}:{parts.port}", namespace, f"{where} {name}")

    for workload, template in _pods(manifests):
        namespace = _namespace(workload)
        label = f"{workload['kind']} {_name(workload)}"
        for container in _containers(template):
            where = f"{label} container {container['name']}"
            image = container.get("image", "")
            if image not in allowed_images:
                found.append(f"{where}: image {image!r} is neither built nor pinned here")
            for source in container.get("envFrom", []):
                for kind, field in (("Secret", "secretRef"), ("ConfigMap", "configMapRef")):
                    if field in source and not source[field].get("optional"):
                        store(kind, namespace, source[field]["name"], None, where)
                        for key, value in stores.get(
                            (kind, namespace, source[field]["name"]), {}
                        ).items():
                            value_refers(key, value, namespace, f"{where} ({kind})")
            for variable in container.get("env", []):
                ref = variable.get("valueFrom", {})
                for kind, field in (("Secret", "secretKeyRef"), ("ConfigMap", "configMapKeyRef")):
                    if field in ref and not ref[field].get("optional"):
                        store(kind, namespace, ref[field]["name"], ref[field]["key"], where)
                if "value" in variable:
                    value_refers(variable["name"], str(variable["value"]), namespace, where)
            for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
                check = container.get(probe)
                if check is None:
                    continue
                for handler in ("grpc", "httpGet", "tcpSocket"):
                    if handler in check and not _declares(container, check[handler]["port"]):
                        found.append(
                            f"{where}: {probe} port {check[handler]['port']} is not declared"
                        )
            mounts = {mount["name"] for mount in container.get("volumeMounts", [])}
            volumes = {volume["name"] for volume in template["spec"].get("volumes", [])}
            claims = {
                claim["metadata"]["name"]
                for claim in workload["spec"].get("volumeClaimTemplates", [])
            }
            for missing in sorted(mounts - volumes - claims):
                found.append(f"{where}: mounts volume {missing}, which the pod does not have")
        for volume in template["spec"].get("volumes", []):
            where = f"{label} volume {volume['name']}"
            for kind, field, key in (
                ("ConfigMap", "configMap", "name"),
                ("Secret", "secret", "secretName"),
            ):
                if field in volume and not volume[field].get("optional"):
                    store(kind, namespace, volume[field][key], None, where)
                    for item in volume[field].get("items", []):
                        store(kind, namespace, volume[field][key], item["key"], where)
        if workload["kind"] == "StatefulSet":
            governing = services.get((namespace, workload["spec"].get("serviceName", "")))
            if governing is None or governing["spec"].get("clusterIP") != "None":
                found.append(f"{label}: serviceName names no headless Service")
        if not _selects(workload["spec"]["selector"], template["metadata"].get("labels", {})):
            found.append(f"{label}: its selector does not pick its own pods")

    for (namespace, name), service in services.items():
        selector = service["spec"].get("selector")
        picked = _selected(manifests, namespace, selector)
        if not picked:
            found.append(f"Service {name}: its selector picks no pod")
        for port in service["spec"]["ports"]:
            target = port.get("targetPort", port["port"])
            for template in picked:
                if not any(_declares(c, target) for c in _containers(template)):
                    found.append(f"Service {name}: port {port['port']} -> {target} not declared")

    for manifest in manifests:
        namespace, name = _namespace(manifest), _name(manifest)
        if manifest["kind"] == "PodDisruptionBudget" and not _selected(
            manifests, namespace, manifest["spec"]["selector"]
        ):
            found.append(f"PodDisruptionBudget {name}: picks no pod")
        if manifest["kind"] == "Secret":
            for key, value in _data(manifest).items():
                value_refers(key, value, namespace, f"Secret {name}")
        if manifest["kind"] != "NetworkPolicy":
            continue
        targets = _selected(manifests, namespace, manifest["spec"]["podSelector"] or {})
        if not targets:
            found.append(f"NetworkPolicy {name}: its podSelector picks no pod")
        for rule in manifest["spec"].get("ingress", []):
            for peer in rule.get("from", []):
                within = "podSelector" in peer and "namespaceSelector" not in peer
                if within and not _selected(manifests, namespace, peer["podSelector"]):
                    found.append(f"NetworkPolicy {name}: a peer podSelector picks no pod")
            for port in rule.get("ports", []):
                # a rule's ports are alternatives: each must be some selected pod's
                if not any(_declares(c, port["port"]) for t in targets for c in _containers(t)):
                    found.append(f"NetworkPolicy {name}: port {port['port']} no pod declares")
    return found
