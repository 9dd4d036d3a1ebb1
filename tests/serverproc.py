"""Real server processes for tests and benchmarks (imported by name:
``from serverproc import ServerProcess``; pytest's conftest modules are not
importable reliably when several exist)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """``nyumba serve`` in a child process."""

    def __init__(
        self,
        *,
        redis_url: str | None,
        data_dir: Path,
        env: dict[str, str] | None = None,
        port: int | None = None,
        root: Path = ROOT,
    ):
        self.root = root  # the checkout whose server runs (benches compare two)
        # Another checkout runs with its own virtualenv when it has one, so it gets the
        # dependencies it declared (an old main without uvloop runs without uvloop).
        own = root / ".venv" / "bin" / "python"
        self.python = str(own) if root != ROOT and own.exists() else sys.executable
        self.redis_url = redis_url
        self.data_dir = data_dir
        self.extra_env = dict(env or {})
        self.port = port or free_port()
        self.proc: subprocess.Popen | None = None
        self.log_path = data_dir / f"server-{self.port}.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def cli_module(self) -> str:
        """The CLI's module in the checkout: ``server.run.cli``, or ``server.cli`` in a checkout
        from before the packages by role (a bench comparing against one)."""
        return "server.run.cli" if (self.root / "server" / "run").is_dir() else "server.cli"

    def start(self, timeout: float = 30.0) -> ServerProcess:
        env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        # Tests and benches are one address creating rooms by the hundred, opening sockets
        # by the thousand and sending thousands of messages a second: the per-address limits
        # are lifted here and have tests of their own (test_limits.py, test_sockets.py,
        # test_arrival_budgets.py).
        env["NYUMBA_ROOMS_PER_MINUTE"] = "1000000"
        env["NYUMBA_IDENTITIES_PER_MINUTE"] = "1000000"  # players by the hundred (archivekit)
        env["NYUMBA_SOCKETS_PER_ADDRESS"] = "1000000"
        env["NYUMBA_RATE_MESSAGES_PER_ADDRESS"] = "1000000000"
        env["NYUMBA_OPENS_PER_MINUTE"] = "1000000000"
        env["NYUMBA_JOINS_PER_MINUTE"] = "1000000000"
        env["NYUMBA_ROOM_VISITORS_PER_MINUTE"] = "1000000000"
        env["NYUMBA_REPORTS_PER_MINUTE"] = "1000000"  # every browser test's page reports its device
        # A test's bots seek and are paired without joining, from the same address as its
        # browsers: the lobby's pairings in flight and cooldowns per address are lifted too
        # (tests/server/live/test_lobby_fairness.py sets them back).
        env["NYUMBA_PAIRINGS_PER_ADDRESS"] = "1000000"
        env["NYUMBA_SEEK_COOLDOWNS_MS"] = "0"
        # Every test player connects from 127.0.0.1: rated games are rated as a club's behind one
        # address are; the address rule has tests of its own (test_ratedness.py).
        env["NYUMBA_RATED_SAME_ADDRESS"] = "on"
        env.update(self.extra_env)
        if self.redis_url:
            env["REDIS_URL"] = self.redis_url
        env["NYUMBA_DATA_DIR"] = str(self.data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as log:  # the child keeps its own copy
            self.proc = subprocess.Popen(
                [self.python, "-m", self.cli_module(), "serve", "--port", str(self.port)],
                cwd=self.root,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited early:\n{self.log()}")
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server did not become healthy:\n{self.log()}")

    def log(self) -> str:
        try:
            return self.log_path.read_text()[-4000:]
        except OSError:
            return ""

    def stop(self, kill: bool = False) -> None:
        if self.proc and self.proc.poll() is None:
            if kill:
                self.proc.kill()
            else:
                self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def make_server(store: str, tmp: Path, key_prefix: str, **env: str) -> ServerProcess:
    """A started server on ``store`` ("embedded" or "redis")."""
    env = {"NYUMBA_KEY_PREFIX": key_prefix, **env}
    url = os.environ["REDIS_URL"] if store == "redis" else None
    return ServerProcess(redis_url=url, data_dir=tmp, env=env).start()
