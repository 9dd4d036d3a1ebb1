"""Leaving and coming back: the same seat (the token kept per room) and the same position."""

from __future__ import annotations

from clientkit import SOCKETS, attr, counts, play_first, start_game, wait_open, wait_settled


def play_plies(host, friend, n):
    """n plies, each by whichever page is asked to move."""
    for _ in range(n):
        mover = None
        for _ in range(300):
            mover = next((p for p in (host, friend) if attr(p, "myturn") == "1"), None)
            if mover:
                break
            host.wait_for_timeout(20)
        assert mover is not None, "nobody was asked to move"
        before = attr(mover, "version")
        play_first(mover)
        mover.wait_for_function(
            "v => document.querySelector('#app').dataset.version !== v", arg=before
        )
        wait_settled(host)
        wait_settled(friend)


def test_the_rooms_socket_names_its_room_in_its_url(open_page):
    """Room affinity: a proxy can route the socket by the room in its URL (/ws?room=ID)."""
    host = open_page()
    opened: list[str] = []
    host.on("websocket", lambda ws: opened.append(ws.url))
    url = start_game(host, "kalah", {"seeds": 4})
    room = url.rsplit("/", 1)[1]
    assert any(u.endswith(f"/ws?room={room}") for u in opened), opened


def test_closed_page_reopened_mid_game_resumes_seat_and_position(open_page):
    host = open_page()
    url = start_game(host, "kalah", {"seeds": 4})
    friend_ctx = open_page.context()
    friend = open_page(friend_ctx, path=url)
    wait_open(friend)
    play_plies(host, friend, 5)
    board, version, plies = counts(friend), attr(friend, "version"), attr(friend, "plies")
    friend.close()
    # The host sees the friend go away.
    host.wait_for_selector("#seats li[data-side='1'].absent")

    again = open_page(friend_ctx, path=url)  # same profile: same stored token
    wait_open(again)
    wait_settled(again)
    assert attr(again, "sides") == "1"
    assert (attr(again, "version"), attr(again, "plies")) == (version, plies)
    assert counts(again) == board
    host.wait_for_selector("#seats li[data-side='1'].present")
    # ... and plays on from there.
    play_plies(host, again, 2)
    assert int(attr(again, "plies")) >= int(plies) + 2


class Line:
    """The page's WebSocket, routed through Playwright so the test can cut it and refuse new
    connections (a dropped mobile line), then let them through again."""

    def __init__(self, page):
        self.up = True
        self.live = []
        page.route_web_socket(SOCKETS, self.connect)

    def connect(self, ws):
        if not self.up:
            ws.close(code=4002, reason="line down")
            return
        server = ws.connect_to_server()
        self.live.append((ws, server))

    def cut(self):
        self.up = False
        for ws, server in self.live:
            server.close()
            ws.close(code=4002, reason="line down")
        self.live.clear()

    def restore(self):
        self.up = True


def test_dropout_shows_reconnecting_and_resynchronises(open_page):
    host = open_page()
    url = start_game(host, "kalah", {"seeds": 3})
    friend = open_page(open_page.context(), path=None)
    line = Line(friend)
    friend.goto(url)
    wait_open(friend)
    play_plies(host, friend, 1)
    if attr(host, "myturn") != "1":
        play_plies(host, friend, 1)
    host.wait_for_selector("#app[data-myturn='1']")

    line.cut()
    friend.wait_for_selector("#app[data-conn='reconnecting']")
    assert friend.is_visible("#conn")
    assert "reconnecting" in friend.inner_text("#conn")
    # The host moves while the friend is away.
    before = attr(host, "version")
    play_first(host)
    host.wait_for_function("v => document.querySelector('#app').dataset.version !== v", arg=before)
    wait_settled(host)
    friend.wait_for_timeout(1200)  # a few refused attempts: the backoff grows
    assert attr(friend, "conn") == "reconnecting"
    assert attr(friend, "version") == before

    line.restore()
    friend.wait_for_selector("#app[data-conn='open']", timeout=20_000)
    wait_settled(friend)
    assert not friend.is_visible("#conn")
    assert attr(friend, "version") == attr(host, "version")
    assert counts(friend) == counts(host)
    assert attr(friend, "sides") == "1"


def test_server_restart_close_1012_reconnects_at_once(open_page):
    page = open_page(path=None)
    line = Line(page)
    page.goto("/")
    start_game(page, "oware", mode="local")
    wait_settled(page)
    version = attr(page, "version")
    for ws, server in line.live:
        ws.close(code=1012, reason="restart")  # what a restarting node sends
        server.close()
    line.live.clear()
    page.wait_for_selector("#app[data-conn='reconnecting']")
    page.wait_for_selector("#app[data-conn='open']", timeout=5_000)
    wait_settled(page)
    assert attr(page, "version") == version and attr(page, "sides") == "0,1"
    assert len(line.live) == 1
