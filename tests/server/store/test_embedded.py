"""The embedded Valkey as a node runs it: started from a relative data directory, restarted
when it dies, and never two on one data directory."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from serverproc import ROOT, ServerProcess, free_port
from wsclient import Client, create_room


def _valkey_pids(parent: int) -> list[int]:
    """The valkey-server processes whose parent is ``parent``."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == parent and b"valkey-server" in cmd:
            out.append(int(entry.name))
    return out


def _until(pred, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = pred()
            if value:
                return value
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"not within {timeout} s: {what}")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_a_relative_data_dir_from_the_working_directory(tmp_path, key_prefix):
    """The first-run crash: ./data relative to where nyumba serve was started."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL" and not k.startswith("NYUMBA_")}
    env.update(NYUMBA_KEY_PREFIX=key_prefix, NYUMBA_DATA_DIR="data", PYTHONPATH=str(ROOT))
    with open(tmp_path / "serve.log", "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "server.run.cli", "serve", "--port", str(port)],
            cwd=tmp_path,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        _until(
            lambda: httpx.get(f"http://127.0.0.1:{port}/healthz").status_code == 200,
            30,
            "healthz",
        )
        assert (tmp_path / "data" / "valkey" / "appendonlydir").is_dir()
        assert (tmp_path / "data" / "valkey" / "valkey.log").stat().st_size > 0
    finally:
        proc.terminate()
        assert proc.wait(20) == 0


def test_a_killed_valkey_is_restarted_and_the_node_recovers(tmp_path, key_prefix):
    srv = ServerProcess(redis_url=None, data_dir=tmp_path, env={"NYUMBA_KEY_PREFIX": key_prefix})
    srv.start()
    try:
        r = create_room(srv.url, "kalah", options={"seeds": 3})
        time.sleep(1.5)  # appendfsync everysec: the room is on disk
        (valkey,) = _valkey_pids(srv.proc.pid)
        os.kill(valkey, signal.SIGKILL)
        _until(lambda: httpx.get(srv.url + "/readyz").status_code == 200, 20, "ready again")
        (again,) = _valkey_pids(srv.proc.pid)
        assert again != valkey
        player = Client(srv.ws_url)
        player.join(r["room"], r["token"])  # the room came back from the append-only file
        player.move(player.state["legal"][0]["move"])
        assert player.expect("ack")["version"] == 1
        player.close()
        assert "embedded Valkey exited" in srv.log_path.read_text()
    finally:
        srv.stop()


def test_a_second_node_on_the_same_data_dir_refuses(tmp_path, key_prefix):
    first = ServerProcess(
        redis_url=None, data_dir=tmp_path, env={"NYUMBA_KEY_PREFIX": key_prefix}
    ).start()
    try:
        env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        env["NYUMBA_DATA_DIR"] = str(tmp_path)
        second = subprocess.run(
            [sys.executable, "-m", "server.run.cli", "serve", "--port", str(free_port())],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode == 1
        line = second.stderr.strip().splitlines()[-1]
        assert f"{tmp_path / 'valkey'} is in use by another nyumba node" in line
        assert f"pid {first.proc.pid}" in line
        assert httpx.get(first.url + "/healthz").status_code == 200  # the first is unharmed
    finally:
        first.stop()


def test_a_node_restarted_at_once_waits_for_the_killed_nodes_valkey(tmp_path, key_prefix):
    """SIGKILL a node: its Valkey gets the parent-death signal and flushes; a node started
    on the directory right away waits for the lock instead of running a second Valkey."""
    env = {"NYUMBA_KEY_PREFIX": key_prefix}
    first = ServerProcess(redis_url=None, data_dir=tmp_path, env=env).start()
    (old,) = _valkey_pids(first.proc.pid)
    first.stop(kill=True)
    second = ServerProcess(redis_url=None, data_dir=tmp_path, env=env).start()
    try:
        assert not _alive(old)
        assert len(_valkey_pids(second.proc.pid)) == 1
    finally:
        second.stop()
