"""``nyumba serve --workers N``: N node processes on one port, one store, one computer.

A node is one Python process and uses one core. Here a supervising parent
starts N of them, each a full node (its own connections, fan-out, presence and
computer seats; rooms live in the store, so players of one room may sit on
different workers exactly as on different machines).

The parent binds the port once and hands the listening socket down to every
worker, rather than each worker binding it with ``SO_REUSEPORT``:

* The port stays bound while workers come and go. With ``SO_REUSEPORT`` each
  worker has an accept queue of its own, and Linux resets the connections
  waiting in a queue whose socket closes: a worker's crash would drop the
  handshakes in flight to it. With one shared queue the other workers take
  them, and the restarted worker simply joins in.
* A worker accepts when it is waiting to, so a busy worker takes fewer new
  connections; ``SO_REUSEPORT`` spreads by a hash of the addresses, blind to
  load.
* No other process can join the port (any process of the same user can join
  an ``SO_REUSEPORT`` group), and it works the same where ``SO_REUSEPORT``
  does not spread at all (macOS).

The price, every worker waking for each new connection, is small for
WebSockets that live for minutes.

The parent also starts the embedded Valkey once (when no Redis URL is given)
and keeps the machine's one ``Computer`` (``server/computer/link.py``): seat
and hint processes shared by all workers, not N pools. It runs no node. A
worker that exits is started again (its players' pages reconnect, land on any
worker, and resume from the store), after a pause that grows while workers die
young; a worker that cannot stay up (five deaths in a row within 10 s of
starting) stops the whole server with status 1. Each worker has a process
group of its own: once it has exited, what it started (its replay processes)
is ended with it, and a terminal's Ctrl-C reaches the supervisor alone, which
passes it on as SIGTERM. SIGTERM or SIGINT: every worker drains (uvicorn
closes its sockets with 1012 and finishes its requests), then the parent
stops the store and exits 0.

One scrape of the port sums every worker: the supervisor gives them one metrics directory
(``server/run/multiproc.py``), and a worker that exits stops counting in the live gauges.

Each worker says which it is: ``GET /healthz`` answers ``worker`` (its index),
``node`` and ``pid``, and a WebSocket's handshake response carries
``x-nyumba-node`` (the node id, ``w<index>-...``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import sys

import msgspec

from server.computer import link as computer_link
from server.computer.pool import Computer
from server.ops.config import Settings
from server.run import multiproc
from server.store.embedded import _die_with_parent, embedded_valkey

log = logging.getLogger("nyumba.workers")

DRAIN_S = 15.0  # a worker's time to drain after SIGTERM (uvicorn gives sockets 5 s) before SIGKILL
YOUNG_S = 10.0  # a worker that dies sooner than this after starting counts towards a crash loop
CRASH_LOOP = 5  # young deaths in a row of one worker that stop the server


def bind(host: str, port: int) -> socket.socket:
    """The listening socket every worker accepts on (as uvicorn would bind it)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


