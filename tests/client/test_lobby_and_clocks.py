"""Two browser profiles meet through quick pairing, watch each other's clocks tick, and one
loses on time once each has made two moves: both pages say so."""

from __future__ import annotations

import re
import time

import pytest
from clientkit import PHONE, attr, counts, play_first, wait_open, wait_settled
from serverproc import ServerProcess


@pytest.fixture
def quick_server(tmp_path, key_prefix):
    """A server whose first quick pool is Kalah with 6 s on each clock (to flag within a test)."""
    server = ServerProcess(
        redis_url=None,
        data_dir=tmp_path / "quick",
        env={
            "NYUMBA_KEY_PREFIX": key_prefix + "quick:",
            "NYUMBA_QUICK_POOLS": "kalah:seeds=4@6+0,oware@300+3",
        },
    ).start()
    yield server
    server.stop(kill=True)


def _clock_ms(page, side: int) -> float:
    text = page.inner_text(f"#clocks .clock[data-side='{side}'] .clock-time")
    if ":" in text:
        minutes, seconds = text.split(":")
        return (int(minutes) * 60 + int(seconds)) * 1000
    return float(text) * 1000


def test_two_profiles_pair_by_quick_pairing_see_the_clocks_tick_and_one_flags(
    open_page, quick_server
):
    base = quick_server.url
    first = open_page(path=base + "/", viewport=PHONE)
    first.wait_for_selector("#quick .quick-pool[data-game='kalah']")
    box = first.locator("#quick .quick-pool[data-game='kalah']").bounding_box()
    assert box is not None and box["height"] >= 44  # a thumb's target
    first.click("#quick .quick-pool[data-game='kalah']")
    first.wait_for_selector("#seeking:not([hidden])")

    second = open_page(path=base + "/")
    second.wait_for_selector("#seeks .seek[data-mine='0']")  # the first page's seek, listed
    second.click("#quick .quick-pool[data-game='kalah']")
    for page in (first, second):
        page.wait_for_url(re.compile(r"/r/[A-Za-z0-9_-]+$"))
        wait_open(page)
        page.wait_for_selector("#clocks:not([hidden])")
    assert first.url == second.url
    assert first.is_visible("#abort") and second.is_visible("#abort")  # before the first moves

    # Both make a first move; then the side to move's clock runs, on both pages.
    for _ in range(2):
        mover = next(p for p in (first, second) if attr(p, "myturn") == "1")
        wait_settled(mover)
        before = attr(mover, "version")
        play_first(mover)
        mover.wait_for_function(
            "v => document.querySelector('#app').dataset.version !== v", arg=before
        )
        if attr(first, "plies") == "2" or attr(second, "plies") == "2":
            break
    for page in (first, second):
        page.wait_for_selector("#clocks .clock[data-running='1']")
    running = int(first.get_attribute("#clocks .clock[data-running='1']", "data-side"))
    before = [_clock_ms(p, running) for p in (first, second)]
    time.sleep(1.2)
    after = [_clock_ms(p, running) for p in (first, second)]
    assert all(b - a >= 700 for b, a in zip(before, after))  # both pages see it tick
    assert not first.is_visible("#abort")

    # Each side makes its second move: a flag before that would abort the game (fair play).
    made = {id(first): 1, id(second): 1}
    while min(made.values()) < 2:
        version = attr(first, "version")
        second.wait_for_function(
            "v => document.querySelector('#app').dataset.version === v", arg=version
        )
        mover = next(p for p in (first, second) if attr(p, "myturn") == "1")
        wait_settled(mover)
        play_first(mover)
        for page in (first, second):
            page.wait_for_function(
                "v => document.querySelector('#app').dataset.version !== v", arg=version
            )
        made[id(mover)] += 1
    version = attr(first, "version")
    second.wait_for_function(
        "v => document.querySelector('#app').dataset.version === v", arg=version
    )
    running = int(first.get_attribute("#clocks .clock[data-running='1']", "data-side"))

    # Low time: the running clock is marked (a class and a ⚠; the sound too, on its own page).
    mover = next(p for p in (first, second) if attr(p, "sides") == str(running))
    mover.wait_for_selector(f"#clocks .clock.low[data-side='{running}']", timeout=10_000)
    # Nobody moves: the running side's flag falls, and both pages say the game ended on time.
    for page in (first, second):
        page.wait_for_selector("#app[data-over='1']", timeout=15_000)
        assert "time" in page.inner_text("#result")
        page.wait_for_selector("#clocks .clock[data-running='1']", state="detached")
        assert _clock_ms(page, running) == 0
    results = {first.inner_text("#result"), second.inner_text("#result")}
    assert results == {"You won on time.", "You lost on time."}


