"""A link that dies without closing (issue 17): the page notices within 10 s, says so at once,
the opponent sees the seat away, and the page resumes its seat when the link comes back."""

from __future__ import annotations

import time
from urllib.parse import urlparse

import pytest
from clientkit import attr, counts, start_game, wait_open, wait_settled
from stallproxy import StallProxy


@pytest.fixture
def proxy(live_server):
    u = urlparse(live_server)
    p = StallProxy(u.hostname, u.port)
    yield p
    p.close()


def test_stalled_link_banner_within_10s_and_resume(open_page, proxy):
    host = open_page()
    url = start_game(host, "kalah", {"seeds": 4})
    room_path = urlparse(url).path
    friend = open_page(path=proxy.url + room_path)
    wait_open(friend)
    wait_settled(friend)
    host.wait_for_selector("#seats li[data-side='1'].present")

    proxy.stall()
    stalled_at = time.monotonic()
    friend.wait_for_selector("#app[data-conn='reconnecting']", timeout=20_000)
    noticed = time.monotonic() - stalled_at
    assert noticed < 10.5, f"the dead link was noticed after {noticed:.1f} s"
    assert friend.is_visible("#conn")
    assert "Connection lost" in friend.inner_text("#conn")
    # No "Your turn" while nothing can be sent.
    assert "Your turn" not in friend.inner_text("#status")
    # The opponent sees the seat go away (the server's own ping notices the dead link too).
    host.wait_for_selector("#seats li[data-side='1'].absent", timeout=20_000)

    # The host moves meanwhile; the friend catches up when the link returns.
    host.click(".pit.lit >> nth=0")
    wait_settled(host)
    proxy.resume()
    friend.wait_for_selector("#app[data-conn='open']", timeout=30_000)
    wait_settled(friend)
    assert not friend.is_visible("#conn")
    assert attr(friend, "sides") == "1"
    assert attr(friend, "version") == attr(host, "version")
    assert counts(friend) == counts(host)
    host.wait_for_selector("#seats li[data-side='1'].present", timeout=20_000)


def test_offline_event_shows_banner_at_once_and_online_resumes(open_page):
    page = open_page()
    start_game(page, "oware", mode="local")
    wait_settled(page)
    page.context.set_offline(True)
    page.wait_for_selector("#app[data-conn='reconnecting']", timeout=3_000)
    assert page.is_visible("#conn")
    page.context.set_offline(False)
    wait_open(page, timeout=30_000)
    wait_settled(page)
    assert not page.is_visible("#conn")
