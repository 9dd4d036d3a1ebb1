"""The computer's analysis in the browser: finish a Kalah game, open the analysis, see the graph
and the labels, choose a blunder and see the best move marked, then "Show me"."""

from __future__ import annotations

import time

import httpx
from clientkit import attr, start_game, wait_settled

# A Kalah game (4 seeds) in which South, on move 16, throws away a won position: `a` where `b`
# wins (tests/engine/test_analysis.py builds games like it; the analysis is deterministic).
MOVES = (
    "f B D b f e A F a e d C e d A a F D F B f A c A f d C e f b F D F E e f F B d F E b C e D f"
).split()
BLUNDER, PLAYED, BEST = 16, "a", "b"


def play_moves(page, moves):
    for move in moves:
        page.wait_for_selector("#app[data-myturn='1']", timeout=15_000)
        before = attr(page, "version")
        page.click(f".pit.lit[data-pit='{move}']")
        page.wait_for_function(
            "v => document.querySelector('#app').dataset.version !== v", arg=before
        )


def wait_done(page, timeout=240_000):
    try:
        page.wait_for_selector("#analysis[data-state='done']", timeout=timeout)
    except Exception:
        raise AssertionError(page.inner_text("#analysis")) from None


def play_local_game_out(page, plies: int) -> None:
    """Play a local room's first lit pit, ply after ply, until the game is over (at most
    ``plies``), and wait until the page has settled."""
    for _ in range(plies):
        page.wait_for_selector("#app[data-myturn='1'], #app[data-over='1']")
        if attr(page, "over") == "1":
            break
        before = attr(page, "version")
        page.locator(".pit.lit").first.click()
        page.wait_for_function(
            "v => document.querySelector('#app').dataset.version !== v", arg=before
        )
    wait_settled(page)


def test_analysis_of_a_finished_kalah_game(open_page):
    page = open_page(speed="off")
    start_game(page, "kalah", mode="local")
    play_moves(page, MOVES)
    page.wait_for_selector("#app[data-over='1']")
    wait_settled(page)

    page.click("#analyse-btn")
    box = page.locator("#analysis")
    box.wait_for()
    wait_done(page)

    # the graph: one point per position, a dot per labelled ply
    points = page.get_attribute("#analysis svg.eval-graph polyline.line", "points")
    assert len(points.split()) == len(MOVES) + 1
    assert page.locator("#analysis svg.eval-graph circle.dot.blunder").count() >= 1
    # the move list, labelled
    assert page.locator("#analysis button.an-ply").count() == len(MOVES)
    blunder = page.locator(f"#analysis button.an-ply[data-ply='{BLUNDER}']")
    assert blunder.get_attribute("data-label") == "blunder"
    assert "blunder" in blunder.inner_text()

    # choose the blunder: the position before it, the move played and the best move marked
    blunder.click()
    page.wait_for_selector(f"#analysis[data-ply='{BLUNDER}']")
    assert page.locator("#analysis .pit.an-best").count() == 1
    assert page.get_attribute("#analysis .pit.an-best", "data-pit") == BEST
    assert page.get_attribute("#analysis .pit.an-played", "data-pit") == PLAYED
    caption = page.inner_text("#analysis .analysis-caption")
    assert f"Best was {BEST}" in caption and "blunder" in caption

    # "Show me" plays the best line, starting with the best move
    page.click("#analysis .analysis-show")
    page.wait_for_selector("#analysis[data-showing='line-done']", timeout=30_000)
    assert f"The best line: {BEST}" in page.inner_text("#analysis .analysis-caption")
    page.click("#analysis .analysis-back")
    page.wait_for_selector("#analysis[data-showing='position']")


def test_analysis_in_japanese(open_page):
    page = open_page(speed="off", lang="ja")
    start_game(page, "kalah", {"seeds": 3}, mode="local")
    play_local_game_out(page, 200)
    page.click("#analyse-btn")
    wait_done(page)
    assert "解析" in page.inner_text("#analysis h2")
    assert page.locator("#analysis svg.eval-graph").count() == 1


def test_closing_a_running_analysis_cancels_it(open_page, live_server):
    """The page's DELETE carries the token its POST was answered with (only an asker may
    cancel), and the analysis stops."""
    page = open_page(speed="off")
    start_game(page, "kalah", {"seeds": 6}, mode="local")  # a game none of the others analyse
    play_local_game_out(page, 300)

    def is_(method):
        return lambda r: "/api/analysis" in r.url and r.request.method == method

    with page.expect_response(is_("POST")) as posted:
        page.click("#analyse-btn")
    assert posted.value.status == 202  # running: there is something to cancel
    with page.expect_response(is_("DELETE")) as deleted:
        page.click("#analysis .analysis-close")
    assert deleted.value.status == 200, deleted.value.text()
    key = deleted.value.url.rsplit("/", 1)[-1]

    def status():
        return httpx.get(f"{live_server}/api/analysis/{key}").json()["status"]

    deadline = time.monotonic() + 10
    while status() != "cancelled":
        assert time.monotonic() < deadline
        time.sleep(0.2)


def test_a_second_analysis_from_one_address_waits_its_turn(open_page, live_server):
    """One address runs one analysis at a time: the page's second is answered 429 ``busy``
    with Retry-After, and the page says it will try again (not that the analysis failed)."""
    from analysiskit import record

    long_game = record("oware", 120, 48)  # asked over HTTP from the browser's own address
    r = httpx.post(
        f"{live_server}/api/analysis",
        content=long_game,
        headers={"content-type": "application/json"},
        timeout=30,
    )
    assert r.status_code == 202, r.text
    key, token = r.json()["key"], r.json()["cancel_token"]
    try:
        page = open_page(speed="off")
        open_page.allow(r"status of 429")  # the browser logs the refusal the page handles
        start_game(page, "kalah", {"seeds": 5}, mode="local")
        play_local_game_out(page, 300)
        with page.expect_response(lambda r: r.url.endswith("/api/analysis")) as posted:
            page.click("#analyse-btn")
        assert posted.value.status == 429, posted.value.text()
        page.wait_for_selector("#analysis[data-state='busy']")
        assert "trying again" in page.inner_text("#analysis")
    finally:
        httpx.delete(
            f"{live_server}/api/analysis/{key}", headers={"authorization": f"Bearer {token}"}
        )