class Supervisor:
    def __init__(self, settings: Settings, listener: socket.socket):
        self.settings = settings
        self.listener = listener
        self.computer = Computer(settings.computer_workers)
        self.procs: dict[int, asyncio.subprocess.Process] = {}
        self.stopping = asyncio.Event()
        self.failed = False
        self._links: set[asyncio.Task] = set()

    async def run(self) -> int:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stop)
        keepers = [
            asyncio.create_task(self._keep(i), name=f"worker-{i}")
            for i in range(self.settings.workers)
        ]
        await self.stopping.wait()
        await self._drain()
        for task in keepers:
            task.cancel()
        for task in (*keepers, *self._links):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.computer.close()
        return 1 if self.failed else 0

    def stop(self) -> None:
        if not self.stopping.is_set():
            log.info("stopping: draining %d workers", len(self.procs))
            self.stopping.set()

    async def _spawn(self, index: int) -> asyncio.subprocess.Process:
        ours, theirs = socket.socketpair()  # the worker's line to the shared computer
        env = {
            **os.environ,
            "HOST": self.settings.host,  # for what it says (it listens on the socket below)
            "PORT": str(self.settings.port),
            "REDIS_URL": self.settings.redis_url or "",
            "NYUMBA_DATA_DIR": str(self.settings.data_dir),
            "NYUMBA_WORKER": str(index),
            "NYUMBA_LISTEN_FD": str(self.listener.fileno()),
            "NYUMBA_COMPUTER_FD": str(theirs.fileno()),
        }
        try:
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "server.run.cli",
                "serve",
                env=env,
                pass_fds=(self.listener.fileno(), theirs.fileno()),
                preexec_fn=_die_with_parent,  # a killed supervisor takes its workers along
                start_new_session=True,  # a group of its own: what it leaves behind is found
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        link = asyncio.create_task(computer_link.serve(self.computer, ours))
        self._links.add(link)
        link.add_done_callback(self._links.discard)
        log.info("worker %d started (pid %d)", index, proc.pid)
        return proc

    async def _keep(self, index: int) -> None:
        """Run worker ``index`` until the server stops, starting it again when it dies."""
        loop = asyncio.get_running_loop()
        young_deaths = 0
        while not self.stopping.is_set():
            started = loop.time()
            try:
                proc = self.procs[index] = await self._spawn(index)
            except OSError as exc:  # could not even start it (no memory, no fds): as a death
                what, pid = f"could not start ({exc})", None
            else:
                if self.stopping.is_set():  # stopped while it started: the drain may miss it
                    proc.send_signal(signal.SIGTERM)
                code = await proc.wait()
                _end_group(proc.pid)
                multiproc.process_gone(proc.pid)
                if self.stopping.is_set():
                    return
                what, pid = f"exited with status {code}", proc.pid
            young_deaths = young_deaths + 1 if loop.time() - started < YOUNG_S else 0
            if young_deaths >= CRASH_LOOP:
                log.error("worker %d keeps dying (%s); stopping the server", index, what)
                self.failed = True
                self.stop()
                return
            pause = 0.0 if young_deaths <= 1 else min(8.0, 0.25 * 2**young_deaths)
            log.warning(
                "worker %d (pid %s) %s; starting it again in %.1f s", index, pid, what, pause
            )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stopping.wait(), pause)

    async def _drain(self) -> None:
        alive = [p for p in self.procs.values() if p.returncode is None]
        for proc in alive:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(asyncio.gather(*(p.wait() for p in alive)), DRAIN_S)
        except TimeoutError:
            for proc in alive:
                if proc.returncode is None:
                    log.warning("worker pid %d did not drain in %.0f s: killed", proc.pid, DRAIN_S)
                    with contextlib.suppress(ProcessLookupError):
                        proc.kill()
            await asyncio.gather(*(p.wait() for p in alive))
        for proc in alive:
            _end_group(proc.pid)
        log.info("all workers stopped")


def _end_group(pid: int) -> None:
    """Kill what a worker that has exited left in its process group: a SIGKILLed
    worker's replay and analysis processes would otherwise live on, orphaned."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def supervise(settings: Settings) -> int:
    """Run ``settings.workers`` workers until SIGTERM or SIGINT; the exit status."""
    from server.run.fdlimit import raise_fd_limit

    raise_fd_limit()
    try:
        listener = bind(settings.host, settings.port)
    except OSError as exc:  # taken, or not an address of this machine: say which
        log.error("cannot listen on %s:%d: %s", settings.host, settings.port, exc.strerror or exc)
        return 1
    log.info(
        "%d workers on %s:%d (pid %d)", settings.workers, settings.host, settings.port, os.getpid()
    )
    with contextlib.ExitStack() as stack:
        stack.callback(listener.close)
        if settings.redis_url is None:
            url = stack.enter_context(embedded_valkey(settings.data_dir / "valkey"))
            log.info("embedded Valkey at %s (data in %s)", url, settings.data_dir / "valkey")
            settings = msgspec.structs.replace(settings, redis_url=url)
        return asyncio.run(Supervisor(settings, listener).run())
