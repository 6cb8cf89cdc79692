"""deploy/monitoring: the Grafana dashboard and the Prometheus alert rules only use metrics the
code exports, every alert is explained in docs/operations.md, and the compose Prometheus scrapes
every service where docker-compose.yml serves its metrics."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import yaml
from prometheus_client import REGISTRY

from libs.platform.metrics import dealer, lobby, service, table, tournament
from tests.deploy.expected import DEFAULT_METRICS_PORTS, DEPLOY, ROOT, SERVICES
from tests.deploy.promql import UnknownFunction, metric_names

MONITORING = DEPLOY / "monitoring"
DASHBOARD = MONITORING / "grafana-dashboard.json"
ALERTS = MONITORING / "alerts.yaml"
OPERATIONS = ROOT / "docs" / "operations.md"
#: Series Prometheus makes itself.
PROMETHEUS_SERIES = {"up"}
SUFFIXES = {
    "counter": ("_total",),
    "histogram": ("_bucket", "_count", "_sum"),
    "summary": ("", "_count", "_sum"),
    "info": ("_info",),
}


def exported_names() -> set[str]:
    """Every sample name the services can export: the platform's metric modules (all imported
    here) plus what prometheus_client adds by itself (process_*, python_*)."""
    assert {service.REQUESTS, dealer.DECKS_DEALT, table.COMMITS, lobby.SAGAS_STUCK}
    assert tournament.DIRECTORS is not None
    names: set[str] = set()
    for family in REGISTRY.collect():
        names |= {family.name + suffix for suffix in SUFFIXES.get(family.type, ("",))}
    return names


def dashboard_exprs() -> list[str]:
    dashboard = json.loads(DASHBOARD.read_text())
    return [target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", [])]


def alert_rules() -> list[dict[str, Any]]:
    groups = yaml.safe_load(ALERTS.read_text())["groups"]
    return [rule for group in groups for rule in group["rules"]]


def test_the_known_names_include_every_family_and_its_samples() -> None:
    names = exported_names()
    assert {
        "holdem_grpc_server_requests_total",
        "holdem_grpc_server_request_duration_seconds_bucket",
        "holdem_table_snapshot_save_seconds_count",
        "holdem_lobby_sagas_stuck",
        "process_resident_memory_bytes",
    } <= names
    assert "holdem_table_commits" not in names  # a counter is read as ..._total


def test_the_name_check_catches_an_unknown_metric_and_an_unknown_function() -> None:
    expr = 'sum by (grpc_service) (rate(holdem_nope_total{grpc_code!="OK"}[5m])) > 0.5'
    assert metric_names(expr) - exported_names() == {"holdem_nope_total"}
    with pytest.raises(UnknownFunction, match="rates"):
        metric_names("rates(holdem_table_commits_total[5m])")


# ---- Grafana ------------------------------------------------------------------------------------


def test_the_dashboard_is_grafana_json_with_unique_panels() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    assert dashboard["uid"] and dashboard["title"]
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    for panel in dashboard["panels"]:
        assert set(panel["gridPos"]) == {"h", "w", "x", "y"}
        assert panel["gridPos"]["x"] + panel["gridPos"]["w"] <= 24
        if panel["type"] != "row":
            assert panel["targets"], panel["title"]
            assert panel["datasource"]["uid"] == "${datasource}"
    (variable,) = dashboard["templating"]["list"]
    assert (variable["name"], variable["type"]) == ("datasource", "datasource")


def test_every_metric_in_the_dashboard_exists_in_the_code() -> None:
    known = exported_names() | PROMETHEUS_SERIES
    used: set[str] = set()
    for expr in dashboard_exprs():
        names = metric_names(expr)
        assert names, expr
        assert names <= known, f"unknown metrics {names - known} in {expr!r}"
        used |= names
    # and the dashboard shows each service's own metrics
    for prefix in ("holdem_grpc_", "holdem_table_", "holdem_dealer_", "holdem_lobby_"):
        assert any(name.startswith(prefix) for name in used), prefix


# ---- alert rules --------------------------------------------------------------------------------


def test_alert_rules_are_well_formed() -> None:
    rules = alert_rules()
    names = [rule["alert"] for rule in rules]
    assert len(names) == len(set(names))
    for rule in rules:
        assert set(rule) <= {"alert", "expr", "for", "labels", "annotations"}, rule["alert"]
        assert re.fullmatch(r"Holdem[A-Z][A-Za-z]+", rule["alert"])
        assert rule["labels"]["severity"] in {"critical", "warning", "info"}
        assert rule["annotations"]["summary"] and rule["annotations"]["description"]
        if "for" in rule:
            assert re.fullmatch(r"\d+[smh]", rule["for"]), rule["alert"]
        assert rule["expr"].count("(") == rule["expr"].count(")"), rule["alert"]


def test_every_metric_in_the_alerts_exists_in_the_code() -> None:
    known = exported_names() | PROMETHEUS_SERIES
    for rule in alert_rules():
        names = metric_names(rule["expr"])
        assert names, rule["alert"]
        assert names <= known, f"{rule['alert']}: unknown metrics {names - known}"


def test_every_alert_is_explained_in_the_operators_guide() -> None:
    guide = OPERATIONS.read_text()
    for rule in alert_rules():
        assert f"`{rule['alert']}`" in guide, f"docs/operations.md does not explain {rule['alert']}"


# ---- the compose Prometheus ----------------------------------------------------------------------


def test_the_compose_prometheus_scrapes_every_service_and_loads_the_alerts() -> None:
    config = yaml.safe_load((MONITORING / "prometheus.yml").read_text())
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    prometheus = compose["services"]["prometheus"]
    mounts = dict(volume.rsplit(":", 1)[0].split(":", 1) for volume in prometheus["volumes"][:2])
    assert mounts["./deploy/monitoring/alerts.yaml"] in config["rule_files"]
    (job,) = config["scrape_configs"]
    targets = [t for static in job["static_configs"] for t in static["targets"]]
    expected = []
    for name in SERVICES:
        listen = compose["services"][name]["environment"]["HOLDEM_METRICS_LISTEN"]
        assert listen == f"0.0.0.0:{DEFAULT_METRICS_PORTS[name]}"
        expected.append(f"{name}:{DEFAULT_METRICS_PORTS[name]}")
    assert targets == expected
    grafana = compose["services"]["grafana"]
    assert any(str(DASHBOARD.relative_to(ROOT)) in volume for volume in grafana["volumes"])
