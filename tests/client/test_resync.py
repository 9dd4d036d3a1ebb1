"""A store that goes back in time, seen from the browser: the page takes the server's
``resync`` state, though its version is lower than the one it shows, says so, and play goes
on from there (server/PROTOCOL.md, "When the store goes back in time").

The store is a Valkey of the test's own, so one room's key can be restored from a ``DUMP``
taken two moves earlier; the node notices at its next presence tick (500 ms here)."""

from __future__ import annotations

import redis
from clientkit import DESKTOP, attr, play_first, start_game, wait_open, wait_settled
from clusterkit import _Server, free_ports
from serverproc import ServerProcess

PREFIX = "resync:"


def test_the_page_takes_a_resync_to_an_older_version_and_plays_on(browser, tmp_path):
    (port,) = free_ports(1)
    store = _Server(port, tmp_path / "valkey", "--appendonly", "no")
    store.start()
    node = ServerProcess(
        redis_url=f"redis://127.0.0.1:{port}/0",
        data_dir=tmp_path / "node",
        env={
            "NYUMBA_KEY_PREFIX": PREFIX,
            "NYUMBA_TICK_MS": "500",
            "NYUMBA_PRESENCE_TTL_MS": "2000",
        },
    ).start()
    contexts = []
    try:
        pages = []
        for _ in range(2):
            ctx = browser.new_context(viewport=DESKTOP, base_url=node.url, locale="en-US")
            ctx.add_init_script("localStorage.setItem('nyumba:speed', 'off');")
            contexts.append(ctx)
            pages.append(ctx.new_page())
        host, friend = pages
        host.goto("/")
        url = start_game(host, "kalah", {"seeds": 4}, mode="friend", side="south")
        friend.goto(url)
        wait_open(friend)

        def move() -> None:
            mover = next(p for p in pages if attr(p, "myturn") == "1")
            before = int(attr(mover, "version"))
            play_first(mover)
            for p in pages:
                p.wait_for_selector(f"#app[data-version='{before + 1}']")
                wait_settled(p)

        key = f"{PREFIX}room:{{{url.rsplit('/', 1)[1]}}}"
        keys = redis.Redis(port=port)
        move()
        move()
        saved, dump = int(attr(host, "version")), keys.dump(key)
        move()
        move()
        assert int(attr(host, "version")) == saved + 2
        keys.restore(key, 0, dump, replace=True)  # the store forgets the last two moves

        for p in pages:
            p.wait_for_selector(f"#app[data-version='{saved}']", timeout=5_000)
            assert "lost the latest moves" in p.inner_text("body")
            wait_settled(p)
        move()  # the side the store says is to move plays, and both pages follow
        assert int(attr(friend, "version")) == saved + 1
    finally:
        for ctx in contexts:
            ctx.close()
        node.stop()
        store.stop()
