"""After a game: looking back says nothing of a game going on; the analysis counts its labels
in words that agree with their numbers, comes into view on a phone, and is put away by a
rematch."""

from __future__ import annotations

import re

import pytest
from clientkit import PHONE, attr, finish_local_game, open_analysis, play_move, start_game


@pytest.mark.parametrize("lang,goes_on", [("en", "goes on"), ("ja", "続きます")])
def test_looking_back_after_the_end_does_not_say_the_game_goes_on(open_page, lang, goes_on):
    page = open_page(lang=lang)
    finish_local_game(page)
    page.click("#history button.ply[data-ply='2']")
    page.wait_for_selector("#viewing:not([hidden])")
    text = page.inner_text("#viewing-text")
    assert text and goes_on not in text


def test_looking_back_during_the_game_says_it_goes_on(open_page):
    page = open_page()
    start_game(page, "kalah", {"seeds": 3}, mode="local")
    play_move(page, "a")
    play_move(page, "A")
    page.click("#history button.ply[data-ply='1']")
    page.wait_for_selector("#viewing:not([hidden])")
    assert "The game goes on meanwhile." in page.inner_text("#viewing-text")


# One word per count, agreeing with it: "1 blunder", "2 blunders", "0 mistakes".
COUNTED = re.compile(r"(\d+) (inaccurac(?:y|ies)|mistakes?|blunders?)")


def test_analysis_counts_agree_with_their_numbers(open_page):
    page = open_page()
    # This game (Kalah, 3 seeds, always the first lit pit) has a side with exactly one label of
    # some kind, so the singular is shown (the analysis is deterministic).
    finish_local_game(page)
    open_analysis(page)
    counts = page.inner_text("#analysis .analysis-counts")
    found = COUNTED.findall(counts)
    assert len(found) == 6, counts
    for n, word in found:
        singular = word in ("inaccuracy", "mistake", "blunder")
        assert singular == (n == "1"), f"{n} {word} in {counts!r}"
    assert any(n == "1" for n, _ in found), f"no count of one to check: {counts!r}"


def test_analysis_graph_comes_into_view_on_a_phone(open_page):
    page = open_page(viewport=PHONE)
    finish_local_game(page)
    open_analysis(page)
    page.wait_for_timeout(100)
    box = page.eval_on_selector(
        "#analysis .analysis-graph", "e => e.getBoundingClientRect().toJSON()"
    )
    assert box["height"] > 50
    assert box["top"] >= 0 and box["bottom"] <= PHONE["height"], box


def test_a_rematch_puts_away_the_last_games_analysis_and_replay(open_page):
    page = open_page()
    finish_local_game(page)
    open_analysis(page)
    page.click("#replay-btn")
    page.wait_for_selector("#replay[data-count]")
    assert page.is_visible("#analysis") and page.is_visible("#replay")
    page.click("#rematch")  # a local room starts the next game at once
    page.wait_for_selector("#app[data-over='0'][data-plies='0']")
    page.wait_for_selector("#analysis", state="hidden")
    page.wait_for_selector("#replay", state="hidden")
    assert not page.is_visible("#analyse-btn")
    assert attr(page, "myturn") == "1"
