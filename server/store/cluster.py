"""The per-message path on a Redis/Valkey Cluster: ``ClusterLink``.

The same contract as ``server.store.resp.Link`` (``execute``, ``execute_many``,
``script``), routed by hash slot: one multiplexed connection per master, and
the commands a batch (or a turn of the event loop) sends are grouped by the
master that owns their slot, one write each. The slot map comes from
``CLUSTER SHARDS`` (``CLUSTER SLOTS`` on servers without it), is loaded at the
first command and again whenever the cluster says it changed, from whichever node
answers first of those the link knows: the masters, then the other nodes the last
map named (their replicas), then the seeds it was given — so neither a dead seed
nor a moment when no master answers keeps it from the map:

* ``MOVED slot addr``: the slot has a new owner — remember it, refresh the
  whole map in the background (a resharding or failover moves many slots),
  send the command there;
* ``ASK slot addr``: the slot is migrating and this key already left — send
  ``ASKING`` and the command to ``addr``, once, without changing the map;
* ``TRYAGAIN`` (a script's keys are split mid-migration), ``CLUSTERDOWN``,
  ``LOADING``, ``MASTERDOWN``, ``READONLY``, a lost or refused connection
  (a master died; its replica is being promoted): wait, refresh the map,
  send again, for about ten seconds in all (a failover takes a few seconds).

Only commands that may run twice go through here, as with ``Link``: a
compare-and-set resent after it landed finds its own revision and is
re-judged by the caller, never applied twice.

Why not redis-py's ``RedisCluster``: it checks out a connection per command
and parses replies in Python objects per call; measured in the note of issue
18 (``tests/bench/store_rtt.py``), this link's cost per round trip stays that
of the single-server link.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Sequence
from typing import Any

import hiredis
from redis.asyncio.connection import parse_url
from redis.crc import key_slot
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ReadOnlyError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store.resp import (
    COMMAND_TIMEOUT,
    CONNECT_TIMEOUT,
    Script,
    _consume,
    _Protocol,
    open_protocol,
)

SLOTS = 16384
# About ten seconds in all: a master's failure is detected and its replica
# promoted within a few seconds when cluster-node-timeout is short.
RETRY_DELAYS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.5, 1.0, 1.0, 1.0, 1.0, 1.5, 1.5, 1.5)
# Errors after which the same command, sent again a little later, succeeds.
_TRANSIENT = ("TRYAGAIN", "CLUSTERDOWN", "LOADING", "MASTERDOWN", "READONLY")
_KEYLESS = {"PING", "WAIT", "WAITAOF", "SCRIPT", "INFO", "CLUSTER", "ASKING", "SELECT"}
_ASKING = hiredis.pack_command(("ASKING",))
_SHARDS = hiredis.pack_command(("CLUSTER", "SHARDS"))  # type: ignore[arg-type]
_SLOTS = hiredis.pack_command(("CLUSTER", "SLOTS"))  # type: ignore[arg-type]


def slot_of(key: str | bytes) -> int:
    return key_slot(key.encode() if isinstance(key, str) else key)


def command_key(cmd: tuple) -> Any:
    """The key a command's slot is judged by (None: any node will do)."""
    name = cmd[0].upper() if isinstance(cmd[0], str) else cmd[0].decode().upper()
    if name in ("EVALSHA", "EVAL", "EVALSHA_RO", "EVAL_RO", "FCALL"):
        return cmd[3] if int(cmd[2]) > 0 else None
    if name in _KEYLESS:
        return None
    return cmd[1]


def _node_address(info: dict, asked: str) -> str:
    """A node's "host:port" in a ``CLUSTER SHARDS`` reply (an unknown host: the asked one's)."""
    host = (info.get(b"endpoint") or info.get(b"ip") or b"").decode()
    if host in ("", "?"):
        host = asked.rsplit(":", 1)[0]
    return f"{host}:{info.get(b'port') or info.get(b'tls-port')}"


