"""Resynchronising a node's rooms after pub/sub messages were lost.

A room's changes reach the nodes as messages on its channel, and Redis keeps
no pub/sub message for a subscriber that is not connected. When the store
restarts (or the node's subscription connection drops for any reason),
redis-py reconnects and re-subscribes on its own, silently: every change
stored between the store's return and the re-subscription is published to
nobody. Measured on main before this module (tests/bench/chaos.py, a
redis-server SIGKILLed and back after 2.5 s): moves acknowledged just after
the store came back reached neither player for 4.6-7.3 s, and in the issue's
runs for 25 s.

Two repairs:

* ``ResubscribingPubSub`` tells the node each time its subscriptions are
  (re-)established; the node then rebuilds every local room from the store,
  so whatever was published while nobody listened is sent now.
* The presence tick reads each room's stored revision with its presence and
  rebuilds a room whose revision is ahead of the last one forwarded (any gap,
  whatever its cause, is closed within a tick).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from redis.asyncio.client import PubSub

log = logging.getLogger("nyumba.resync")


class ResubscribingPubSub(PubSub):
    """A ``PubSub`` that calls ``on_resubscribed()`` each time a new connection
    has re-subscribed its channels. (redis-py calls ``on_connect`` only on
    reconnections: the first connection is made before the callback is set.)"""

    on_resubscribed: Callable[[], None] | None = None

    async def on_connect(self, connection) -> None:  # type: ignore[no-untyped-def]
        await super().on_connect(connection)
        if self.on_resubscribed is not None:
            log.warning("pub/sub connection re-established; resynchronising rooms")
            asyncio.get_running_loop().call_soon(self.on_resubscribed)


def pubsub(redis, on_resubscribed: Callable[[], None] | None = None) -> ResubscribingPubSub:  # type: ignore[no-untyped-def]
    """A pub/sub on ``redis``'s pool that reports re-subscriptions (set
    ``on_resubscribed`` here or later). On a Cluster, ``server/shardsub.py``
    does the same by announcing a presence change on each channel it
    re-subscribes."""
    ps = ResubscribingPubSub(redis.connection_pool, ignore_subscribe_messages=True)
    ps.on_resubscribed = on_resubscribed
    return ps
