"""Against the computer: it replies, and undo takes back my move with its reply."""

from __future__ import annotations

from clientkit import attr, counts, play_first, start_game, wait_settled


def test_computer_replies_and_undo_takes_back(open_page):
    page = open_page(speed="fast")
    start_game(page, "oware", mode="computer", side="south", level="beginner")
    wait_settled(page)
    start = counts(page)
    assert not page.is_visible("#undo")  # nothing to take back yet
    assert not page.is_visible("#draw") and not page.is_visible("#takeback")
    assert "computer" in page.inner_text("#seats li[data-side='1']")

    play_first(page)
    # My move, then the computer's: my turn again after two plies.
    page.wait_for_selector("#app[data-plies='2']", timeout=20_000)
    page.wait_for_selector("#app[data-myturn='1']")
    assert "North" in page.inner_text("#last")
    assert counts(page) != start

    page.click("#undo")
    page.wait_for_selector("#app[data-plies='0']")
    wait_settled(page)
    assert counts(page) == start
    assert attr(page, "myturn") == "1"
    assert not page.is_visible("#undo")


def test_computer_moves_first_when_i_take_north(open_page):
    page = open_page(lang="ja")
    start_game(page, "kalah", {"seeds": 3}, mode="computer", side="north")
    page.wait_for_selector("#app[data-myturn='1']", timeout=20_000)
    assert int(attr(page, "plies")) >= 1
    assert attr(page, "sides") == "1"
    # North's view: North's own pits A–F along the bottom row, lit.
    lit = page.eval_on_selector_all(".pit.lit", "els => els.map(e => e.dataset.pit)")
    assert lit and all(p in "ABCDEF" for p in lit)
    assert page.inner_text("#status") == "あなたの番です"


def test_hint_marks_a_lit_pit_and_the_page_fetches_no_schema_for_it(open_page):
    """Hints are for computer and local rooms (server/PROTOCOL.md); the page knows the room's
    mode from its state, so it fetches nothing more (not the 17.8 KB protocol schema) to show
    the button."""
    page = open_page(path=None)
    fetched = []
    page.on("request", lambda r: fetched.append(r.url))
    page.goto("/")
    start_game(page, "kalah", {"seeds": 4}, mode="computer", side="south")
    wait_settled(page)
    page.wait_for_selector("#app[data-myturn='1']")
    page.wait_for_selector("#hint:not([hidden])")
    assert not [u for u in fetched if "/api/protocol" in u], fetched
    page.click("#hint")
    page.wait_for_selector(".pit.lit.hinted", timeout=20_000)
    assert page.locator(".pit.hinted").count() == 1
    assert "Hint:" in page.inner_text("#notice")
    # Playing clears it.
    play_first(page)
    page.wait_for_function("() => Number(document.querySelector('#app').dataset.plies) >= 1")
    wait_settled(page)
    assert page.locator(".pit.hinted").count() == 0
