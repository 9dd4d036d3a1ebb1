"""The deployment files, checked offline (no container engine or cluster runs
here), and the compose topology run as processes: three nodes behind the real
nginx proxy configuration, no sticky sessions."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import yaml
from proxykit import Nginx
from serverproc import ServerProcess, free_port
from wsclient import Client, create_room

from server.ops.urls import seed_urls
from server.ops.variables import from_env

DEPLOY = Path(__file__).resolve().parent.parent.parent / "deploy"


def test_dockerfile_is_slim_non_root_with_a_healthcheck():
    text = (DEPLOY / "Dockerfile").read_text()
    froms = re.findall(r"^FROM (\S+)", text, re.M)
    assert froms and all("slim" in f for f in froms)
    users = re.findall(r"^USER (\S+)", text, re.M)
    assert users and users[-1] not in ("root", "0")
    assert re.search(r"^HEALTHCHECK .*\n?.*/healthz", text, re.M)
    assert re.search(r'^CMD \["nyumba", "serve"\]', text, re.M)


def test_dockerfile_builds_the_wheel_from_everything_it_needs():
    """The wheel is the whole app (client included): the build stage copies what setup.py
    and pyproject.toml package, and the image adds nothing beside it."""
    text = (DEPLOY / "Dockerfile").read_text()
    build = re.split(r"^FROM ", text, flags=re.M)[1]  # the first stage builds the wheel
    copied = " ".join(re.findall(r"^COPY (.+)$", build, re.M))
    for needed in ("pyproject.toml", "setup.py", "README.md", "LICENSES", "engine", "server"):
        assert needed in copied, needed
    assert re.search(r"^COPY client ", build, re.M)
    assert "NYUMBA_CLIENT_DIR" not in text


def test_nginx_keeps_the_port_in_host_and_sets_the_client_address():
    text = (DEPLOY / "proxy" / "nginx.conf").read_text()
    sets = re.findall(r"^\s*proxy_set_header (\S+) (.+);", text, re.M)
    hosts = [v for k, v in sets if k == "Host"]
    assert hosts and all(v == "$http_host" for v in hosts)  # $host drops ":8080": a 403
    forwarded = [v for k, v in sets if k == "X-Forwarded-For"]
    assert forwarded and all(v == "$remote_addr" for v in forwarded)  # never the client's own
    assert len([v for k, v in sets if k == "X-Real-IP"]) == len(hosts)


# Pinned to a full version: three parts, or PostgreSQL's two (its versions have two since 10).
PINNED = r"[\w./-]+:\d+\.\d+\.\d+[\w.-]*|postgres:\d+\.\d+(-[\w.]+)?"


def test_compose_has_three_app_nodes_redis_with_aof_and_a_proxy():
    spec = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = spec["services"]
    apps = [name for name in services if name.startswith("app")]
    assert len(apps) == 3
    for name in apps:
        assert services[name]["environment"]["REDIS_URL"].startswith("redis://redis:")
    redis_cmd = " ".join(services["redis"]["command"])
    assert "--appendonly yes" in redis_cmd
    assert "redis-data:/data" in services["redis"]["volumes"]
    proxy = services["proxy"]
    assert any("nginx.conf" in v for v in proxy["volumes"])
    # the nodes believe X-Forwarded-For from the proxy, and only from it
    proxy_ip = proxy["networks"]["nyumba"]["ipv4_address"]
    for name in apps:
        assert services[name]["environment"]["NYUMBA_FORWARDED_ALLOW_IPS"] == proxy_ip
    for name in ("redis", "proxy", "postgres"):
        image = services[name]["image"]
        assert re.fullmatch(PINNED, image), image


def _k8s() -> list[dict]:
    docs = []
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(path.read_text()) if d]
    return docs


def _named(docs: list[dict], kind: str, name: str) -> dict:
    return next(d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name)


def test_every_deployment_ships_postgresql_and_names_it_in_database_url():
    """The archive: compose and Kubernetes run a PostgreSQL, and every app node names it in a
    DATABASE_URL the server's own settings accept; the password comes from a Secret."""
    for name in ("compose.yaml", "compose.cluster.yaml", "compose.sentinel.yaml"):
        services = yaml.safe_load((DEPLOY / name).read_text())["services"]
        assert services["postgres"]["image"].startswith("postgres:"), name
        apps = [s for n, s in services.items() if n.startswith("app")]
        for app in apps:
            url = app["environment"]["DATABASE_URL"]
            assert from_env({"DATABASE_URL": url}).database_url == url
            assert urlsplit(url).hostname == "postgres"
            assert app["depends_on"]["postgres"]["condition"] == "service_healthy"
    docs = _k8s()
    pg = _named(docs, "StatefulSet", "nyumba-postgres")["spec"]["template"]["spec"]
    service = _named(docs, "Service", "nyumba-postgres")
    assert service["spec"]["ports"][0]["port"] == 5432
    secret = pg["containers"][0]["env"][2]["valueFrom"]["secretKeyRef"]["name"]
    assert secret in {d["metadata"]["name"] for d in docs if d["kind"] == "Secret"}
    app = _named(docs, "Deployment", "nyumba")["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e for e in app["env"]}
    assert env["DATABASE_PASSWORD"]["valueFrom"]["secretKeyRef"]["name"] == secret
    url = env["DATABASE_URL"]["value"]
    assert urlsplit(url).hostname == "nyumba-postgres" and ":$(DATABASE_PASSWORD)@" in url
    assert from_env({"DATABASE_URL": url}).database_url == url
    names = [e["name"] for e in app["env"]]
    assert names.index("DATABASE_PASSWORD") < names.index("DATABASE_URL")


def test_kubernetes_manifests():
    docs = _k8s()
    kinds = {d["kind"]: d for d in docs if d["metadata"]["name"] == "nyumba"}
    dep = kinds["Deployment"]["spec"]["template"]["spec"]
    app = dep["containers"][0]
    # readiness asks the store; liveness never does, so a Redis outage restarts nothing
    assert app["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert app["livenessProbe"]["httpGet"]["path"] == "/livez"
    assert dep["securityContext"]["runAsNonRoot"] is True
    assert kinds["Service"]["spec"]["sessionAffinity"] == "None"
    ann = kinds["Ingress"]["metadata"]["annotations"]
    assert int(ann["nginx.ingress.kubernetes.io/proxy-read-timeout"]) >= 3600
    redis = _named(docs, "StatefulSet", "nyumba-redis")
    assert "--appendonly" in redis["spec"]["template"]["spec"]["containers"][0]["args"]
    pdb = kinds["PodDisruptionBudget"]["spec"]
    assert pdb["selector"]["matchLabels"] == kinds["Deployment"]["spec"]["selector"]["matchLabels"]
    assert 1 <= pdb["minAvailable"] < kinds["Deployment"]["spec"]["replicas"]
    env = {e["name"]: e for e in app["env"]}
    assert env["NYUMBA_FORWARDED_ALLOW_IPS"]["value"] not in ("127.0.0.1", "*")
    assert env["NYUMBA_ALLOWED_ORIGINS"]["value"].startswith("https://")
    # passkeys belong to the public URL's host: the one the Ingress serves
    hosts = [rule["host"] for rule in kinds["Ingress"]["spec"]["rules"]]
    assert env["NYUMBA_PUBLIC_URL"]["value"] in [f"https://{h}" for h in hosts]
    # Room affinity (issue 49): /ws alone hashed by the room in its URL, on the same host
    ws = _named(docs, "Ingress", "nyumba-ws")
    assert ws["metadata"]["annotations"]["nginx.ingress.kubernetes.io/upstream-hash-by"] == (
        "$arg_room"
    )
    assert (
        int(ws["metadata"]["annotations"]["nginx.ingress.kubernetes.io/proxy-read-timeout"]) >= 3600
    )
    [rule] = ws["spec"]["rules"]
    assert rule["host"] in hosts and [p["path"] for p in rule["http"]["paths"]] == ["/ws"]
    assert "upstream-hash-by" not in str(ann)  # pages and the API stay round-robin


def test_kubernetes_pods_are_locked_down_and_pinned():
    docs = _k8s()
    pods = [
        d["spec"]["template"]["spec"] for d in docs if d["kind"] in ("Deployment", "StatefulSet")
    ]
    assert len(pods) == 3  # the app, Redis, PostgreSQL
    for pod in pods:
        assert pod["automountServiceAccountToken"] is False
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        assert pod["securityContext"]["runAsNonRoot"] is True
        for c in pod["containers"]:
            image = c["image"]
            assert re.fullmatch(PINNED, image), image
            assert c["resources"]["requests"] and c["resources"]["limits"]["memory"]
            sc = c["securityContext"]
            assert sc["allowPrivilegeEscalation"] is False
            assert sc["readOnlyRootFilesystem"] is True
            assert sc["capabilities"]["drop"] == ["ALL"]


def test_kubernetes_redis_password_comes_from_a_secret():
    docs = _k8s()
    secrets = {d["metadata"]["name"] for d in docs if d["kind"] == "Secret"}
    redis = _named(docs, "StatefulSet", "nyumba-redis")["spec"]["template"]["spec"]
    app = [d for d in docs if d["kind"] == "Deployment"][0]["spec"]["template"]["spec"]
    for container in (redis["containers"][0], app["containers"][0]):
        env = {e["name"]: e for e in container["env"]}
        ref = env["REDIS_PASSWORD"]["valueFrom"]["secretKeyRef"]
        assert ref["name"] in secrets
    assert "$(REDIS_PASSWORD)" in redis["containers"][0]["args"]
    app_env = {e["name"]: e for e in app["containers"][0]["env"]}
    assert ":$(REDIS_PASSWORD)@" in app_env["REDIS_URL"]["value"]
    names = [e["name"] for e in app["containers"][0]["env"]]
    assert names.index("REDIS_PASSWORD") < names.index("REDIS_URL")  # defined before use


def test_every_cluster_app_node_names_several_seeds():
    """An app node that names one Cluster node finds no store when that node is down as it
    (re)starts: the shipped Cluster configs name several seeds, each a node of the cluster,
    read by the server's own parsers; the compose nodes start from different ones."""
    compose = yaml.safe_load((DEPLOY / "compose.cluster.yaml").read_text())["services"]
    nodes = {name for name in compose if name.startswith("valkey-")}
    apps = [compose[name]["environment"]["REDIS_URL"] for name in compose if name.startswith("app")]
    kust = yaml.safe_load((DEPLOY / "k8s" / "valkey-cluster" / "kustomization.yaml").read_text())
    patch = yaml.safe_load(kust["patches"][0]["patch"])
    env = {e["name"]: e for e in patch["spec"]["template"]["spec"]["containers"][0]["env"]}
    pods = yaml.safe_load_all(
        (DEPLOY / "k8s" / "valkey-cluster" / "valkey-cluster.yaml").read_text()
    )
    replicas = next(d for d in pods if d["kind"] == "StatefulSet")["spec"]["replicas"]
    shipped = {"compose": apps, "k8s": [env["REDIS_URL"]["value"]]}
    members = {
        "compose": nodes,
        "k8s": {f"valkey-cluster-{i}.valkey-cluster" for i in range(replicas)},
    }
    for where, urls in shipped.items():
        for url in urls:
            assert from_env({"REDIS_URL": url}).redis_url == url
            hosts = [urlsplit(seed).hostname for seed in seed_urls(url)]
            assert len(set(hosts)) > 1, (where, url)
            assert set(hosts) <= members[where], (where, url)
    assert len({seed_urls(url)[0] for url in apps}) == len(apps)


def test_three_nodes_behind_the_proxy_without_sticky_sessions(store_kind, tmp_path, key_prefix):
    from server.run.cli import embedded_valkey

    with embedded_valkey(tmp_path / "valkey") as embedded:
        url = os.environ["REDIS_URL"] if store_kind == "redis" else embedded
        nodes = [
            ServerProcess(
                redis_url=url,
                data_dir=tmp_path / f"n{i}",
                env={"NYUMBA_KEY_PREFIX": key_prefix + "proxy:"},
            ).start()
            for i in range(3)
        ]
        port = free_port()
        proxy = Nginx(tmp_path, f"127.0.0.1:{port}", [n.port for n in nodes])
        try:
            base = proxy.__enter__()
            # Round-robin: health checks land on more than one node.
            seen = {httpx.get(base + "/healthz").json()["node"] for _ in range(6)}
            assert len(seen) >= 2
            r = create_room(base, "kalah", options={"seeds": 3})
            ws = f"ws://127.0.0.1:{port}/ws"
            south, north, watcher = Client(ws), Client(ws), Client(ws)
            south.join(r["room"], r["token"])
            north.join(r["room"])
            watcher.join(r["room"])
            players = {0: south, 1: north}
            while True:
                st = watcher.wait_state(lambda s: True)
                watcher.drain(0.02)
                st = watcher.state
                if st["outcome"] is not None:
                    break
                mover = players[st["to_move"]]
                mover.wait_state(lambda s, v=st["version"]: s["version"] >= v)
                mover.move(st["legal"][-1]["move"], version=st["version"])
                mover.expect("ack")
                watcher.wait_state(lambda s, v=st["version"]: s["version"] > v)
            assert (
                south.wait_state(lambda s: s["outcome"] is not None)["position"] == st["position"]
            )
        finally:
            proxy.__exit__()
            for n in nodes:
                n.stop()


def test_every_compose_file_names_the_public_url_its_proxy_serves():
    """Passkeys work only at NYUMBA_PUBLIC_URL: the address the proxy publishes."""
    for path in sorted(DEPLOY.glob("compose*.yaml")):
        services = yaml.safe_load(path.read_text())["services"]
        (published,) = [p.split(":")[0] for p in services["proxy"]["ports"] if p.endswith(":80")]
        for name in (n for n in services if n.startswith("app")):
            url = services[name]["environment"]["NYUMBA_PUBLIC_URL"]
            assert url == f"http://localhost:{published}", (path.name, name, url)
