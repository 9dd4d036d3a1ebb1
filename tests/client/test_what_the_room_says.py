"""What the room page says and shows around the moves: choices named by their pit, draws
asked for, Bao's words, results said once, labels, the replay, spectators. Each test failed
before the fix it guards."""

from __future__ import annotations

import json

import httpx
from clientkit import attr, start_game, wait_open, wait_settled
from test_history import play_move


def test_bao_choices_for_north_name_the_sense_not_left_and_right(open_page):
    # North picks a5 in a local room (board in South's view): "left kichwa" was North's left,
    # which is South's right on screen. The choices name the kichwa by its pit now.
    page = open_page()
    start_game(page, "bao-kiswahili", mode="local")
    play_move(page, "A7L")
    page.click("[data-pit='a5']")
    page.wait_for_selector("#choices:not([hidden])")
    labels = page.locator("#choices button.choice").all_inner_texts()
    assert any("enter at a1" in x and "↻" in x for x in labels)
    assert any("enter at a8" in x and "↺" in x for x in labels)
    assert not any("left" in x or "right" in x or "◀" in x or "▶" in x for x in labels)
    page.click("#choice-cancel")
    play_move(page, "a5R")
    page.click("[data-pit='A6']")
    labels = page.locator("#choices button.choice").all_inner_texts()
    assert len(labels) == 2
    assert any(x.startswith("↺ anticlockwise (L)") for x in labels)
    assert any(x.startswith("↻ clockwise (R)") for x in labels)


def test_local_draw_asks_first(open_page):
    page = open_page()
    start_game(page, "kalah", mode="local")
    page.click("#draw")
    assert page.inner_text("#draw") == "Really end as a draw?"
    page.wait_for_timeout(500)
    assert attr(page, "over") == "0"
    page.click("#draw")
    page.wait_for_selector("#app[data-over='1']")
    assert page.inner_text("#result") == "Draw by agreement."


def test_kujifunza_has_no_nyumba_and_no_hands(open_page):
    page = open_page()
    start_game(page, "bao-kujifunza", mode="local")
    wait_settled(page)
    assert page.locator(".pit.nyumba").count() == 0
    assert "nyumba" not in page.get_attribute("[data-pit='A5']", "aria-label")
    assert not page.is_visible("[data-pit='hand0']") and not page.is_visible("[data-pit='hand1']")
    # Bao la Kiswahili keeps both while they matter.
    page.goto("/")
    start_game(page, "bao-kiswahili", mode="local")
    wait_settled(page)
    assert page.locator(".pit.nyumba").count() == 2
    assert page.is_visible("[data-pit='hand0']")


WORDS_JS = """async (last) => {
  const { lastMoveSummary } = await import('/static/words.js');
  return lastMoveSummary(last, (s) => ['South', 'North'][s]);
}"""


def test_game_ending_move_is_not_an_extra_turn(open_page):
    page = open_page()
    page.wait_for_selector("body[data-ready='1']")
    ending = {
        "move": "f",
        "side": 0,
        "steps": [
            {"kind": "lift", "pit": "f", "seeds": 1},
            {"kind": "sow", "pit": "store0"},
            {"kind": "extra-turn", "player": 0},
            {"kind": "end", "note": "side-empty"},
        ],
    }
    assert "extra turn" not in page.evaluate(WORDS_JS, ending)
    going_on = {**ending, "steps": ending["steps"][:3]}
    assert "extra turn" in page.evaluate(WORDS_JS, going_on)


def test_tax_move_said_in_words(open_page):
    page = open_page()
    start_game(page, "bao-kiswahili", mode="local")
    moves = "A7L a5L A6R a1L A5L a2L A1R a6L A5R a7R A8L a2L A6R a2L A5L a8R A5L2".split()
    for move in moves:
        play_move(page, move)
    assert "tax" in page.inner_text("#last")
    assert "tax" in page.inner_text("#history button.ply[data-move='A5L2']")


PENDING_JS = """async () => {
  const { BoardView } = await import('/static/board.js');
  const box = document.createElement('div');
  document.body.append(box);
  const v = new BoardView(box, 'bao-kiswahili');
  const pits = {};
  for (const r of 'ABab') for (let i = 1; i <= 8; i++) pits[r + i] = 0;
  v.show({ pits, hands: [0, 0], stage: 'mtaji', nyumba: [false, false], takasia: null, pending: [0, 3] });
  return v.info.textContent;
}"""


def test_pending_seeds_say_whose(open_page):
    page = open_page()
    page.wait_for_selector("body[data-ready='1']")
    info = page.evaluate(PENDING_JS)
    assert "North 3" in info and "0/3" not in info and "South" not in info


def test_resignation_said_once(open_page):
    page = open_page()
    start_game(page, "oware", mode="local")
    page.click("#resign")
    page.click("#resign")
    page.wait_for_selector("#app[data-over='1']")
    result = page.inner_text("#result")
    assert "resigned" in result and "Adjudication" not in result


def test_option_labels_and_the_default_mark(open_page):
    page = open_page()
    page.wait_for_selector("body[data-ready='1']")
    page.check("input[name=game][value='kalah']")
    label = page.inner_text("label[for='opt-empty_capture']")
    assert "goes to your store, even when the pit across is empty" in label
    assert page.is_visible(".default-note") and "usual" in page.inner_text(".default-note")


def test_screen_readers_hear_the_last_move_and_japanese_labels(open_page):
    page = open_page(lang="ja")
    start_game(page, "kalah", mode="local")
    assert page.get_attribute("#last", "aria-live") == "polite"
    label = page.get_attribute("[data-pit='c']", "aria-label")
    assert "、" in label and ", " not in label


def test_replay_autoplay_and_unfinished_note(open_page, live_server):
    page = open_page()
    room = start_game(page, "kalah", {"seeds": 3}, mode="local").rsplit("/", 1)[1]
    for move in ["a", "A", "b"]:
        play_move(page, move)
    record = httpx.get(f"{live_server}/api/rooms/{room}/record").json()
    page.goto("/")
    page.wait_for_selector("body[data-ready='1']")
    page.set_input_files(
        "#record-file",
        files=[
            {
                "name": "r.json",
                "mimeType": "application/json",
                "buffer": json.dumps(record).encode(),
            }
        ],
    )
    page.wait_for_selector("#replay[data-count='4']")
    assert page.is_visible("#replay .replay-unfinished")
    assert page.locator("#replay .history button.ply").count() == 3
    page.click("#replay .replay-auto")
    page.wait_for_selector("#replay[data-index='3']", timeout=30_000)
    page.wait_for_selector("#replay[data-auto='0']", timeout=10_000)  # stops at the end
    page.click("#replay .history button.ply[data-ply='1']")
    page.wait_for_selector("#replay[data-index='1']")


def test_watcher_count_and_share_link_for_spectators(open_page):
    host = open_page()
    url = start_game(host, "oware")
    friend = open_page(path=url)
    wait_open(friend)
    watcher = open_page(path=url)
    wait_open(watcher)
    host.wait_for_selector("#seats .watchers[data-watchers='1']")
    assert watcher.is_visible("#share-url")
    watcher.close()
    host.wait_for_selector("#seats .watchers", state="detached")
