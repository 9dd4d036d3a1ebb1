"""A room near its longest life tells the people in it (issue 16, item 8: at the hard TTL a
room vanished mid-game with no warning). The server sends ``expiring`` once in a room's last
10 minutes; the page says so in words. A room that lives 2 minutes is in its last 10 from the
start, so the first tick warns."""

from __future__ import annotations

from clientkit import DESKTOP, start_game, wait_open
from serverproc import make_server


def test_the_page_says_the_room_is_about_to_close(browser, tmp_path, key_prefix):
    srv = make_server(
        "embedded",
        tmp_path,
        key_prefix + "expiring:",
        NYUMBA_ROOM_TTL_MS="120000",
        NYUMBA_TICK_MS="300",
    )
    try:
        ctx = browser.new_context(viewport=DESKTOP, base_url=srv.url, locale="en-US")
        page = ctx.new_page()
        page.goto("/")
        start_game(page, "kalah")
        wait_open(page)
        note = page.wait_for_selector("text=This room closes in about 2 min", timeout=15_000)
        assert note.is_visible()
        ctx.close()
    finally:
        srv.stop()
