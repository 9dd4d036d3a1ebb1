"""Phones (issue 17): at 390x844 every game's board is turned to use the height with pits of at
least 44 px and legible names; stores are labelled; the start form's Start button is on the
screen; on a touch screen a pit is played by a second tap."""

from __future__ import annotations

import pytest
from clientkit import PHONE, attr, start_game, wait_settled

GAMES = ["kalah", "oware", "bao-kiswahili", "bao-kujifunza", "bao-nakakamado-a"]


@pytest.mark.parametrize("game", GAMES)
def test_phone_board_turned_with_pits_of_44px(open_page, game):
    page = open_page(viewport=PHONE)
    start_game(page, game, mode="local")
    wait_settled(page)
    assert page.locator(".board.portrait").count() == 1
    boxes = page.eval_on_selector_all(
        ".pit",
        """els => els.map(e => { const r = e.getBoundingClientRect();
             return {pit: e.dataset.pit, w: r.width, h: r.height, right: r.right,
                     name: parseFloat(getComputedStyle(e.querySelector('.name')).fontSize)}; })""",
    )
    assert boxes
    small = [b for b in boxes if b["w"] < 44 or b["h"] < 44]
    assert not small, f"pits under 44 px: {small[:3]}"
    assert all(b["right"] <= PHONE["width"] for b in boxes), "the board fits the width"
    assert min(b["name"] for b in boxes) >= 11, "pit names legible"
    board = page.eval_on_selector(".board", "e => e.getBoundingClientRect().toJSON()")
    assert board["height"] > board["width"], "turned to use the height"


def test_kalah_stores_labelled_with_their_owner(open_page):
    page = open_page()
    page.wait_for_selector("body[data-ready='1']")
    page.fill("#name", "Amani")
    start_game(page, "kalah", mode="computer", side="south")
    wait_settled(page)
    page.wait_for_selector("[data-pit='store0'] .name:has-text('Amani store')")
    assert page.inner_text("[data-pit='store1'] .name") == "North store"
    assert "Amani store" in page.get_attribute("[data-pit='store0']", "aria-label")


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_start_button_on_screen_in_computer_mode(open_page, lang):
    page = open_page(viewport=PHONE, lang=lang)
    page.wait_for_selector("body[data-ready='1']")
    page.check("input[name=mode][value='computer']")
    box = page.eval_on_selector("#go", "e => e.getBoundingClientRect().toJSON()")
    assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]
    assert page.is_visible("#go")


def test_tap_to_select_then_tap_to_play_on_a_touch_screen(open_page):
    ctx = open_page.context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = open_page(ctx)
    start_game(page, "kalah", {"seeds": 4}, mode="local")
    wait_settled(page)
    assert page.is_checked("#tap-confirm"), "on by default for touch"
    page.tap("[data-pit='c']")
    page.wait_for_selector("[data-pit='c'].armed")
    assert attr(page, "plies") == "0"
    assert "c" in page.inner_text("#tap-hint")
    # Another pit moves the selection; tapping it again plays.
    page.tap("[data-pit='d']")
    page.wait_for_selector("[data-pit='d'].armed")
    assert page.locator(".pit.armed").count() == 1
    page.tap("[data-pit='d']")
    page.wait_for_selector("#app[data-plies='1']")
    wait_settled(page)
    assert "South d" in page.inner_text("#last")
    # Off: one tap plays.
    page.uncheck("#tap-confirm")
    before = attr(page, "plies")
    page.tap(".pit.lit >> nth=0")
    page.wait_for_function("p => document.querySelector('#app').dataset.plies !== p", arg=before)