def parse_shards(reply: list, asked: str) -> dict[tuple[int, int], str]:
    """``CLUSTER SHARDS`` → {(first slot, last slot): "host:port" of the master}."""
    out: dict[tuple[int, int], str] = {}
    for shard in reply:
        fields = dict(zip(shard[::2], shard[1::2]))
        ranges = fields[b"slots"]
        master = None
        for node in fields[b"nodes"]:
            info = dict(zip(node[::2], node[1::2]))
            if info.get(b"role") != b"master":
                continue
            address = _node_address(info, asked)
            if master is None or info.get(b"health") == b"online":
                master = address
        if master is None:
            continue
        for i in range(0, len(ranges), 2):
            out[(int(ranges[i]), int(ranges[i + 1]))] = master
    return out


def shard_nodes(reply: list, asked: str) -> list[str]:
    """Every node a ``CLUSTER SHARDS`` reply names, replicas too, those online first."""
    shards = [dict(zip(shard[::2], shard[1::2])) for shard in reply]
    infos = [dict(zip(n[::2], n[1::2])) for shard in shards for n in shard[b"nodes"]]
    infos.sort(key=lambda info: info.get(b"health") != b"online")
    return [_node_address(info, asked) for info in infos]


def parse_slots(reply: list, asked: str) -> dict[tuple[int, int], str]:
    """``CLUSTER SLOTS`` (servers before Redis 7) → the same shape."""
    out: dict[tuple[int, int], str] = {}
    for entry in reply:
        host = entry[2][0].decode() or asked.rsplit(":", 1)[0]
        out[(int(entry[0]), int(entry[1]))] = f"{host}:{entry[2][1]}"
    return out


def slots_nodes(reply: list, asked: str) -> list[str]:
    """Every node a ``CLUSTER SLOTS`` reply names (each range's master, then its replicas)."""
    return [f"{n[0].decode() or asked.rsplit(':', 1)[0]}:{n[1]}" for e in reply for n in e[2:]]


def _close_opened(connecting: asyncio.Future) -> None:
    """Close the connection a connect that finished despite its cancel opened."""
    if not connecting.cancelled() and connecting.exception() is None:
        transport = connecting.result().transport
        if transport is not None:
            transport.close()


