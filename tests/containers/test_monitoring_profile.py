"""The compose monitoring profile: Prometheus scrapes the six services (every target up, each
service's ``holdem_service_info`` there) and has loaded every alert rule of
deploy/monitoring/alerts.yaml, healthy. Grafana only where its public image can be had (it has
no stand-in: it is not in Debian); then its health and the provisioned dashboard are checked."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
import yaml

from deploy.containers.images import BASES, ROOT
from libs.platform.config import DEFAULT_METRICS_PORTS
from tests.conditions import wait_until_sync
from tests.containers.conftest import ComposeStack

pytestmark = [pytest.mark.containers, pytest.mark.integration, pytest.mark.timeout(300)]

ALERTS = ROOT / "deploy" / "monitoring" / "alerts.yaml"
#: Two scrape intervals (15 s) and the time for a first scrape: far more than it takes.
SCRAPED = 120.0


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def test_prometheus_scrapes_all_six_services(compose_stack: ComposeStack) -> None:
    expected = {f"{name}:{port}" for name, port in DEFAULT_METRICS_PORTS.items()}

    def all_up() -> bool:
        targets = get(f"{compose_stack.prometheus}/api/v1/targets")["data"]["activeTargets"]
        up = {t["labels"]["instance"] for t in targets if t["health"] == "up"}
        return up == expected and len(targets) == len(expected)

    wait_until_sync(all_up, "every service's metrics target to be up", SCRAPED)
    found = get(f"{compose_stack.prometheus}/api/v1/query?query=holdem_service_info")
    services = {series["metric"]["service"] for series in found["data"]["result"]}
    assert services == set(DEFAULT_METRICS_PORTS)


def test_prometheus_loaded_every_alert_rule(compose_stack: ComposeStack) -> None:
    declared = yaml.safe_load(ALERTS.read_text())["groups"]
    expected = {(g["name"], r["alert"]) for g in declared for r in g["rules"]}
    groups = get(f"{compose_stack.prometheus}/api/v1/rules")["data"]["groups"]
    loaded = {(g["name"], r["name"]) for g in groups for r in g["rules"]}
    assert loaded == expected
    for group in groups:
        for rule in group["rules"]:
            assert rule["health"] in ("ok", "unknown"), rule  # unknown: not evaluated yet


def test_grafana_serves_the_provisioned_dashboard(compose_stack: ComposeStack) -> None:
    if compose_stack.grafana is None:
        (grafana,) = [b for b in BASES if b.name == "grafana"]
        pytest.skip(
            f"{grafana.public} cannot be pulled here and Grafana has no stand-in (not in "
            "Debian): its provisioning files are checked statically (tests/deploy), not run"
        )
    assert get(f"{compose_stack.grafana}/api/health")["database"] == "ok"
    found = get(f"{compose_stack.grafana}/api/search?query=holdem")
    assert found, "the holdem dashboard was not provisioned"
