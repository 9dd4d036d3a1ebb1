"""The grammar of ``REDIS_URL`` (pure parsing; ``server/store/topology.py`` opens what it
names): one node's URL, a Cluster's seeds (``redis://h:p,h:p…/db``), or Sentinels
(``redis+sentinel://h:p[,h:p…]/service[/db]``). Settings check it at start
(``server/ops/variables.py``), so a malformed list exits 2 with one line."""

from __future__ import annotations

from urllib.parse import unquote, urlsplit, urlunsplit

import msgspec


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


def _host_port(item: str) -> tuple[str, str]:
    """``host:port``, ``[v6]:port``, ``host`` or ``[v6]`` → (host as written, port or "")."""
    host, colon, port = item.rpartition(":")
    if not colon or item.endswith("]"):
        return item, ""
    return host, port


def node_address(seed: str) -> tuple[str, str]:
    """The host (as written) and port of one node's URL."""
    return _host_port(urlsplit(seed).netloc.rpartition("@")[2])


def seed_urls(url: str) -> list[str]:
    """The nodes a URL names, each as a URL of its own (one item for a single node,
    a Sentinel URL or a unix socket). Raises ``ValueError`` for an empty item or a
    port that is not a number, naming the item."""
    if is_sentinel(url) or url.startswith("unix://"):
        return [url]
    parts = urlsplit(url)
    userinfo, at, hosts = parts.netloc.rpartition("@")
    if "," not in hosts:
        return [url]
    out = []
    for item in hosts.split(","):
        host, port = _host_port(item.strip())
        if not host.strip("[]") or not (port or "6379").isdigit():
            raise ValueError(f"{item.strip()!r} is not a host:port")
        netloc = f"{userinfo}{at}{host}:{port or 6379}"
        out.append(urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment)))
    return out
