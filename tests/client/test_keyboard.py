"""Playing by keyboard: the board is one tab stop (a roving tabindex), the arrow keys move
between the playable pits in the order they are drawn, Enter plays the pit."""

from __future__ import annotations

from clientkit import attr, start_game, wait_settled

FOCUSED = "() => document.activeElement?.dataset?.pit ?? document.activeElement?.id ?? ''"


def tab_stops(page) -> int:
    return page.eval_on_selector_all(
        ".board .pit", "els => els.filter(e => e.tabIndex >= 0).length"
    )


def test_the_board_is_one_tab_stop_and_arrows_move_between_playable_pits(open_page):
    page = open_page()
    start_game(page, "kalah", {"seeds": 4}, mode="local")
    wait_settled(page)
    assert tab_stops(page) == 1
    page.focus("#lang")
    page.keyboard.press("Tab")
    assert page.evaluate(FOCUSED) == "a"  # the first playable pit, not North's F
    page.keyboard.press("Tab")
    after = page.evaluate(FOCUSED)
    assert after not in "abcdefABCDEF", f"the second Tab stayed on the board ({after})"
    page.keyboard.press("Shift+Tab")
    assert page.evaluate(FOCUSED) == "a"
    page.keyboard.press("ArrowRight")
    assert page.evaluate(FOCUSED) == "b"
    page.keyboard.press("End")
    assert page.evaluate(FOCUSED) == "f"
    page.keyboard.press("ArrowRight")  # round to the first again
    assert page.evaluate(FOCUSED) == "a"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowUp")
    assert page.evaluate(FOCUSED) == "e"
    assert tab_stops(page) == 1
    page.keyboard.press("Enter")  # e: 4 seeds to f, the store, A and B; North to move
    page.wait_for_selector("#app[data-plies='1']")
    wait_settled(page)
    assert "South e" in page.inner_text("#last")
    assert tab_stops(page) == 1
    # North's turn: the arrows now go round North's playable pits (drawn right to left).
    page.focus(".board .pit[tabindex='0']")
    assert page.evaluate(FOCUSED) in "ABCDEF"
    page.keyboard.press("Home")
    first = page.evaluate(FOCUSED)
    page.keyboard.press("ArrowRight")
    assert page.evaluate(FOCUSED) != first
    page.keyboard.press("Enter")
    page.wait_for_selector("#app[data-plies='2']")


def test_a_bao_board_is_one_tab_stop_too(open_page):
    page = open_page()
    start_game(page, "bao-kiswahili", mode="local")
    wait_settled(page)
    assert page.locator(".board .pit").count() == 32
    assert tab_stops(page) == 1
    page.focus("#lang")
    page.keyboard.press("Tab")
    pit = page.evaluate(FOCUSED)
    assert page.locator(f".pit.lit[data-pit='{pit}']").count() == 1
    page.keyboard.press("Enter")  # a Bao pit has several moves: its choices open
    page.wait_for_selector("#choices:not([hidden])")
    page.keyboard.press("Enter")
    page.wait_for_selector("#app[data-plies='1']")
    assert attr(page, "plies") == "1"
