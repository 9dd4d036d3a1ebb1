"""Move numbers: one scheme everywhere. Move N is the N-th move made (a ply), whoever made it:
the history shows it beside the move, looking back says "move N of M", the analysis lists it
as "N." and the replay as "Move N of M"."""

from __future__ import annotations

from clientkit import finish_local_game, open_analysis


def test_move_numbers_are_plies_in_the_history_the_analysis_and_the_replay(open_page):
    page = open_page()
    # Kalah with 4 seeds: South's c ends in the store (an extra turn, K5), so f is South's
    # second move in a row: moves 1 and 2 share a line; North's first move is move 3.
    plies = finish_local_game(page, "kalah", {"seeds": 4}, moves=["c", "f"])

    shown = page.eval_on_selector_all(
        "#history button.ply",
        "bs => bs.map(b => [Number(b.dataset.ply), b.querySelector('.ply-no')?.textContent ?? ''])",
    )
    assert len(shown) == plies
    assert all(no == f"{ply}." for ply, no in shown), shown[:5]
    # the extra-turn chain still shares one line
    assert page.locator("#history .turn").first.locator("button.ply").count() == 2

    page.click("#history button.ply[data-ply='3']")
    page.wait_for_selector("#viewing:not([hidden])")
    assert f"after move 3 of {plies} (North " in page.inner_text("#viewing-text")
    page.click("#live")

    open_analysis(page)
    page.click("#analysis button.an-ply[data-ply='3']")
    page.wait_for_selector("#analysis[data-ply='3']")
    assert page.inner_text("#analysis button.an-ply[data-ply='3'] .an-no") == "3."
    assert page.inner_text("#analysis .analysis-caption").startswith(
        "Before move 3 (North to play)"
    )

    page.click("#replay-btn")
    page.wait_for_selector("#replay[data-count]")
    page.click("#replay button.ply[data-ply='3']")
    page.wait_for_selector("#replay[data-index='3']")
    assert page.inner_text("#replay .replay-where") == f"Move 3 of {plies}"
    assert page.inner_text("#replay button.ply[data-ply='3'] .ply-no") == "3."
