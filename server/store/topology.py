"""What ``REDIS_URL`` names, and the clients for it.

* ``redis://`` / ``rediss://`` / ``unix://``: one Redis or Valkey — or any node
  of a Cluster, detected at start (``INFO cluster``), no other setting;
* ``redis://[user:password@]host:port[,host:port…][/db]``: several nodes of one
  Cluster, its seeds (the host list as in the Sentinel form below; a port left out
  is 6379; the credentials, database and TLS apply to every node). They are asked
  in turn, each within the connect deadline, until one answers; that one decides
  whether this is a Cluster, and if it is not, the list is refused
  (``NotACluster``): several nodes of anything else would be several stores. The
  Cluster's clients keep every seed, so a seed that is down when a node (re)starts,
  or when the slot map is reloaded, is passed over;
* ``redis+sentinel://host:port[,host:port…]/service_name[/db]``: the master
  that the Sentinels name for ``service_name``, asked again at every
  reconnection, so the store follows a failover. A password in the URL
  (``redis+sentinel://:pw@h1:26379,h2:26379/name``) is the master's.

Each topology has ``link`` (the multiplexed per-message path: ``server.store.resp``
or ``server.store.cluster``), ``redis`` (a redis-py client for the rest) and
``pubsub()`` (a subscriber: ``server.store.subscriber`` on one master, ``server.store.shardsub`` on a
Cluster).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypedDict, Unpack
from urllib.parse import quote

import msgspec
import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.ops.urls import is_sentinel, node_address, parse_sentinel_url, seed_urls
from server.store.cluster import ClusterLink
from server.store.resp import RETRY_DELAYS, Link
from server.store.shardsub import ShardedPubSub
from server.store.subscriber import Subscriber

# A Sentinel failover (down-after-milliseconds, then the election and the
# promotion) takes seconds: commands are retried this long, about 12 s.
SENTINEL_RETRY_DELAYS = (0.05, 0.1, 0.2, 0.4, 0.8, 1.0, 1.0, 1.0, 1.5, 1.5, 1.5, 1.5, 1.5)


class Timeouts(TypedDict):
    connect_timeout: float
    command_timeout: float


class Topology(msgspec.Struct, kw_only=True):
    kind: str  # "single", "cluster" or "sentinel"
    link: Any
    redis: Any
    pubsub: Callable[[], Any]
    # Another link like ``link``, for the replicas' WAIT: it holds its connection until
    # the replicas answer (up to the ack timeout), which must not stall every message.
    spare: Callable[[], Any]


def _one_master(kind: str, redis: Any, link: Callable[[], Any]) -> Topology:
    """A store with one master (a single server, or Sentinel's current master)."""
    return Topology(
        kind=kind,
        link=link(),
        redis=redis,
        pubsub=lambda: Subscriber(link()),  # a link for its address; it sends no commands
        spare=link,
    )


def _pool_client(url: str, connect_timeout: float, command_timeout: float) -> aioredis.Redis:
    # A bounded pool that waits (up to the command deadline) for a free connection
    # instead of failing under bursts. Connections broken by a store restart are
    # retried on a fresh connection; a timeout is not retried, so a stalled store
    # shows as ``TimeoutError`` within the deadline rather than after several. A
    # compare-and-set retried after it did land finds its own revision and is
    # re-judged, never applied twice. (Pub/sub reads block without a deadline.)
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=64,
        timeout=command_timeout,
        socket_connect_timeout=connect_timeout,
        socket_timeout=command_timeout,
        health_check_interval=30,
        retry=Retry(
            ExponentialBackoff(cap=1.0, base=0.05), 4, supported_errors=(RedisConnectionError,)
        ),
        retry_on_error=[RedisConnectionError],
    )
    return aioredis.Redis.from_pool(pool)  # the client owns it: closing the client closes it


def open_single(url: str, *, connect_timeout: float, command_timeout: float) -> Topology:
    redis = _pool_client(url, connect_timeout, command_timeout)

    def link() -> Link:
        return Link(url, connect_timeout=connect_timeout, command_timeout=command_timeout)

    return _one_master("single", redis, link)


async def is_cluster(link: Link) -> bool:
    try:
        info = await link.execute("INFO", "cluster")
    except ResponseError:  # INFO renamed or refused (some managed services): not a cluster
        return False
    return b"cluster_enabled:1" in info


class NotACluster(ValueError):
    """Several nodes were named, and the one that answered is no Cluster node."""

    def __init__(self, address: str):
        super().__init__(
            f"it lists several nodes, which only a Cluster's seeds may be, and {address}, "
            f"which answered, is no Cluster node (name one Redis alone, or Sentinels with "
            f"redis+sentinel://)"
        )


async def is_cluster_at(url: str, *, connect_timeout: float, command_timeout: float) -> bool:
    """Whether the node ``url`` names is a Cluster node: asked once, within the deadlines.
    A refused AUTH or SELECT raises ``ResponseError`` (it is not a "no")."""
    link = Link(
        url, connect_timeout=connect_timeout, command_timeout=command_timeout, retry_delays=()
    )
    try:
        await link.execute("PING")
        return await is_cluster(link)
    finally:
        link.close()


