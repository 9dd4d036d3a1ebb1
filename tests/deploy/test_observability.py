"""The operator's dashboards and alerts (deploy/observe/), checked offline: Prometheus's own
``promtool`` passes the alert rules and their unit tests, compose brings up Prometheus and
Grafana provisioned with the dashboard, and every query on the dashboard and in the rules
names a metric a real server's ``/metrics`` exports."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import httpx
import promql_parser
import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

DEPLOY = Path(__file__).resolve().parent.parent.parent / "deploy"
OBSERVE = DEPLOY / "observe"
DASHBOARD = OBSERVE / "grafana" / "dashboards" / "nyumba.json"
# Grafana's own variables, as it fills them in before Prometheus sees a query
GRAFANA_VARIABLES = {"$__rate_interval": "1m", "$__interval": "15s", "$__range": "1h"}


def promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        if os.environ.get("CI"):  # .ci/apt-packages installs it (Debian's prometheus)
            raise AssertionError("promtool is missing: .ci/apt-packages has prometheus")
        pytest.skip("promtool is not installed (apt-get install prometheus)")
    return found


def run(*args: str) -> subprocess.CompletedProcess:
    done = subprocess.run(args, capture_output=True, text=True, timeout=60, cwd=OBSERVE)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_promtool_checks_the_alert_rules_and_their_unit_tests():
    tool = promtool()
    assert "SUCCESS: 3 rules found" in run(tool, "check", "rules", "alerts.yml").stdout
    run(tool, "test", "rules", "alerts_test.yml")


def test_promtool_checks_the_prometheus_config(tmp_path):
    tool = promtool()
    config = yaml.safe_load((OBSERVE / "prometheus.yml").read_text())
    # compose mounts the rules where the config names them; here they are beside it
    assert config["rule_files"] == ["/etc/prometheus/alerts.yml"]
    config["rule_files"] = [str(OBSERVE / "alerts.yml")]
    local = tmp_path / "prometheus.yml"
    local.write_text(yaml.safe_dump(config))
    run(tool, "check", "config", str(local))


def test_compose_brings_up_prometheus_and_grafana_with_the_dashboard():
    spec = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = spec["services"]
    apps = sorted(name for name in services if name.startswith("app"))

    prometheus = services["prometheus"]
    mounts = dict(v.rsplit(":", 1)[0].split(":", 1) for v in prometheus["volumes"] if ":ro" in v)
    assert mounts["./observe/prometheus.yml"] == "/etc/prometheus/prometheus.yml"
    assert mounts["./observe/alerts.yml"] == "/etc/prometheus/alerts.yml"
    assert "--storage.tsdb.retention.time=30d" in prometheus["command"]
    config = yaml.safe_load((OBSERVE / "prometheus.yml").read_text())
    (job,) = config["scrape_configs"]
    targets = [t for c in job["static_configs"] for t in c["targets"]]
    port = services[apps[0]]["environment"]["PORT"]
    assert targets == [f"{app}:{port}" for app in apps]  # every node, on its port

    grafana = services["grafana"]
    mounts = dict(v.rsplit(":", 1)[0].split(":", 1) for v in grafana["volumes"] if ":ro" in v)
    assert mounts["./observe/grafana/provisioning"] == "/etc/grafana/provisioning"
    dashboards_dir = mounts["./observe/grafana/dashboards"]
    provider = yaml.safe_load(
        (OBSERVE / "grafana/provisioning/dashboards/nyumba.yaml").read_text()
    )["providers"][0]
    assert provider["options"]["path"] == dashboards_dir
    home = grafana["environment"]["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]
    assert home == f"{dashboards_dir}/{DASHBOARD.name}"
    (source,) = yaml.safe_load(
        (OBSERVE / "grafana/provisioning/datasources/prometheus.yaml").read_text()
    )["datasources"]
    assert source["url"] == "http://prometheus:9090" and source["type"] == "prometheus"
    dashboard = json.loads(DASHBOARD.read_text())
    for panel in dashboard["panels"]:
        if panel["type"] != "row":
            assert panel["datasource"]["uid"] == source["uid"], panel["title"]
    for name in ("prometheus", "grafana"):
        image = services[name]["image"]
        assert re.fullmatch(r"[\w./-]+:v?\d+\.\d+\.\d+[\w.-]*", image), image
        assert all(p.startswith("127.0.0.1:") for p in services[name]["ports"])


def test_the_dashboard_has_the_operators_panels():
    dashboard = json.loads(DASHBOARD.read_text())
    panels = [p for p in dashboard["panels"] if p["type"] != "row"]
    assert len({p["id"] for p in dashboard["panels"]}) == len(dashboard["panels"])
    for p in panels:
        g = p["gridPos"]
        assert g["x"] + g["w"] <= 24 and p["targets"], p["title"]
    queries = " ".join(t["expr"] for p in panels for t in p["targets"])
    for shown in (
        "nyumba_sockets",  # players now
        "nyumba_games_finished_total",  # finished games by game and mode
        'nyumba_games_started_total{mode="computer"}',  # computer levels chosen
        'nyumba_page_reports_total{kind="friend-link"}',  # friend connection failures
        'nyumba_intent_seconds_bucket{kind="move"}',  # move latency
        "nyumba_store_up",  # store health
        "max by (status) (nyumba_arenas)",  # arenas now: upcoming, running, ending
        "nyumba_arena_games_started_total",  # arena games paired
        "nyumba_arena_games_finished_total",  # and scored
        "nyumba_arena_pairing_wait_seconds_bucket",  # how long players wait for a game
    ):
        assert shown in queries, shown


def metric_names(expr: str) -> set[str]:
    """The metrics a PromQL expression selects, from its syntax tree."""
    for variable, value in GRAFANA_VARIABLES.items():
        expr = expr.replace(variable, value)
    names: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, promql_parser.VectorSelector):
            names.add(node.name)
            return
        if isinstance(node, promql_parser.MatrixSelector):
            walk(node.vector_selector)
            return
        for part in ("lhs", "rhs", "expr", "param"):
            child = getattr(node, part, None)
            if child is not None:
                walk(child)
        for arg in getattr(node, "args", None) or []:
            walk(arg)

    walk(promql_parser.parse(expr))
    return names


def exported(base: str) -> set[str]:
    """Every series name ``/metrics`` can carry, from the families it declares."""
    names = set()
    text = httpx.get(base + "/metrics", timeout=10).text
    for family in text_string_to_metric_families(text):
        suffixes = {
            "counter": ("_total",),
            "histogram": ("_bucket", "_count", "_sum"),
            "summary": ("_count", "_sum", ""),
        }.get(family.type, ("",))
        names |= {family.name + suffix for suffix in suffixes}
    return names


def test_every_query_names_a_metric_the_server_exports(server):
    have = exported(server.url)
    dashboard = json.loads(DASHBOARD.read_text())
    queries = [(p["title"], t["expr"]) for p in dashboard["panels"] for t in p.get("targets", [])]
    rules = yaml.safe_load((OBSERVE / "alerts.yml").read_text())
    queries += [(r["alert"], r["expr"]) for g in rules["groups"] for r in g["rules"]]
    assert len(queries) > 30
    for where, expr in queries:
        names = metric_names(expr) - {"up"}  # Prometheus's own: whether a scrape answered
        assert names, f"{where}: {expr} names no metric of the server's"
        missing = names - have
        assert not missing, f"{where}: {expr} names {missing}, which /metrics does not export"
