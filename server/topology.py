"""What ``REDIS_URL`` names, and the clients for it.

* ``redis://`` / ``rediss://`` / ``unix://``: one Redis or Valkey — or any node
  of a Cluster, detected at start (``INFO cluster``), no other setting;
* ``redis+sentinel://host:port[,host:port…]/service_name[/db]``: the master
  that the Sentinels name for ``service_name``, asked again at every
  reconnection, so the store follows a failover. A password in the URL
  (``redis+sentinel://:pw@h1:26379,h2:26379/name``) is the master's.

Each topology has ``link`` (the multiplexed per-message path: ``server.resp``
or ``server.cluster``), ``redis`` (a redis-py client for the rest) and
``pubsub()`` (a subscriber: ``server.subscriber`` on one master, ``server.shardsub`` on a
Cluster).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import msgspec
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from server.cluster import ClusterLink
from server.resp import Link
from server.shardsub import ShardedPubSub
from server.subscriber import Subscriber

# A Sentinel failover (down-after-milliseconds, then the election and the
# promotion) takes seconds: commands are retried this long, about 12 s.
SENTINEL_RETRY_DELAYS = (0.05, 0.1, 0.2, 0.4, 0.8, 1.0, 1.0, 1.0, 1.5, 1.5, 1.5, 1.5, 1.5)


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


def is_sentinel(url: str) -> bool:
    return url.startswith(("redis+sentinel://", "rediss+sentinel://"))


class SentinelURL(msgspec.Struct, frozen=True):
    sentinels: list[tuple[str, int]]
    service: str
    db: int = 0
    username: str | None = None
    password: str | None = None
    tls: bool = False


def parse_sentinel_url(url: str) -> SentinelURL:
    parts = urlsplit(url)
    userinfo, _, hosts = parts.netloc.rpartition("@")
    username, _, password = userinfo.partition(":")
    sentinels = []
    for item in hosts.split(","):
        host, _, port = item.strip().rpartition(":")
        if not host:
            host, port = port, "26379"
        sentinels.append((host.strip("[]"), int(port)))
    path = [p for p in parts.path.split("/") if p]
    if not path:
        raise ValueError(f"{url}: name the Sentinel service, redis+sentinel://host:port/NAME")
    return SentinelURL(
        sentinels=sentinels,
        service=path[0],
        db=int(path[1]) if len(path) > 1 else 0,
        username=unquote(username) or None,
        password=unquote(password) or None,
        tls=url.startswith("rediss+"),
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
    return aioredis.Redis(connection_pool=pool)


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


def open_cluster(
    url: str, resync_notice: bytes, *, connect_timeout: float, command_timeout: float
) -> Topology:
    def new_link() -> ClusterLink:
        return ClusterLink(url, connect_timeout=connect_timeout, command_timeout=command_timeout)

    link = new_link()
    redis = aioredis.RedisCluster.from_url(
        url, socket_connect_timeout=connect_timeout, socket_timeout=command_timeout
    )
    return Topology(
        kind="cluster",
        link=link,
        redis=redis,
        pubsub=lambda: ShardedPubSub(link, resync_notice),
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
