"""The shipped nginx proxy (deploy/proxy/nginx.conf) run as a process for tests, changed only
where a test must: the upstream servers (local nodes instead of the compose hostnames), the
listening address and port, and where nginx keeps its pid, temp files and logs."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

import httpx
import pytest

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"


def nginx_binary() -> str:
    path = shutil.which("nginx") or (
        "/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None
    )
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("nginx is missing: .ci/apt-packages installs it")
        pytest.skip("nginx is not installed on this machine (CI installs it)")
    return path


def nginx_config(tmp: Path, listen: str, ports: list[int]) -> Path:
    """deploy/proxy/nginx.conf with the compose hostnames replaced by local node ports (in
    each upstream) and ``listen 80`` by ``listen`` (``address:port``)."""
    text = (DEPLOY / "proxy" / "nginx.conf").read_text()
    servers = "".join(f"        server 127.0.0.1:{p};\n" for p in ports)
    # Each upstream's servers (the round-robin one, and /ws's by room)
    text, count = re.subn(r"(?:        server app\d+:8000[^\n]*\n)+", servers, text)
    assert count == 2
    text, count = re.subn(r"listen 80;", f"listen {listen};", text)
    assert count == 1
    text = text.replace(
        "http {",
        f"http {{\n    access_log {tmp}/access.log;\n    client_body_temp_path {tmp}/body;\n"
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


class Nginx:
    """``with Nginx(tmp, "127.0.0.2:8080", [node ports]) as base_url: ...``"""

    def __init__(self, tmp: Path, listen: str, ports: list[int]):
        self.binary = nginx_binary()
        self.conf = nginx_config(tmp, listen, ports)
        self.base = f"http://{listen}"
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> str:
        subprocess.run([self.binary, "-t", "-c", str(self.conf)], check=True, capture_output=True)
        self.proc = subprocess.Popen(
            [self.binary, "-c", str(self.conf), "-g", "daemon off;"], stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.base + "/healthz").status_code == 200:
                    return self.base
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise AssertionError("nginx did not answer")

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)


class Relay:
    """A TCP relay that reaches ``target`` from the source address ``source``: a second
    player's machine, as far as the proxy can tell (only loopback addresses are used)."""

    def __init__(self, source: str, target: tuple[str, int]):
        self.source = source
        self.target = target
        self.port = 0
        self.ready = threading.Event()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.done: asyncio.Event | None = None
        self.thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        assert self.ready.wait(10)
        return f"http://{self.source}:{self.port}"

    def __exit__(self, *exc: object) -> None:
        assert self.loop is not None and self.done is not None
        self.loop.call_soon_threadsafe(self.done.set)
        self.thread.join(10)

    async def _main(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.done = asyncio.Event()
        writers: set[asyncio.StreamWriter] = set()
        tasks: set[asyncio.Task[None]] = set()

        async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            tasks.add(asyncio.current_task())  # type: ignore[arg-type]
            writers.add(writer)
            try:
                up_r, up_w = await asyncio.open_connection(
                    *self.target, local_addr=(self.source, 0)
                )
            except OSError:
                writer.close()
                return
            writers.add(up_w)
            await asyncio.gather(_copy(reader, up_w), _copy(up_r, writer))

        server = await asyncio.start_server(pipe, self.source, 0)
        self.port = server.sockets[0].getsockname()[1]
        self.ready.set()
        await self.done.wait()
        server.close()
        for w in writers:
            w.close()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for w in writers:
            with contextlib.suppress(Exception):
                await w.wait_closed()
        await server.wait_closed()


async def _copy(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
    try:
        while data := await src.read(65536):
            dst.write(data)
            await dst.drain()
    except OSError:
        pass
    finally:
        dst.close()
