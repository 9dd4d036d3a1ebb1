"""``nyumba layout [previous|current]``: the layout every node writes rooms in (rolling upgrades:
``server/rooms/layout.py``, ``server/store/layouts.py``; deploy/README.md, "Upgrading").

Without an argument it prints the store's flag, the live nodes and the rooms by layout. ``current`` sets the flag to
this release's layout only when every live node reads it: a node of the release before (found
by its channel, with no entry of its own) cannot, and is named; exit 1, nothing changed.
``previous`` sets it back to the release before's (every node of this release reads both; a
node of the release before that has an entry reads it, and one of an earlier release, with no
entry, is named as for ``current``).
"""

from __future__ import annotations

import asyncio
import sys

from server.ops.config import Settings
from server.rooms import layout
from server.store import layouts as L
from server.store.store import Store


async def _run(settings: Settings, asked: str | None) -> int:
    store = Store(settings.redis_url or "", settings.key_prefix)
    try:
        await store.start()
        flag, following = await L.status(store)
        others = sorted((await L.node_channels(store)) - set(following))
        if asked is None:
            print(f"the store's layout: {flag or f'unset (layout {layout.UNSET})'}")
            print(f"this release reads layouts {', '.join(map(str, layout.READS))}", end="")
            print(
                f" and writes {layout.UNSET} (the flag unset), {layout.PREVIOUS} (previous)", end=""
            )
            print(f" or {layout.CURRENT} (current)")
            for node, (reads, writes) in sorted(following.items()):
                print(f"node {node}: reads up to layout {reads}, writes {writes}")
            for node in others:
                print(f"node {node}: an earlier release (reads up to layout {layout.UNSET})")
            rooms = await L.rooms_by_layout(store)
            for name, count in sorted(rooms.items()):
                print(f"rooms in layout {name}: {count}")
            return 0
        want = layout.CURRENT if asked == "current" else layout.PREVIOUS
        unable = [n for n, (reads, _) in following.items() if reads < want]
        unable += others if want > layout.UNSET else []
        if unable:
            print(
                f"nyumba layout: not set; {len(unable)} live node(s) cannot read layout {want}: "
                f"{', '.join(sorted(unable))}. Replace them with this release first.",
                file=sys.stderr,
            )
            return 1
        await store.link.execute("SET", L.flag_key(store.prefix), str(want))
        print(f"the store's layout is now {want}: every node writes it within {L.EVERY_S:g} s")
        return 0
    finally:
        await store.close()


def run(settings: Settings, asked: str | None) -> int:
    if settings.redis_url is None:
        print(
            "nyumba layout: no store named (--redis-url or REDIS_URL). A node on an embedded"
            " store is its only node: it writes layout 2, and nothing waits for a switch.",
            file=sys.stderr,
        )
        return 2
    return asyncio.run(_run(settings, asked))
