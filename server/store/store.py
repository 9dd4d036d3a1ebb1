"""Rooms in Redis (or the embedded Valkey): one hash per room, written only by
an atomic compare-and-set that also refreshes expiry and publishes.

Keys (every key carries a hash tag, so on a Cluster a room's keys share one
slot and each script touches one slot)::

    <prefix>room:{id}                  hash: rev, stamp, data (a Room and moves: rooms.stored)
    <prefix>room:{id}:presence         sorted set: "<side>:<conn>" or "w:<conn>" -> expiry ms
    <prefix>room:{id}:lease            the node playing the room's computer seat (short TTL)
    <prefix>room:{id}:sync             written before WAIT (``NYUMBA_ACK_REPLICAS``; 60 s TTL)
    <prefix>quota:rooms:{addr}:<min>   rooms created by a client address in a minute
    <prefix>archive:{waiting}          rooms whose finished games wait (server/store/waiting.py;
    <prefix>archive:waiting:{<tag>}    on a Cluster, one set per slot: server/store/slots.py)
    channel <prefix>room:{id}          notices (``Notice``, msgpack)
    channel <prefix>node:{node}        one node's own channel

The store is found from the URL (``server.store.topology``): one Redis/Valkey, a
Cluster (detected: any node's address will do, or several, its seeds; sharded
pub/sub, slot routing) or a Sentinel-managed master (``redis+sentinel://``).
"""

from __future__ import annotations

from typing import Any

from redis.exceptions import ResponseError

from server.ops import metrics
from server.rooms import layout
from server.rooms.notice import REREAD
from server.store import slots, topology
from server.store.cluster import slot_of
from server.store.deadlines import index_key
from server.store.replicas import Replicas
from server.store.resp import COMMAND_TIMEOUT, CONNECT_TIMEOUT
from server.store.scripts import (
    _ADMIT,
    _CAS,
    _CAS_SHARDED,
    _CREATE,
    _PRUNE,
    _RELEASE,
    _TAKE,
    _TOUCH,
)

_CAS_RESULT = {0: "written", -1: "gone", 1: "conflict", 2: "behind", 3: "whole"}


