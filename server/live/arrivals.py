"""How fast sockets and joins may arrive: WebSocket opens and joins per client
address, and visitors per room, each a budget per minute that every node
counts in the store.

Measured before these budgets (``tests/bench/churn.py``): one address running
50 loops of connect, join a victim room, close made 4,000 joins in 3-4 s,
stopped only by the address's message budget, and the victims' p99 move round
trip went from 2.3 to 28.2 ms in one run of three (issue 36 saw 84-237 joins
a second and 140-736 ms). Every join costs store round trips and tells the
room's players of a presence change twice, and each socket a handshake;
nothing bounded how fast they came, only how many were open at once
(``server/live/addrcap.py``). With these budgets the loops get 200 joins in their
first 0.2 s and then only refusals (the victims' p99 2.9 -> 5.2 ms, 3.9 -> 4.2).

The defaults are what a real browser never reaches. A page that lost its link
reconnects with backoff (``client/net.js``: 0.5, 1, 2, 4, 8 s, then every
4–8 s), about 15 opens and joins in its worst minute; it joins again on its
open socket when a state is late (at most one every 2 s). A friend game is two
people with a tab or two each; a spectator reloading is a person's pace. The
most that arrives at once is every socket of one address reconnecting after a
node restarts (close 1012): up to ``NYUMBA_SOCKETS_PER_ADDRESS`` (100) opens
and joins within a second, a school or an office behind one NAT address; and
every visitor of a full room rejoining (``NYUMBA_SOCKETS_PER_ROOM``, 64). So:

* ``NYUMBA_OPENS_PER_MINUTE`` = ``NYUMBA_JOINS_PER_MINUTE`` = 200 per address:
  every socket of the address twice over. Over it, an upgrade gets HTTP 429
  (``rate-limited``, with ``Retry-After``), a join a ``rate-limited`` error and
  close 1008.
* ``NYUMBA_ROOM_VISITORS_PER_MINUTE`` = 128 per room: a full room's visitors
  twice over. Seat holders (joining with their token) are never counted or
  refused, nor is the friend taking a friend room's free seat: however many
  visitors come, the players get in.

A refused upgrade is answered after ``REFUSAL_PAUSE_S``. Refusing is cheap,
but not free (a handshake parsed, a response written): answered at once, the
bench's 50 loops were refused 2,700-3,900 times a second, and in one run of
three that took the victims' p99 from 5.0 to 84 ms. Paused, a client that
waits for its answer (a browser does, and so do the loops: 62 tries a second)
is refused about once a second per connection, and one that does not wait
holds a connection per attempt: the peer cap at accept
(``server/web/handshake.py``), or the proxy's ``limit_conn``
(deploy/proxy/nginx.conf), then bounds it to about 132 a second.

A budget is a fixed window: the count of the current minute (by the store's
clock, ``StoreClock``), one ``INCR`` in a key that lapses after the minute (a
burst across two minutes gets both: 400 joins in one bench run). The shipped
proxy refuses the 201st upgrade of a minute itself (deploy/proxy/nginx.conf).
Each node also counts what it saw itself: once its own count is over a
budget it refuses without asking the store (a flood from one address costs
the store nothing more), and if the store does not answer, the local count
decides (the store being down stops play anyway).

Keys::

    <prefix>quota:opens:{addr}:<minute>      WebSockets opened by a client address
    <prefix>quota:joins:{addr}:<minute>      joins sent by a client address
    <prefix>quota:visitors:{room}:<minute>   visitors a room admitted
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

from server.ops import health, metrics
from server.ops.config import Settings

if TYPE_CHECKING:
    from server.store.store import Store

WINDOW_MS = 60_000
REFUSAL_PAUSE_S = 1.0  # before a refused upgrade is answered
LOCAL_SUBJECTS = 100_000  # subjects one node keeps counts for in a window; then it forgets them


class Quota:
    """At most ``limit`` arrivals per minute for one subject (an address, a room)."""

    def __init__(self, store: Store, kind: str, limit: int, now: Callable[[], int]) -> None:
        self.store = store
        self.prefix = f"{store.prefix}quota:{kind}:"
        self.limit = limit
        self.now = now
        self.refusals = metrics.ARRIVALS_REFUSED.labels(kind)
        self.window = -1
        self.local: dict[str, int] = {}  # subject -> arrivals this node saw in the window

    def key(self, subject: str, window: int) -> str:
        return f"{self.prefix}{{{subject}}}:{window}"

    async def spend(self, subject: str) -> bool:
        """Count one arrival for ``subject``; False when it is over the budget."""
        window = self.now() // WINDOW_MS
        if window != self.window or len(self.local) >= LOCAL_SUBJECTS:
            self.window, self.local = window, {}  # forgetting costs only store round trips
        seen = self.local[subject] = self.local.get(subject, 0) + 1  # before the await
        if seen > self.limit:
            self.refusals.inc()
            return False
        key = self.key(subject, window)
        try:
            count, _ = await self.store.link.execute_many(
                [("INCR", key), ("PEXPIRE", key, 2 * WINDOW_MS)]
            )
        except RedisError as exc:  # the local count decides; logged once per outage
            health.STORE.failed(exc)
            return True
        if int(count) > self.limit:
            self.refusals.inc()
            return False
        return True

    def retry_after_s(self) -> int:
        """Seconds until the current window ends."""
        return max(1, -(-(WINDOW_MS - self.now() % WINDOW_MS) // 1000))


class Arrivals:
    """The three budgets, on one store and one clock."""

    def __init__(self, store: Store, now: Callable[[], int], settings: Settings):
        self.opens = Quota(store, "opens", settings.opens_per_minute, now)
        self.joins = Quota(store, "joins", settings.joins_per_minute, now)
        self.visitors = Quota(store, "visitors", settings.room_visitors_per_minute, now)
