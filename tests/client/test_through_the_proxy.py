"""Two people play a friend game in Chromium through the shipped nginx proxy
(deploy/proxy/nginx.conf, templated only for the upstream ports and its listening address),
each from an address of their own, with the nodes trusting the proxy's X-Forwarded-For
(NYUMBA_FORWARDED_ALLOW_IPS, as compose sets it).

The proxy listens on 127.0.0.2 rather than 127.0.0.1. The first player's browser opens it
directly (its connections come from 127.0.0.1); the second player's goes through a relay that
connects from 127.0.0.3, so the proxy sees two client addresses. Each page uses its own origin
for the WebSocket; with ``Host $host`` (the port dropped) the upgrade was refused with 403.
Each address then has a room quota of its own (2 a minute here): the first player's third
room is refused while the second player still creates theirs."""

from __future__ import annotations

import json

import pytest
from clientkit import DESKTOP, attr, counts, play_out, start_game, wait_open
from proxykit import Nginx, Relay
from serverproc import ServerProcess, free_port

from server.store.embedded import embedded_valkey

QUOTA = 2


def _create_room(page) -> int:
    """POST /api/rooms from the page itself (its origin, its address): the status."""
    return page.evaluate(
        """async () => (await fetch('/api/rooms', {method: 'POST',
             headers: {'content-type': 'application/json'},
             body: JSON.stringify({game: 'kalah'})})).status"""
    )


@pytest.fixture
def proxied(tmp_path, key_prefix):
    """Two nodes on one store behind nginx on 127.0.0.2; yields the proxy's base URL."""
    env = {
        "NYUMBA_KEY_PREFIX": key_prefix + "proxied:",
        "NYUMBA_ROOMS_PER_MINUTE": str(QUOTA),
        "NYUMBA_FORWARDED_ALLOW_IPS": "127.0.0.1",  # nginx reaches the nodes from here
    }
    with embedded_valkey(tmp_path / "valkey") as url:
        nodes = [
            ServerProcess(redis_url=url, data_dir=tmp_path / f"n{i}", env=env).start()
            for i in range(2)
        ]
        try:
            with Nginx(tmp_path, f"127.0.0.2:{free_port()}", [n.port for n in nodes]) as base:
                yield base
        finally:
            for n in nodes:
                n.stop()


def test_a_friend_game_through_nginx_from_two_addresses(browser, proxied):
    host_port = proxied.removeprefix("http://").split(":")
    with Relay("127.0.0.3", (host_port[0], int(host_port[1]))) as second_origin:
        problems: list[str] = []
        contexts = []

        def page_at(base: str):
            ctx = browser.new_context(viewport=DESKTOP, base_url=base, locale="en-US")
            ctx.add_init_script("localStorage.setItem('nyumba:speed', 'off');")
            contexts.append(ctx)
            page = ctx.new_page()
            page.on("console", lambda m: m.type == "error" and problems.append(m.text))
            page.on("pageerror", lambda e: problems.append(str(e)))
            return page

        try:
            first = page_at(proxied)
            first.goto("/")
            url = start_game(first, "kalah", {"seeds": 3}, mode="friend", side="south")
            room_path = url.removeprefix(proxied)
            assert room_path.startswith("/r/")

            second = page_at(second_origin)
            second.goto(room_path)
            wait_open(second)  # the WebSocket upgrade passed the Origin check
            assert attr(second, "sides") == "1"

            plies = play_out([first, second])
            assert plies > 4
            assert counts(first) == counts(second)
            assert not problems, json.dumps(problems)

            # One room quota per address: the first player has made 1 of 2 rooms.
            assert _create_room(first) == 201
            assert _create_room(first) == 429
            assert _create_room(second) == 201  # not counted against the first player
            assert _create_room(second) == 201
            assert _create_room(second) == 429
        finally:
            for ctx in contexts:
                ctx.close()