class ClusterLink:
    """``await link.execute("HGET", key, "data")`` on whichever master owns ``key``."""

    def __init__(
        self,
        seeds: str | Sequence[str],
        *,
        connect_timeout: float = CONNECT_TIMEOUT,
        command_timeout: float = COMMAND_TIMEOUT,
        retry_delays: tuple[float, ...] = RETRY_DELAYS,
    ):
        """``seeds``: the URL of a node of the cluster, or the URLs of several (one
        each; the credentials, database and TLS are the first's)."""
        urls = [seeds] if isinstance(seeds, str) else list(seeds)
        self.params = parse_url(urls[0])
        self.connect_timeout = connect_timeout
        self.command_timeout = command_timeout
        self.tls = urls[0].startswith("rediss://")
        self.retry_delays = retry_delays
        self.seeds = []
        for url in urls:
            params = parse_url(url)
            self.seeds.append(f"{params.get('host', 'localhost')}:{params.get('port', 6379)}")
        self.owner: list[str | None] = [None] * SLOTS  # slot -> "host:port" of its master
        self._masters: list[str] = []  # the masters that own slots, kept with ``owner``
        self.nodes: list[str] = []  # every node the last map named, replicas too
        self.conns: dict[str, _Protocol] = {}
        self._connecting: dict[str, asyncio.Future] = {}
        self._refreshing: asyncio.Future | None = None
        self.closed = False  # after ``close``, a connection that opens is closed at once
        self.refreshes = 0  # slot map loads, for the tests and the logs
        self.redirects: collections.Counter[str] = collections.Counter()  # MOVED, ASK, ...
        self.map_changed: list = []  # callables told after each refresh (the subscriber)

    # the slot map --------------------------------------------------------------
    @property
    def masters(self) -> list[str]:
        return self._masters

    def _set_owner(self, slot: int, address: str) -> None:
        self.owner[slot] = address
        if address not in self._masters:
            self._masters = sorted({a for a in self.owner if a is not None})

    def address_of(self, key: str | bytes) -> str | None:
        return self.owner[slot_of(key)]

    async def refresh(self) -> None:
        """Load the slot map (one load at a time; callers meanwhile share it)."""
        if self._refreshing is None:
            self._refreshing = asyncio.ensure_future(self._load_map())
        refreshing = self._refreshing
        try:
            await asyncio.shield(refreshing)
        finally:
            if self._refreshing is refreshing and refreshing.done():
                self._refreshing = None

    def refresh_soon(self) -> None:
        if self._refreshing is None:
            task = asyncio.ensure_future(self.refresh())
            task.add_done_callback(_consume)

    def map_sources(self) -> list[str]:
        """Where to ask for the slot map, in order: the masters, the other nodes the last
        map named (a replica answers as well), the seeds (one may be long gone)."""
        return list(dict.fromkeys([*self.masters, *self.nodes, *self.seeds]))

    async def _load_map(self) -> None:
        last: Exception | None = None
        for address in self.map_sources():
            try:
                proto = await self._protocol(address)
                try:
                    reply = await proto.request(_SHARDS)
                    ranges, nodes = parse_shards(reply, address), shard_nodes(reply, address)
                except ResponseError:  # before Redis 7
                    reply = await proto.request(_SLOTS)
                    ranges, nodes = parse_slots(reply, address), slots_nodes(reply, address)
            # A stalled node (its command deadline passed) is passed over like a dead one.
            except (OSError, RedisConnectionError, RedisTimeoutError, ResponseError) as exc:
                last = exc
                continue
            if not ranges:
                last = RedisConnectionError(f"{address} knows no slots yet")
                continue
            owner: list[str | None] = [None] * SLOTS
            for (first, end), master in ranges.items():
                owner[first : end + 1] = [master] * (end + 1 - first)
            self.owner = owner
            self._masters = sorted(set(ranges.values()))
            self.nodes = nodes
            self.refreshes += 1
            for listener in self.map_changed:
                listener()
            return
        raise RedisConnectionError(f"no cluster node answers: {last}")

    # connections ---------------------------------------------------------------
    async def _protocol(self, address: str) -> _Protocol:
        proto = self.conns.get(address)
        if proto is not None and proto.lost is None:
            return proto
        connecting = self._connecting.get(address)
        if connecting is None:
            host, port = address.rsplit(":", 1)
            connecting = asyncio.ensure_future(
                asyncio.wait_for(
                    open_protocol(
                        dict(self.params), self.tls, host, int(port), self.command_timeout
                    ),
                    self.connect_timeout,
                )
            )
            self._connecting[address] = connecting
        try:
            opened: _Protocol = await asyncio.shield(connecting)
        except (OSError, TimeoutError) as exc:  # a dead master: its slots move soon
            raise RedisConnectionError(f"cannot reach {address}: {exc}") from exc
        finally:
            if self._connecting.get(address) is connecting and connecting.done():
                del self._connecting[address]
        if self.closed:
            if opened.transport is not None:
                opened.transport.close()
            raise RedisConnectionError("the cluster link is closed")
        self.conns[address] = opened
        return opened

    # commands ------------------------------------------------------------------
    async def execute(self, *args: Any) -> Any:
        return (await self._run([args]))[0]

    async def execute_many(self, commands: list[tuple]) -> list[Any]:
        """Several commands, grouped by master, one write each; replies in order."""
        return await self._run(commands)

    async def execute_on(self, address: str, *args: Any) -> Any:
        proto = await self._protocol(address)
        return await proto.request(hiredis.pack_command(args))

    async def _run(self, commands: list[tuple]) -> list[Any]:
        n = len(commands)
        packed = [hiredis.pack_command(c) for c in commands]
        slots: list[int | None] = []
        for c in commands:
            key = command_key(c)
            slots.append(None if key is None else slot_of(key))
        if any(s is not None and self.owner[s] is None for s in slots) or not self.masters:
            await self.refresh()
        results: list[Any] = [None] * n
        asking: dict[int, str] = {}
        pending = list(range(n))
        delays = collections.deque(self.retry_delays)
        rounds = 0
        while True:
            sent: list[tuple[int, asyncio.Future]] = []
            previous: str | None = None
            try:
                for i in pending:
                    slot = slots[i]
                    if i in asking:
                        address = asking[i]
                    elif slot is not None:
                        address = self.owner[slot] or self.masters[0]
                    else:  # keyless: where the batch's previous command went (WAIT after SET)
                        address = previous or self.masters[0]
                    previous = address
                    proto = self.conns.get(address)
                    if proto is None or proto.lost is not None:
                        proto = await self._protocol(address)
                    if i in asking:
                        proto.request(_ASKING).add_done_callback(_consume)
                    sent.append((i, proto.request(packed[i])))
            except RedisConnectionError as exc:  # a master is unreachable: retry all unsent
                for j in pending[len(sent) :]:
                    fut = asyncio.get_running_loop().create_future()
                    fut.set_exception(exc)
                    sent.append((j, fut))
            retry: list[int] = []
            wait = refresh = False
            asking = {}
            for i, fut in sent:
                try:
                    results[i] = await fut
                except ReadOnlyError as exc:
                    results[i], refresh, wait = exc, True, True
                    retry.append(i)
                except ResponseError as exc:
                    text = str(exc)
                    self.redirects[text.split(" ", 1)[0]] += 1
                    if text.startswith("MOVED "):
                        _, moved_slot, address = text.split()
                        self._set_owner(int(moved_slot), address)
                        self.refresh_soon()
                        retry.append(i)
                    elif text.startswith("ASK "):
                        asking[i] = text.split()[2]
                        retry.append(i)
                    elif text.startswith(_TRANSIENT):
                        wait = True
                        refresh = refresh or text.startswith("CLUSTERDOWN")
                        retry.append(i)
                    results[i] = exc
                except RedisConnectionError as exc:
                    results[i], refresh, wait = exc, True, True
                    retry.append(i)
            # A keyless command bound to the one before it (WAIT after its SET) goes again
            # with it, to the same master.
            for i in list(retry):
                if i + 1 < n and slots[i + 1] is None and i + 1 not in retry:
                    retry.append(i + 1)
            retry.sort()
            rounds += 1
            if rounds > 8:  # redirected again and again: the map is in flux, slow down
                wait = True
            if not retry:
                break
            if wait:
                if not delays:
                    break
                await asyncio.sleep(delays.popleft())
            if refresh:
                try:
                    await self.refresh()
                except RedisConnectionError:
                    pass  # the next round fails again and waits longer
            pending = retry
        for r in results:
            if isinstance(r, Exception):
                raise r
        return results

    def script(self, text: str) -> Script:
        return Script(self, text)  # type: ignore[arg-type]

    async def load_script(self, text: str) -> None:
        """Every master keeps its own script cache."""
        if not self.masters:
            await self.refresh()
        await asyncio.gather(*(self.execute_on(a, "SCRIPT", "LOAD", text) for a in self.masters))

    def close(self) -> None:
        """Close every connection, those still opening too (a slot-map refresh or a redirect
        may be connecting; left alone, the socket it opens would outlive the link)."""
        self.closed = True
        for proto in self.conns.values():
            if proto.transport is not None:
                proto.transport.close()
        self.conns.clear()
        for connecting in self._connecting.values():
            connecting.cancel()
            connecting.add_done_callback(_close_opened)
        self._connecting.clear()
        if self._refreshing is not None:
            self._refreshing.cancel()
