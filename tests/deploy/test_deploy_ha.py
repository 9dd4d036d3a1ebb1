"""The Cluster and Sentinel deployment files, checked offline (no container
engine or Kubernetes runs here): parsed and asserted to describe the
topology the tests run for real (tests/server/store/test_cluster.py and
test_failover.py: 3 masters + 3 replicas; 1 master, 1 replica, 3 Sentinels
with quorum 2; NYUMBA_ACK_REPLICAS=1), and the app's URLs parsed by the
server's own parser."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import yaml

from server.ops.urls import is_sentinel, parse_sentinel_url, seed_urls

DEPLOY = Path(__file__).resolve().parent.parent.parent / "deploy"


def _load(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def _words(command) -> str:
    return " ".join(command) if isinstance(command, list) else command


def test_compose_cluster_six_nodes_formed_with_a_replica_each():
    spec = yaml.safe_load((DEPLOY / "compose.cluster.yaml").read_text())
    services = spec["services"]
    nodes = [n for n in services if n.startswith("valkey-")]
    assert len(nodes) == 6
    for n in nodes:
        command = _words(services[n]["command"])
        assert "--cluster-enabled yes" in command and "--appendonly yes" in command
        # the slot map must name addresses the app containers can resolve
        assert "--cluster-preferred-endpoint-type hostname" in command
        assert services[n]["environment"]["HOSTNAME_ANNOUNCE"] == n
    init = _words(services["cluster-init"]["command"])
    assert "--cluster-replicas 1" in init
    assert sorted(re.findall(r"(valkey-\d):6379", init)) == sorted(nodes)
    apps = [n for n in services if n.startswith("app")]
    assert len(apps) == 3
    for name in apps:
        env = services[name]["environment"]
        seeds = [urlsplit(u) for u in seed_urls(env["REDIS_URL"])]
        assert {(u.hostname, u.port, u.path) for u in seeds} <= {(n, 6379, "/0") for n in nodes}
        assert env["NYUMBA_ACK_REPLICAS"] == "1"
    assert any("nginx.conf" in v for v in services["proxy"]["volumes"])


def test_compose_sentinel_master_replica_three_sentinels():
    spec = yaml.safe_load((DEPLOY / "compose.sentinel.yaml").read_text())
    services = spec["services"]
    data = [n for n in services if n.startswith("valkey-")]
    sentinels = [n for n in services if n.startswith("sentinel-")]
    assert len(data) == 2 and len(sentinels) == 3
    for n in sentinels:
        command = _words(services[n]["command"])
        assert "sentinel monitor nyumba valkey-a 6379 2" in command  # quorum 2 of 3
        assert "valkey-sentinel" in command
    for name in (n for n in services if n.startswith("app")):
        env = services[name]["environment"]
        url = parse_sentinel_url(env["REDIS_URL"])
        assert url.service == "nyumba"
        assert sorted(h for h, _ in url.sentinels) == sorted(sentinels)
        assert env["NYUMBA_ACK_REPLICAS"] == "1"


def test_k8s_valkey_cluster():
    docs = {d["kind"]: d for d in _load(DEPLOY / "k8s" / "valkey-cluster" / "valkey-cluster.yaml")}
    sts = docs["StatefulSet"]["spec"]
    assert sts["replicas"] == 6
    args = " ".join(sts["template"]["spec"]["containers"][0]["args"])
    assert "--cluster-enabled yes" in args
    assert "--cluster-announce-hostname $(POD_NAME).valkey-cluster" in args
    assert docs["Service"]["spec"]["clusterIP"] == "None"
    job = " ".join(docs["Job"]["spec"]["template"]["spec"]["containers"][0]["command"])
    assert "--cluster-replicas 1" in job and len(re.findall(r"valkey-cluster-\d\.", job)) == 7
    kust = yaml.safe_load((DEPLOY / "k8s" / "valkey-cluster" / "kustomization.yaml").read_text())
    assert "../nyumba.yaml" in kust["resources"]
    patch = yaml.safe_load(kust["patches"][0]["patch"])
    env = {e["name"]: e["value"] for e in patch["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["REDIS_URL"].startswith("redis://valkey-cluster-0.valkey-cluster:6379")
    assert env["NYUMBA_ACK_REPLICAS"] == "1"


def test_k8s_valkey_sentinel():
    docs = _load(DEPLOY / "k8s" / "valkey-sentinel" / "valkey-sentinel.yaml")
    sets = {d["metadata"]["name"]: d["spec"] for d in docs if d["kind"] == "StatefulSet"}
    assert sets["valkey-data"]["replicas"] == 2 and sets["valkey-sentinel"]["replicas"] == 3
    sentinel = " ".join(sets["valkey-sentinel"]["template"]["spec"]["containers"][0]["command"])
    assert "sentinel monitor nyumba valkey-data-0.valkey-data 6379 2" in sentinel
    kust = yaml.safe_load((DEPLOY / "k8s" / "valkey-sentinel" / "kustomization.yaml").read_text())
    patch = yaml.safe_load(kust["patches"][0]["patch"])
    env = {e["name"]: e["value"] for e in patch["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert is_sentinel(env["REDIS_URL"])
    url = parse_sentinel_url(env["REDIS_URL"])
    assert url.service == "nyumba" and len(url.sentinels) == 3
    assert {p for _, p in url.sentinels} == {26379}
    assert env["NYUMBA_ACK_REPLICAS"] == "1"


def test_sentinel_url_forms():
    url = parse_sentinel_url("redis+sentinel://:s%40cret@a:1,b:2,[::1]:3/mymaster/2")
    assert url.sentinels == [("a", 1), ("b", 2), ("::1", 3)]
    assert (url.service, url.db, url.password, url.username) == ("mymaster", 2, "s@cret", None)
    assert parse_sentinel_url("redis+sentinel://h/x").sentinels == [("h", 26379)]
    assert not is_sentinel("redis://h:6379/0")