class Store:
    def __init__(
        self,
        url: str,
        prefix: str = "nyumba:",
        *,
        connect_timeout: float = CONNECT_TIMEOUT,
        command_timeout: float = COMMAND_TIMEOUT,
    ):
        if "{" in prefix or "}" in prefix:
            raise ValueError("the key prefix may not contain { or } (Cluster hash tags)")
        self.url = url
        self.prefix = prefix
        self.timeouts = topology.Timeouts(
            connect_timeout=connect_timeout, command_timeout=command_timeout
        )
        self._use(topology.open_store(url, REREAD, **self.timeouts))
        # The layout this node writes rooms in: an unset flag's (which every release since
        # layouts had numbers reads) until the store's flag says otherwise
        # (``server/store/layouts.py`` follows it).
        self.layout = layout.UNSET

    async def start(self) -> None:
        """Find out what the URL names (``topology.found``): a Cluster node switches the
        store to the Cluster; of several nodes, the one that answers must be a Cluster's."""
        found = await topology.found(self.topology, self.url, REREAD, **self.timeouts)
        if found is not self.topology:
            self._use(found)

    def _use(self, t: topology.Topology) -> None:
        self.topology = t
        # The per-message path (load, compare-and-set, publish, presence, leases) shares
        # one multiplexed connection per master; pub/sub and the rest use ``redis``.
        self.link = t.link
        self.redis = t.redis
        self.sharded = t.kind == "cluster"
        if self.sharded:
            slots.tag_of(0)  # the slots' tags are found now, not at a first game's end
        self._cas = self.link.script(_CAS_SHARDED if self.sharded else _CAS)
        self._create = self.link.script(_CREATE)
        self._touch = self.link.script(_TOUCH)
        self._prune = self.link.script(_PRUNE)
        self._admit = self.link.script(_ADMIT)
        self._take = self.link.script(_TAKE)
        self._release = self.link.script(_RELEASE)
        self._replicas: Replicas | None = None

    def pubsub(self) -> Any:
        """A subscriber (``server.store.subscriber``; sharded on a Cluster, ``server.store.shardsub``):
        ``subscribe``, ``unsubscribe``, ``aclose``, and messages to its ``deliver``."""
        return self.topology.pubsub()

    # key names -------------------------------------------------------------
    def room_key(self, room_id: str) -> str:
        return f"{self.prefix}room:{{{room_id}}}"

    def presence_key(self, room_id: str) -> str:
        return self.room_key(room_id) + ":presence"

    def listeners_key(self, room_id: str) -> str:
        """The ids of the nodes listening to the room's channel (``listen``)."""
        return self.room_key(room_id) + ":nodes"

    def lease_key(self, room_id: str) -> str:
        return self.room_key(room_id) + ":lease"

    def waiting_key(self, room_id: str) -> str:
        """The waiting set the room's compare-and-set puts it in: the one set, or on a
        Cluster its slot's (``server/store/waiting.py``)."""
        if not self.sharded:
            return f"{self.prefix}archive:{{waiting}}"
        return f"{self.prefix}archive:waiting:{{{slots.tag_of(slot_of(self.room_key(room_id)))}}}"

    def channel(self, room_id: str) -> str:
        return self.room_key(room_id)

    def node_channel(self, node_id: str) -> str:
        return f"{self.prefix}node:{{{node_id}}}"

    def room_of_channel(self, channel: bytes | str) -> str:
        if isinstance(channel, bytes):
            channel = channel.decode()
        return channel[channel.index("{") + 1 : channel.rindex("}")]

    # rooms -----------------------------------------------------------------
    async def create(
        self, room_id: str, rev: int, data: bytes, expire_at_ms: int, stamp: str = ""
    ) -> bool:
        return bool(
            await self._create(keys=[self.room_key(room_id)], args=[rev, data, expire_at_ms, stamp])
        )

    async def load(self, room_id: str) -> tuple[bytes | None, list[tuple[bytes, float]]]:
        """The room's data and its presence entries, in one round trip."""
        key = self.room_key(room_id)
        data, flat = await self.link.execute_many(
            [("HGET", key, "data"), ("ZRANGE", key + ":presence", 0, -1, "WITHSCORES")]
        )
        return data, _pairs(flat)

    async def cas(
        self,
        room_id: str,
        expected_rev: int,
        new_rev: int,
        data: bytes,
        expire_at_ms: int,
        notice: bytes,
        *,
        stamp: str = "",
        expected_stamp: str = "",
        append: bytes = b"",
        under: bytes = b"",
        waiting: str = "",
        writer: str = "",
        deadline: int | None = None,
    ) -> int:
        """Write the room if the store still has the revision (and stamp) that was judged;
        see ``_CAS`` for the answers (0 written, -1 gone, 1 newer, 2 behind, 3 not in the
        layout ``under`` marks: write ``data`` whole). ``append``: the notice is a move to add
        to the stored room instead, after these bytes (``server/rooms/stored.py``), if the
        room's first byte is ``under`` (``server/rooms/layout.py``). ``waiting``: the room's
        place in the waiting set, in the same write (``_CAS``'s ARGV[11]: '', a due time,
        'done'). ``writer``: this node's id when it sends the notice to its own sockets itself
        (local fan-out): the store then publishes it only if another node listens.
        ``deadline``: the clocked room's new deadline, put in the deadline index by the same
        script (``server/store/deadlines.py``); not on a Cluster (``ValueError``), where the
        index has a slot of its own."""
        keys = [self.room_key(room_id), self.presence_key(room_id), self.listeners_key(room_id)]
        line: list[str | int] = []  # a game's moves send no more than before the waiting set came
        if waiting or deadline is not None:
            keys.append(self.waiting_key(room_id))
            line.append(waiting)
        if deadline is not None:
            if self.sharded:
                raise ValueError("on a Cluster the deadline index is written on its own slot")
            keys.append(index_key(self.prefix))
            line.append(deadline)
        result = int(
            await self._cas(
                keys=keys,
                args=[
                    expected_rev,
                    new_rev,
                    data,
                    expire_at_ms,
                    "" if self.sharded else writer,  # (a Cluster publishes every notice)
                    notice,
                    stamp,
                    expected_stamp,
                    append,
                    under,
                    *line,
                ],
            )
        )
        metrics.cas_results(_CAS_RESULT.get(result, "conflict")).inc()
        return result

    async def publish_to_node(self, node_id: str, data: bytes) -> None:
        """On a node's own channel (the metrics' pub/sub probe)."""
        command = "SPUBLISH" if self.sharded else "PUBLISH"
        await self.link.execute(command, self.node_channel(node_id), data)

    async def publish(self, room_id: str, notice: bytes) -> None:
        command = "SPUBLISH" if self.sharded else "PUBLISH"
        await self.link.execute(command, self.channel(room_id), notice)

    async def replicated(self, room_id: str, count: int, timeout_ms: int) -> bool:
        """Whether ``count`` replicas have what was written to the room so far
        (waiting at most ``timeout_ms``); see ``server.store.replicas``."""
        if count <= 0:
            return True
        if self._replicas is None:
            # WAIT holds its connection: a link of its own. The command deadline would
            # abort a WAIT longer than itself, so the ack timeout stays under it.
            limit = int(self.timeouts["command_timeout"] * 1000 * 0.75)
            timeout_ms = max(1, min(timeout_ms, limit))
            self._replicas = Replicas(self.topology.spare(), count, timeout_ms)
        return await self._replicas.confirm(self.room_key(room_id))

    async def count_in_minute(self, what: str, address: str, minute: int) -> int:
        """One more ``what`` (rooms, identities) from ``address`` in ``minute``: how many
        so far, this one included. Every node counts in the same key."""
        key = f"{self.prefix}quota:{what}:{{{address}}}:{minute}"
        count, _ = await self.link.execute_many([("INCR", key), ("EXPIRE", key, 120)])
        return int(count)

    async def count_report(self, key: str, field: str, expire_at_s: int) -> None:
        """One more ``field`` in the hash ``key`` (a day's counts), gone at ``expire_at_s``."""
        key = self.prefix + key
        await self.link.execute_many([("HINCRBY", key, field, 1), ("EXPIREAT", key, expire_at_s)])

    async def rated_pair_games(self, pair: str, since_ms: int) -> int:
        """Rated games the two players ``pair`` started since ``since_ms`` (store-clock ms)."""
        key = f"{self.prefix}rated-pair:{{{pair}}}"
        _, count = await self.link.execute_many(
            [("ZREMRANGEBYSCORE", key, "-inf", f"({since_ms}"), ("ZCARD", key)]
        )
        return int(count)

    async def count_rated_pair(self, pair: str, game: str, at_ms: int, keep_ms: int) -> None:
        """One more rated game ``game`` started by ``pair`` at ``at_ms``, kept ``keep_ms``."""
        key = f"{self.prefix}rated-pair:{{{pair}}}"
        await self.link.execute_many([("ZADD", key, at_ms, game), ("PEXPIRE", key, keep_ms)])

    # listening nodes -------------------------------------------------------
    async def listen(self, room_ids: list[str], node: str, ttl_ms: int) -> None:
        """``node`` listens to these rooms' channels (it subscribed them): the compare-and-set
        publishes their notices while a node other than the writer is in the set. An entry
        left by a node that died costs a publish nobody hears, never a notice missed."""
        commands: list[tuple] = []
        for room_id in room_ids:
            key = self.listeners_key(room_id)
            commands += [("SADD", key, node), ("PEXPIRE", key, ttl_ms)]
        if commands:
            await self.link.execute_many(commands)

    async def unlisten(self, room_id: str, node: str) -> None:
        await self.link.execute("SREM", self.listeners_key(room_id), node)

    # presence --------------------------------------------------------------
    async def touch_many(
        self,
        rooms: list[tuple[str, dict[str, int], int]],
        prune_before_ms: int | None = None,
        node: str = "",
    ) -> list[tuple[bool, list[tuple[bytes, float]], int, str]]:
        """``touch`` for several rooms in one write, each with its presence
        entries and stored revision read back: (room alive, entries, rev, stamp)
        per room. With ``prune_before_ms``, entries that ended by then are pruned
        first. With ``node``, it is (again) one of the rooms' listeners (``listen``):
        a set the store lost in a failover is whole again within a tick."""
        commands: list[tuple] = []
        for room_id, members, expire_at_ms in rooms:
            key = self.room_key(room_id)
            flat: list[Any] = []
            for member, score in members.items():
                flat += [member, score]
            commands.append(
                ("EVALSHA", self._touch.sha, 2, key, key + ":presence", expire_at_ms, *flat)
            )
            if prune_before_ms is not None:
                commands.append(("EVALSHA", self._prune.sha, 1, key + ":presence", prune_before_ms))
            commands.append(("ZRANGE", key + ":presence", 0, -1, "WITHSCORES"))
            commands.append(("HMGET", key, "rev", "stamp"))
        main = len(commands)
        if node:
            for room_id, _, expire_at_ms in rooms:
                nodes = self.listeners_key(room_id)
                commands += [("SADD", nodes, node), ("PEXPIREAT", nodes, expire_at_ms)]
        try:
            replies = await self.link.execute_many(commands)
        except ResponseError as exc:
            if not str(exc).startswith("NOSCRIPT"):
                raise
            for script in (_TOUCH, _PRUNE):  # a restarted store forgot them
                await self.link.load_script(script)
            replies = await self.link.execute_many(commands)
        replies = replies[:main]
        step = 3 if prune_before_ms is None else 4
        out = []
        for i in range(0, len(replies), step):
            rev, stamp = replies[i + step - 1]
            out.append(
                (bool(replies[i]), _pairs(replies[i + step - 2]), int(rev or -1), _text(stamp))
            )
        return out

    async def touch(self, room_id: str, members: dict[str, int], expire_at_ms: int) -> bool:
        args: list[Any] = [expire_at_ms]
        for member, score in members.items():
            args += [member, score]
        return bool(
            await self._touch(keys=[self.room_key(room_id), self.presence_key(room_id)], args=args)
        )

    async def present_count(self, room_id: str, after_ms: int) -> int:
        """Connections whose presence lasts beyond ``after_ms``."""
        return int(await self.link.execute("ZCOUNT", self.presence_key(room_id), after_ms, "+inf"))

    async def admit_visitor(
        self, room_id: str, member: str, after_ms: int, until_ms: int, cap: int
    ) -> bool:
        """Count ``member`` present until ``until_ms`` if fewer than ``cap``
        connections are present after ``after_ms``: one script, so simultaneous
        visitors cannot all pass a count taken before any of them was added (150
        joined a room capped at 64 when it was a count and then a write)."""
        return bool(
            await self._admit(
                keys=[self.presence_key(room_id)], args=[after_ms, until_ms, cap, member]
            )
        )

    async def end_presence(self, room_id: str, members: dict[str, int]) -> None:
        """Mark entries as ended at their score (kept as "last seen"); absent ones stay absent."""
        flat: list[Any] = []
        for member, score in members.items():
            flat += [score, member]
        await self.link.execute("ZADD", self.presence_key(room_id), "XX", *flat)

    # computer lease --------------------------------------------------------
    async def take_lease(self, room_id: str, node: str, ms: int) -> bool:
        return bool(await self._take(keys=[self.lease_key(room_id)], args=[node, ms]))

    async def extend_lease(self, room_id: str, ms: int) -> None:
        await self.link.execute("PEXPIRE", self.lease_key(room_id), ms)

    async def release_lease(self, room_id: str, node: str) -> None:
        await self._release(keys=[self.lease_key(room_id)], args=[node])

    async def ping(self) -> bool:
        return bool(await self.link.execute("PING"))

    async def close(self) -> None:
        self.link.close()
        if self._replicas is not None:
            self._replicas.link.close()
        await self.redis.aclose()


def _text(value: bytes | str | None) -> str:
    return value.decode() if isinstance(value, bytes) else (value or "")


def _pairs(flat: list) -> list[tuple[bytes, float]]:
    """ZRANGE ... WITHSCORES's flat reply as (member, score) pairs."""
    return [(flat[i], float(flat[i + 1])) for i in range(0, len(flat), 2)]


def watchers(members: list[tuple[bytes, float]], now_ms: int) -> int:
    """How many present connections hold no seat (their entries are ``w:<conn>``)."""
    return sum(1 for member, score in members if member.startswith(b"w:") and score > now_ms)


def presence_by_side(
    members: list[tuple[bytes, float]], now_ms: int
) -> dict[int, tuple[bool, int]]:
    """side -> (present, last seen ms) from the presence set's entries."""
    out: dict[int, tuple[bool, int]] = {}
    for member, score in members:
        head = member.split(b":", 1)[0]
        if head not in (b"0", b"1"):
            continue
        side = int(head)
        present, seen = out.get(side, (False, 0))
        out[side] = (present or score > now_ms, max(seen, int(score)))
    return out
