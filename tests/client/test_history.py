"""The move history panel (issue 17): every ply, numbered by ply, by side; an extra-turn chain
shares one line; a Bao move's relays are listed under it; a past ply can be looked at and left."""

from __future__ import annotations

from clientkit import attr, counts, play_move, start_game


def history_rows(page):
    return page.eval_on_selector_all(
        "#history .turn",
        """rows => rows.map(r => ({
            nos: [...r.querySelectorAll('button.ply .ply-no')].map(n => n.textContent),
            side: r.dataset.side,
            plies: [...r.querySelectorAll('button.ply')].map(b => b.dataset.move),
            text: r.textContent,
        }))""",
    )


def test_kalah_extra_turn_chain_is_one_line(open_page):
    page = open_page()
    start_game(page, "kalah", {"seeds": 4}, mode="local")
    play_move(page, "c")  # 4 seeds: d, e, f, store -> extra turn (K5)
    play_move(page, "f")
    page.wait_for_function("document.querySelectorAll('#history button.ply').length === 2")
    rows = history_rows(page)
    assert rows[0]["side"] == "0"
    assert rows[0]["plies"] == ["c", "f"] and rows[0]["nos"] == ["1.", "2."]
    assert "extra turn" in rows[0]["text"]
    play_move(page, "A")
    page.wait_for_function("document.querySelectorAll('#history .turn').length === 2")
    rows = history_rows(page)
    assert rows[1]["side"] == "1" and rows[1]["plies"] == ["A"] and rows[1]["nos"] == ["3."]


def test_bao_relay_move_lists_its_laps(open_page):
    page = open_page()
    start_game(page, "bao-kiswahili", mode="local")
    for move in ["A7L", "a5R", "A6L", "a6R"]:  # a6R captures A3, relays at a8 and a6, stops a2
        play_move(page, move)
    page.wait_for_function("document.querySelectorAll('#history button.ply').length === 4")
    last = page.locator("#history button.ply[data-move='a6R']")
    laps = last.locator(".ply-laps").inner_text()
    assert "×A3" in laps and "→a8" in laps and "→a6" in laps and "■a2" in laps
    assert "captured 1" in last.inner_text()
    # Its name, as a screen reader has it: the side, the number, the move and what happened.
    name = last.evaluate("b => b.textContent")
    assert name.startswith("North 4.a6R") and "captured 1" in name


def test_looking_at_a_past_ply_and_back(open_page):
    page = open_page()
    start_game(page, "oware", mode="local")
    for move in ["c", "C", "d"]:
        play_move(page, move)
    page.wait_for_function("document.querySelectorAll('#history button.ply').length === 3")
    live = counts(page)
    page.click("#history button.ply[data-ply='1']")
    page.wait_for_selector("#viewing:not([hidden])")
    assert "after move 1 of 3" in page.inner_text("#viewing")
    assert attr(page, "myturn") == "0"
    assert page.locator(".pit.lit").count() == 0
    after1 = counts(page)
    assert after1 != live
    assert after1["c"] == 0 and after1["d"] == 5  # c's four seeds went to d, e, f, A (O3)
    page.click("#live")
    page.wait_for_selector("#viewing", state="hidden")
    assert counts(page) == live
    assert attr(page, "myturn") == "1"
    # Escape also returns.
    page.click("#history button.ply[data-ply='2']")
    page.wait_for_selector("#viewing:not([hidden])")
    page.keyboard.press("Escape")
    page.wait_for_selector("#viewing", state="hidden")
    assert counts(page) == live