async def check_seeds(
    seeds: list[str],
    *,
    connect_timeout: float,
    command_timeout: float,
    delays: tuple[float, ...] = RETRY_DELAYS,
) -> None:
    """Ask ``seeds`` in turn until one answers, each within the deadlines; round after
    round, ``delays`` apart (the patience of one node's link). ``NotACluster`` if the
    node that answers is none; ``ConnectionError`` if none answers (a refused password
    counts as no answer)."""
    last: Exception | None = None
    for delay in (*delays, None):
        for seed in seeds:
            try:
                cluster = await is_cluster_at(
                    seed, connect_timeout=connect_timeout, command_timeout=command_timeout
                )
            except (RedisConnectionError, RedisTimeoutError, ResponseError) as exc:
                last = exc
                continue
            if not cluster:
                raise NotACluster(":".join(node_address(seed)))
            return
        if delay is not None:
            await asyncio.sleep(delay)
    raise RedisConnectionError(f"none of the {len(seeds)} nodes answers: {last}")


def _cluster_client(
    seeds: list[str], connect_timeout: float, command_timeout: float
) -> aioredis.RedisCluster:
    """redis-py's client, told every seed (it asks them in a shuffled order)."""
    others = []
    for seed in seeds[1:]:
        host, port = node_address(seed)
        others.append(ClusterNode(host.strip("[]"), int(port)))
    return aioredis.RedisCluster.from_url(
        seeds[0],
        startup_nodes=others,
        socket_connect_timeout=connect_timeout,
        socket_timeout=command_timeout,
    )


def open_cluster(
    url: str, reread_notice: bytes, *, connect_timeout: float, command_timeout: float
) -> Topology:
    """``url``: any node of the Cluster, or several (``seed_urls``)."""
    seeds = seed_urls(url)

    def new_link() -> ClusterLink:
        return ClusterLink(seeds, connect_timeout=connect_timeout, command_timeout=command_timeout)

    link = new_link()
    redis = _cluster_client(seeds, connect_timeout, command_timeout)
    return Topology(
        kind="cluster",
        link=link,
        redis=redis,
        pubsub=lambda: ShardedPubSub(link, reread_notice),
        spare=new_link,
    )


def open_sentinel(url: str, *, connect_timeout: float, command_timeout: float) -> Topology:
    spec = parse_sentinel_url(url)
    sentinel = Sentinel(
        spec.sentinels,
        sentinel_kwargs={
            "socket_timeout": command_timeout,
            "socket_connect_timeout": connect_timeout,
        },
        socket_timeout=command_timeout,
        socket_connect_timeout=connect_timeout,
        ssl=spec.tls,
        username=spec.username,
        password=spec.password,
        db=spec.db,
    )

    async def master() -> tuple[str, int]:
        return await sentinel.discover_master(spec.service)

    # The link takes auth, database and TLS from a plain URL; its address from the Sentinels.
    scheme = "rediss" if spec.tls else "redis"
    userinfo = ""
    if spec.password:
        userinfo = f"{quote(spec.username or '', safe='')}:{quote(spec.password, safe='')}@"
    plain = f"{scheme}://{userinfo}sentinel-master/{spec.db}"
    redis = sentinel.master_for(
        spec.service,
        redis_class=aioredis.Redis,
        retry=Retry(
            ExponentialBackoff(cap=1.5, base=0.05), 12, supported_errors=(RedisConnectionError,)
        ),
        retry_on_error=[RedisConnectionError],
    )

    def link() -> Link:
        return Link(
            plain,
            connect_timeout=connect_timeout,
            command_timeout=command_timeout,
            resolve=master,
            retry_delays=SENTINEL_RETRY_DELAYS,
        )

    return _one_master("sentinel", redis, link)


def open_store(url: str, reread_notice: bytes, **timeouts: Unpack[Timeouts]) -> Topology:
    """What ``url`` names, before the store is asked (``found``): a single server for one
    node, which may turn out to be a Cluster's; a Cluster for several nodes."""
    if is_sentinel(url):
        return open_sentinel(url, **timeouts)
    if len(seed_urls(url)) > 1:  # only a Cluster's seeds may be several (``found`` checks)
        return open_cluster(url, reread_notice, **timeouts)
    return open_single(url, **timeouts)


async def found(
    t: Topology, url: str, reread_notice: bytes, **timeouts: Unpack[Timeouts]
) -> Topology:
    """``t`` (from ``open_store``) once the store has answered: a single server that is
    a Cluster node becomes the Cluster (``t`` closed); several nodes must be a Cluster's
    (``check_seeds``: ``NotACluster`` if not)."""
    if t.kind == "cluster":
        await check_seeds(seed_urls(url), **timeouts)
    elif t.kind == "single" and await is_cluster(t.link):
        cluster = open_cluster(url, reread_notice, **timeouts)
        t.link.close()
        await t.redis.aclose()
        return cluster
    return t
