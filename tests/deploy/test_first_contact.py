"""A newcomer's first contact, walked as they walk it.

* A fresh ``git clone`` of this checkout; the README's serve command, read from README.md
  and run verbatim by ``bash`` from the clone's root, with no environment but ``PATH``,
  ``HOME`` and the machine's pip settings (``PIP_*``: how this machine reaches its package
  index). ``PORT`` is set as well, only so parallel runs do not collide on 8000; the command
  itself is untouched. The server must answer ``/healthz`` and serve ``/`` and its script
  within 30 s of the install finishing; the figures (clone to first page) are printed.
* ``pip wheel`` built from that clone, installed in a fresh venv, ``nyumba serve`` started
  from an empty directory: it serves ``/`` and the client's scripts (the wheel carries them).

The README's *test* command is what ``.ci/run`` runs on its own fresh clone, so it is not
repeated here. Both tests build virtual environments: slow, and run in CI all the same.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from serverproc import ROOT, free_port

from engine.search import kalah_table

pytestmark = pytest.mark.slow

INSTALL_DEADLINE_S = 600  # venv + pip install on a shared, busy machine
SERVE_DEADLINE_S = 30  # from the install's end to the first page: the promise


def _newcomer_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k.startswith("PIP_")}
    env.update(PATH=os.environ["PATH"], HOME=os.environ.get("HOME", "/tmp"), LANG="C.UTF-8")
    env.update(extra)
    return env


def readme_command(kind: str) -> str:
    """The README's indented command line that ends in ``nyumba serve`` (kind "serve") or
    runs pytest (kind "test")."""
    text = (ROOT / "README.md").read_text()
    lines = [line.strip() for line in text.splitlines() if line.startswith("    python3 -m venv")]
    wanted = [
        line for line in lines if line.endswith("nyumba serve" if kind == "serve" else "pytest")
    ]
    assert len(wanted) == 1, lines
    return wanted[0]


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A fresh clone of this checkout's committed HEAD."""
    path = tmp_path_factory.mktemp("newcomer") / "nyumba"
    subprocess.run(
        ["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(path)],
        check=True,
        timeout=120,
    )
    return path


def _serving(shell: int) -> list[int]:
    """The ``nyumba serve`` process: the shell itself when bash exec'd the list's last
    command, else the shell's child."""
    out = []
    for pid in [shell, *_children(shell)]:
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"nyumba\0serve" in cmd or cmd.endswith(b"nyumba\0serve\0"):
            out.append(pid)
    return out


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _get(url: str) -> httpx.Response | None:
    try:
        return httpx.get(url, timeout=2)
    except httpx.HTTPError:
        return None


def test_the_readme_serve_command_verbatim_in_a_fresh_clone(clone, capsys):
    command = readme_command("serve")
    assert command == (
        "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/nyumba serve"
    )
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log_path = clone.parent / "serve.log"
    started = time.monotonic()
    with open(log_path, "wb") as log:
        shell = subprocess.Popen(
            ["bash", "-c", command],
            cwd=clone,
            env=_newcomer_env(PORT=str(port)),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    installed = page = None
    try:
        while page is None:
            now = time.monotonic()
            assert shell.poll() is None, f"the command ended:\n{log_path.read_text()[-3000:]}"
            assert now - started < INSTALL_DEADLINE_S, log_path.read_text()[-3000:]
            if installed is None and b"Successfully installed" in log_path.read_bytes():
                installed = now
            if installed is not None:
                assert now - installed < SERVE_DEADLINE_S, log_path.read_text()[-3000:]
                health, index = _get(base + "/healthz"), _get(base + "/")
                if health and health.status_code == 200 and index and index.status_code == 200:
                    page = time.monotonic()
                    assert "<html" in index.text.lower()
            time.sleep(0.2)
        script = httpx.get(base + "/static/app.js")
        assert script.status_code == 200
        assert script.text == (clone / "client" / "app.js").read_text()
        # the data went where the README says: ./data, relative to the clone
        assert (clone / "data" / "valkey" / "appendonlydir").is_dir()
        text = log_path.read_text()
        # the address it prints is the README's (with the test's port): one where passkeys work
        assert re.search(rf"nyumba \S+ ready in .* open http://localhost:{port}/", text)
        assert "open http://localhost:8000/" in (clone / "README.md").read_text()
        with capsys.disabled():
            print(
                f"\n[first contact] clone to first page {page - started:.1f} s "
                f"(install {installed - started:.1f} s, serve {page - installed:.1f} s)"
            )
    finally:
        nyumba = _serving(shell.pid)
        for pid in nyumba:
            os.kill(pid, signal.SIGTERM)
        try:
            code = shell.wait(30)
        except subprocess.TimeoutExpired:
            shell.kill()
            raise
    assert nyumba and code == 0  # SIGTERM: a clean exit, and the shell passes it on


def test_the_wheel_serves_the_game_from_an_empty_directory(clone, tmp_path, capsys):
    started = time.monotonic()
    env = _newcomer_env()
    dist = tmp_path / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), "."],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=INSTALL_DEADLINE_S,
    )
    assert build.returncode == 0, build.stderr
    (wheel,) = dist.glob("nyumba-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    install = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", str(wheel)],
        env=env,
        capture_output=True,
        text=True,
        timeout=INSTALL_DEADLINE_S,
    )
    assert install.returncode == 0, install.stderr
    # the wheel carries Kalah's endgame table: without it a first expert move or hint would
    # build it, about 35 s of CPU
    carried = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "from engine.search import kalah_table as T; print(T.SHIPPED.stat().st_size)",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert carried.stdout.strip() == str(kalah_table.SHIPPED.stat().st_size), carried.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with open(tmp_path / "serve.log", "wb") as log:
        proc = subprocess.Popen(
            [str(venv / "bin" / "nyumba"), "serve", "--port", str(port)],
            cwd=empty,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + SERVE_DEADLINE_S
        while (r := _get(base + "/healthz")) is None or r.status_code != 200:
            assert proc.poll() is None, (tmp_path / "serve.log").read_text()
            assert time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
            time.sleep(0.2)
        index = httpx.get(base + "/")
        assert index.status_code == 200 and "<html" in index.text.lower()
        # the page names its scripts under the client's version (server/web/static.py)
        scripts = re.findall(r'src="(/static/v/[0-9a-f]+/([\w.-]+\.js))"', index.text)
        assert scripts, index.text
        for src, script in scripts:
            got = httpx.get(base + src)
            assert got.status_code == 200, script
            assert got.text == (clone / "client" / script).read_text()
        assert httpx.get(base + "/static/app.js").status_code == 200
        assert (empty / "data" / "valkey").is_dir()  # the default data dir, where it started
        version = subprocess.run(
            [str(venv / "bin" / "nyumba"), "--version"], capture_output=True, text=True
        )
        assert version.stdout.strip() == f"nyumba {httpx.get(base + '/healthz').json()['version']}"
        with capsys.disabled():
            print(
                f"\n[first contact] wheel built, installed and serving in "
                f"{time.monotonic() - started:.1f} s"
            )
    finally:
        proc.terminate()
        assert proc.wait(30) == 0
