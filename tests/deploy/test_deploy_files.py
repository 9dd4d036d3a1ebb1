"""The deployment files, checked offline (no container engine or cluster runs
here), and the compose topology run as processes: three nodes behind the real
nginx proxy configuration, no sticky sessions."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from serverproc import ServerProcess, free_port
from wsclient import Client, create_room

DEPLOY = Path(__file__).resolve().parent.parent.parent / "deploy"


def test_dockerfile_is_slim_non_root_with_a_healthcheck():
    text = (DEPLOY / "Dockerfile").read_text()
    froms = re.findall(r"^FROM (\S+)", text, re.M)
    assert froms and all("slim" in f for f in froms)
    users = re.findall(r"^USER (\S+)", text, re.M)
    assert users and users[-1] not in ("root", "0")
    assert re.search(r"^HEALTHCHECK .*\n?.*/healthz", text, re.M)
    assert re.search(r'^CMD \["nyumba", "serve"\]', text, re.M)


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


def test_kubernetes_manifests():
    docs = []
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(path.read_text()) if d]
    kinds = {d["kind"]: d for d in docs if d["metadata"]["name"] == "nyumba"}
    dep = kinds["Deployment"]["spec"]["template"]["spec"]
    app = dep["containers"][0]
    assert app["readinessProbe"]["httpGet"]["path"] == "/healthz"
    assert app["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert dep["securityContext"]["runAsNonRoot"] is True
    assert kinds["Service"]["spec"]["sessionAffinity"] == "None"
    ann = kinds["Ingress"]["metadata"]["annotations"]
    assert int(ann["nginx.ingress.kubernetes.io/proxy-read-timeout"]) >= 3600
    redis = [d for d in docs if d["kind"] == "StatefulSet"][0]
    assert "--appendonly" in redis["spec"]["template"]["spec"]["containers"][0]["args"]


def _nginx_config(tmp: Path, listen: int, nodes: list[ServerProcess]) -> Path:
    """deploy/proxy/nginx.conf with the compose hostnames replaced by local nodes."""
    text = (DEPLOY / "proxy" / "nginx.conf").read_text()
    servers = "".join(f"        server 127.0.0.1:{n.port};\n" for n in nodes)
    text, count = re.subn(
        r"(    upstream nyumba \{\n)(?:.*\n)*?(        keepalive)",
        lambda m: m.group(1) + servers + m.group(2),
        text,
    )
    assert count == 1
    text = text.replace("listen 80;", f"listen 127.0.0.1:{listen};")
    text = text.replace(
        "http {",
        f"http {{\n    access_log off;\n    client_body_temp_path {tmp}/body;\n"
        f"    proxy_temp_path {tmp}/proxy;",
        1,
    )
    text = text.replace(
        "worker_processes auto;",
        f"worker_processes 1;\npid {tmp}/nginx.pid;\nerror_log {tmp}/error.log;",
    )
    conf = tmp / "nginx.conf"
    conf.write_text(text)
    return conf


def _nginx() -> str:
    path = shutil.which("nginx") or (
        "/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None
    )
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("nginx is missing: .ci/apt-packages installs it")
        pytest.skip("nginx is not installed on this machine (CI installs it)")
    return path


def test_three_nodes_behind_the_proxy_without_sticky_sessions(store_kind, tmp_path, key_prefix):
    nginx = _nginx()
    from server.cli import embedded_valkey

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
        conf = _nginx_config(tmp_path, port, nodes)
        subprocess.run([nginx, "-t", "-c", str(conf)], check=True, capture_output=True)
        proxy = subprocess.Popen(
            [nginx, "-c", str(conf), "-g", "daemon off;"], stderr=subprocess.DEVNULL
        )
        try:
            base = f"http://127.0.0.1:{port}"
            import time

            import httpx

            for _ in range(50):
                try:
                    if httpx.get(base + "/healthz").status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.1)
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
            proxy.terminate()
            proxy.wait(10)
            for n in nodes:
                n.stop()
