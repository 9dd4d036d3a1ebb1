"""A link that dies without closing (issue 17): the page notices within 10 s, says so at once,
the opponent sees the seat away, and the page resumes its seat when the link comes back."""

from __future__ import annotations

import json
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


def test_a_move_whose_state_is_lost_is_recovered_by_joining_again(open_page, proxy):
    """The page joins with acks "state": a move is answered by the state it made, and no ack
    frame comes. If that state is lost on the way (a server whose fan-out lost it), the page
    joins again within about 2 s and shows the move it made.

    Every state is lost until that join: a state sent meanwhile (here for a new watcher; under
    load for a presence change) carries the move too and would spare the page its join. The
    test waits for the join itself, then for the state it brings."""
    host = open_page()
    url = start_game(host, "oware")  # an Oware move never gives its mover the next turn
    friend = open_page(path=proxy.url + urlparse(url).path)
    wait_open(friend)
    host.click(".pit.lit >> nth=0")
    friend.wait_for_selector("#app[data-myturn='1']")
    wait_settled(friend)
    joins = [m for m in proxy.sent if b'"t":"join"' in m]
    assert joins and all(b'"acks":"state"' in m for m in joins)

    before = int(attr(friend, "version"))

    proxy.lose_states_until_join()
    friend.click(".pit.lit >> nth=0")
    # Someone comes to watch meanwhile: the room's next state (one more watcher) is lost too.
    wait_open(open_page(path=url))
    deadline = time.monotonic() + 10
    while proxy.joins() == len(joins):
        assert time.monotonic() < deadline, "the page did not join again"
        time.sleep(0.05)
    friend.wait_for_function(
        "v => Number(document.querySelector('#app').dataset.version) > v",
        arg=before,
        timeout=10_000,
    )
    wait_settled(friend)
    wait_settled(host)
    moves = [m for m in proxy.sent if b'"t":"move"' in m]
    move_id = json.loads(moves[-1])["id"]
    assert proxy.lost and move_id.encode() in proxy.lost[0]  # the move's own state was lost
    assert attr(friend, "version") == attr(host, "version")
    assert counts(friend) == counts(host)


def test_page_is_open_only_with_the_state_its_join_brought(open_page, proxy):
    """Back after a drop, the page says "open" (and takes moves) only once the state its join
    brought is drawn, never on the board from before the drop; if that state is lost, the page
    joins again within about 2 s."""
    host = open_page()
    url = start_game(host, "kalah", {"seeds": 4})
    friend = open_page(path=proxy.url + urlparse(url).path)
    wait_open(friend)
    wait_settled(friend)
    # Note the version the page shows each time it turns "open".
    friend.evaluate(
        """() => {
          const app = document.querySelector('#app');
          window.openedAt = [];
          new MutationObserver(() => {
            if (app.dataset.conn === 'open') window.openedAt.push(app.dataset.version);
          }).observe(app, { attributes: true, attributeFilter: ['data-conn'] });
        }"""
    )
    proxy.stall()
    friend.wait_for_selector("#app[data-conn='reconnecting']", timeout=20_000)
    host.click(".pit.lit >> nth=0")
    wait_settled(host)
    joins = sum(b'"t":"join"' in m for m in proxy.sent)
    proxy.lose_states(1)  # the state that answers the next join
    proxy.resume()
    friend.wait_for_function(
        "v => document.querySelector('#app').dataset.version === v",
        arg=attr(host, "version"),
        timeout=30_000,
    )
    wait_settled(friend)
    assert len(proxy.lost) == 1
    # Its state came from joining again or from the room's next state (the seat's return).
    assert sum(b'"t":"join"' in m for m in proxy.sent) > joins
    assert friend.evaluate("window.openedAt") == [attr(host, "version")]
    assert counts(friend) == counts(host)
