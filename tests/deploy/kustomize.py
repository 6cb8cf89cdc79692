"""Just enough kustomize to render deploy/k8s without the kustomize binary, so the manifest tests
never depend on it: ``resources`` (files and directories), ``namespace``, ``labels`` (without
selectors or templates), ``replicas``, ``images`` and ``patches`` that are JSON 6902 operations
(add, replace, remove) on targets chosen by kind, name (a regular expression, as kustomize reads
it) and label selector. Anything else in a kustomization.yaml is refused, so a new feature there
fails here loudly instead of rendering wrong; where ``kubectl`` exists, tests/deploy also checks
that this renders exactly what ``kubectl kustomize`` does. Transformers run in kustomize's order:
patches, namespace, labels, replicas, images.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import yaml

Manifest = dict[str, Any]

SUPPORTED = {
    "apiVersion",
    "kind",
    "resources",
    "namespace",
    "labels",
    "replicas",
    "images",
    "patches",
}
#: Kinds without a namespace among those deploy/k8s uses (kustomize leaves them alone).
CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding", "PersistentVolume"}
WORKLOADS = {"Deployment", "StatefulSet", "ReplicaSet", "DaemonSet"}


class UnsupportedKustomization(ValueError):
    pass


def render(directory: Path) -> list[Manifest]:
    """The manifests ``kubectl kustomize directory`` would print, in resource order."""
    kustomization: dict[str, Any] = yaml.safe_load((directory / "kustomization.yaml").read_text())
    unknown = set(kustomization) - SUPPORTED
    if unknown:
        raise UnsupportedKustomization(f"{directory}: {sorted(unknown)} not supported here")
    manifests: list[Manifest] = []
    for resource in kustomization.get("resources", []):
        path = directory / resource
        if path.is_dir():
            manifests += render(path)
        else:
            manifests += [doc for doc in yaml.safe_load_all(path.read_text()) if doc]
    for patch in kustomization.get("patches", []):
        _patch(manifests, patch)
    namespace = kustomization.get("namespace")
    for manifest in manifests:
        if namespace and manifest["kind"] not in CLUSTER_SCOPED:
            manifest["metadata"]["namespace"] = namespace
    for label in kustomization.get("labels", []):
        if label.get("includeSelectors") or label.get("includeTemplates"):
            raise UnsupportedKustomization("labels into selectors or templates")
        for manifest in manifests:
            manifest["metadata"].setdefault("labels", {}).update(label["pairs"])
    for replicas in kustomization.get("replicas", []):
        for manifest in manifests:
            if manifest["kind"] in WORKLOADS and manifest["metadata"]["name"] == replicas["name"]:
                manifest["spec"]["replicas"] = replicas["count"]
    for image in kustomization.get("images", []):
        for manifest in manifests:
            for container in _containers(manifest):
                _set_image(container, image)
    return manifests


def _containers(manifest: Manifest) -> list[dict[str, Any]]:
    if manifest["kind"] not in WORKLOADS:
        return []
    pod = manifest["spec"]["template"]["spec"]
    return [*pod.get("initContainers", []), *pod.get("containers", [])]


def _set_image(container: dict[str, Any], image: dict[str, Any]) -> None:
    name, tag = _split_image(container["image"])
    if name != image["name"]:
        return
    new_tag = image.get("newTag", tag)
    container["image"] = image.get("newName", name) + (f":{new_tag}" if new_tag else "")


def _split_image(image: str) -> tuple[str, str | None]:
    last = image.rsplit("/", 1)[-1]
    if ":" in last:
        name, tag = image.rsplit(":", 1)
        return name, tag
    return image, None


def _matches(manifest: Manifest, target: dict[str, Any]) -> bool:
    unknown = set(target) - {"kind", "name", "labelSelector"}
    if unknown:
        raise UnsupportedKustomization(f"patch target fields {sorted(unknown)}")
    if "kind" in target and manifest["kind"] != target["kind"]:
        return False
    if "name" in target and not re.fullmatch(target["name"], manifest["metadata"]["name"]):
        return False
    if "labelSelector" in target:
        labels = manifest["metadata"].get("labels", {})
        for requirement in target["labelSelector"].split(","):
            key, sep, value = requirement.partition("=")
            if sep != "=" or "!" in key:
                raise UnsupportedKustomization(f"label selector {requirement!r}")
            if labels.get(key.strip()) != value.strip():
                return False
    return True


def _patch(manifests: list[Manifest], patch: dict[str, Any]) -> None:
    if set(patch) != {"target", "patch"}:
        raise UnsupportedKustomization(f"patch with {sorted(patch)} (only inline JSON 6902)")
    operations = yaml.safe_load(patch["patch"])
    if not isinstance(operations, list):
        raise UnsupportedKustomization("strategic-merge patches")
    targets = [m for m in manifests if _matches(m, patch["target"])]
    if not targets:
        raise ValueError(f"patch target {patch['target']} matches nothing")
    for manifest in targets:
        for operation in operations:
            _apply(manifest, operation)


def _pointer(path: str) -> list[str]:
    if not path.startswith("/"):
        raise ValueError(f"JSON pointer {path!r} must start with /")
    return [part.replace("~1", "/").replace("~0", "~") for part in path[1:].split("/")]


def _apply(document: Manifest, operation: dict[str, Any]) -> None:
    *parents, last = _pointer(operation["path"])
    node: Any = document
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    op = operation["op"]
    if op == "remove":
        del node[int(last) if isinstance(node, list) else last]
        return
    value = copy.deepcopy(operation["value"])
    if isinstance(node, list):
        index = len(node) if last == "-" else int(last)
        if op == "add":
            node.insert(index, value)
        elif op == "replace":
            node[index] = value
        else:
            raise UnsupportedKustomization(f"JSON 6902 op {op!r}")
    elif op == "add" or (op == "replace" and last in node):
        node[last] = value
    elif op == "replace":
        raise ValueError(f"replace of missing {operation['path']}")
    else:
        raise UnsupportedKustomization(f"JSON 6902 op {op!r}")
