"""The page's reports (client/reports.js), watched on the network in Chromium: a room page
reports its device once it is in; a friend's link to a room that is gone, and one whose socket
never opens, report that they could not connect; a socket that keeps failing reports that.
Turned off — on the "what we record" page, remembered in the browser — the same pages send no
report at all, and the room's settings show the switch off."""

from __future__ import annotations

import json
import time

import httpx
from clientkit import PHONE, SOCKETS, start_game


def watch_reports(context) -> list[dict]:
    """Every report the context's pages send, as sent (filled in as they go)."""
    sent: list[dict] = []

    def seen(request):
        if "/api/reports" in request.url:
            sent.append(json.loads(request.post_data or "null"))

    context.on("request", seen)
    return sent


def failing_sockets(page) -> list[int]:
    """Every WebSocket the page opens is closed at once; the list counts the tries."""
    tries: list[int] = []

    def close(ws):
        tries.append(1)
        ws.close(code=1011, reason="test: the link keeps failing")

    page.route_web_socket(SOCKETS, close)
    return tries


def until(page, condition, timeout: float = 20.0, what: str = "") -> None:
    """Wait on ``page`` (Playwright hands over its events only while it is called)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        page.wait_for_timeout(100)


def visit_every_reporting_page(open_page, context, live_server):
    """A room played against the computer; a friend's link to a room that is gone; a friend's
    link whose socket never opens (it keeps failing past the point where each is reported)."""
    mine = open_page(context=context)
    start_game(mine, "kalah", mode="computer", level="beginner")
    gone = open_page(context=context, path="/r/NoSuchRoomAtAll")
    gone.wait_for_selector("#app[data-conn='gone']")
    room = httpx.post(live_server + "/api/rooms", json={"game": "kalah"}).json()["room"]
    cut_off = open_page(context=context, path=None)
    tries = failing_sockets(cut_off)
    cut_off.goto(f"/r/{room}")
    until(
        cut_off, lambda: len(tries) >= 5, what="five failed tries"
    )  # reported at the third and fourth
    cut_off.wait_for_timeout(300)
    return cut_off


def test_the_page_reports_what_only_it_sees(open_page, live_server):
    context = open_page.context()
    sent = watch_reports(context)
    last = visit_every_reporting_page(open_page, context, live_server)
    until(last, lambda: len(sent) >= 4, what="four reports")
    kinds = sorted((r["kind"], r.get("reason", "")) for r in sent)
    assert kinds == [
        ("device", ""),
        ("friend-link", "no-room"),
        ("friend-link", "unreachable"),
        ("socket-failing", ""),
    ]
    device = next(r for r in sent if r["kind"] == "device")
    assert set(device) == {"kind", "phone", "memory", "cores", "browser", "os"}
    assert device["browser"] == "chrome" and device["os"] == "linux" and device["phone"] is False


def test_the_switch_off_stops_every_report_from_the_page(open_page, live_server):
    context = open_page.context()
    sent = watch_reports(context)
    what = open_page(context=context, path="/static/privacy.html")
    what.wait_for_selector("body[data-ready='1']")
    assert what.is_checked("#reports")  # on until the player turns it off
    what.uncheck("#reports")
    assert what.evaluate("localStorage.getItem('nyumba:reports')") == "0"

    visit_every_reporting_page(open_page, context, live_server)
    again = open_page(context=context, path="/r/NoSuchRoomEither")
    again.wait_for_selector("#app[data-conn='gone']")
    assert not again.is_checked("#reports")  # the room's settings say it is off
    again.wait_for_timeout(1000)  # a report would have left by now
    assert sent == []


def test_what_we_record_reads_well_in_both_languages_and_on_a_phone(open_page):
    from test_accessibility import SMALL_CONTROLS, axe_findings

    for lang, words in (("en", "IP addresses"), ("ja", "IP アドレス")):
        context = open_page.context(lang=lang, viewport=PHONE, has_touch=True, bypass_csp=True)
        page = open_page(context, path="/static/privacy.html")
        page.wait_for_selector("body[data-ready='1']")
        assert words in page.inner_text("#privacy")
        assert axe_findings(page) == []
        assert page.evaluate(SMALL_CONTROLS) == []