def test_a_player_aborts_before_the_first_moves_and_both_are_offered_the_lobby(open_page):
    first = open_page(lang="ja")
    first.wait_for_selector("#quick .quick-pool[data-game='oware']")
    assert first.inner_text("#lobby-heading") == "今すぐ誰かと対局"
    first.click("#quick .quick-pool[data-game='oware']")
    first.wait_for_selector("#seeking:not([hidden])")
    second = open_page(viewport=PHONE)
    row = second.locator("#seeks .seek[data-mine='0']").first
    row.wait_for()
    assert "Oware" in row.inner_text() and "5+3" in row.inner_text()
    second.click("#seeks .seek[data-mine='0'] .seek-play")  # take the listed seek
    for page in (first, second):
        page.wait_for_url(re.compile(r"/r/[A-Za-z0-9_-]+$"))
        wait_open(page)
        page.wait_for_selector("#abort:not([hidden])")
        assert "5:00" in page.inner_text("#clocks")
    second.click("#abort")
    for page in (first, second):
        page.wait_for_selector("#app[data-over='1']")
        page.wait_for_selector("#lobby-link:not([hidden])")
        assert not page.is_visible("#abort")
    # Who aborted is said to each (the state's ended_by): the one who did, and the other.
    assert second.inner_text("#result") == "You aborted the game: no result."
    assert first.inner_text("#result") == "相手が対局を中止しました（結果なし）。"


def test_a_seek_made_with_the_start_pages_form_is_listed_taken_and_played_as_asked(open_page):
    """The form's own way into the lobby (not a quick pool): a game, an option and a clock
    chosen by hand, "Anyone, from the lobby" — the other player sees it listed as asked, takes
    it on a phone, and both sit in one room with that game, those seeds and that clock."""
    first = open_page()
    first.wait_for_selector("body[data-ready='1']")
    first.check("input[name=game][value='kalah']")
    first.select_option("#opt-seeds", "5")
    first.check("input[name=mode][value='lobby']")
    first.select_option("#clock", "180000+2000")
    first.check("input[name=side][value='north']")
    first.click("#go")
    first.wait_for_selector("#seeking:not([hidden])")
    assert "/r/" not in first.url  # a seek waits on the start page; no room yet

    second = open_page(viewport=PHONE)
    row = second.locator("#seeks .seek[data-mine='0']").first
    row.wait_for()
    assert "Kalah" in row.inner_text() and "3+2" in row.inner_text()
    assert second.is_visible("#quick .quick-pool[data-game='kalah']")  # still there, untaken
    second.click("#seeks .seek[data-mine='0'] .seek-play")
    for page in (first, second):
        page.wait_for_url(re.compile(r"/r/[A-Za-z0-9_-]+$"))
        wait_open(page)
        page.wait_for_selector("#clocks:not([hidden])")
        assert "3:00" in page.inner_text("#clocks")
        assert sorted(counts(page).values()) == [0, 0] + [5] * 12  # two empty stores
    assert first.url == second.url
    assert attr(first, "sides") == "1" and attr(second, "sides") == "0"  # the side asked for
