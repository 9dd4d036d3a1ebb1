"""The page itself: CSP, languages, keyboard play with a choice step, board layout, labels."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
from clientkit import PHONE, attr, start_game, wait_settled

CLIENT = Path(__file__).resolve().parents[2] / "client"


def test_pages_are_served_with_the_csp_and_carry_no_inline_code(live_server):
    for path in ("/", "/r/some-room", "/static/app.js", "/static/style.css"):
        r = httpx.get(live_server + path)
        assert r.status_code == 200, path
        assert "script-src 'self'" in r.headers["content-security-policy"]
    for html in CLIENT.glob("*.html"):
        text = html.read_text()
        assert "<style" not in text and " style=" not in text, html
        assert not re.search(r"<script(?![^>]*\bsrc=)", text), html
        assert not re.search(r"\son[a-z]+=", text), html
    for js in CLIENT.glob("*.js"):
        text = js.read_text()
        assert "eval(" not in text and "new Function" not in text and "innerHTML" not in text, js


def test_language_defaults_to_the_browser_and_switches(open_page):
    page = open_page(lang="ja")  # a browser asking for Japanese gets it without choosing
    page.wait_for_selector("body[data-ready='1']")
    assert page.inner_text("h1") == "マンカラで遊ぶ"
    assert "カラハ" in page.inner_text("#games")
    page.select_option("#lang", "en")
    assert page.inner_text("h1") == "Play mancala"
    assert page.evaluate("document.documentElement.lang") == "en"
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.inner_text("h1") == "Play mancala"

    other = open_page(lang="en")
    other.wait_for_selector("body[data-ready='1']")
    assert other.inner_text("h1") == "Play mancala"


def test_keyboard_play_with_a_direction_choice_on_bao(open_page):
    page = open_page(speed="fast", viewport=PHONE)
    start_game(page, "bao-kiswahili", mode="local")
    wait_settled(page)
    lit = page.eval_on_selector_all(".pit.lit", "els => els.map(e => e.dataset.pit)")
    assert lit == ["A6", "A7"] or set(lit) == {"A6", "A7"}
    # The nyumba is drawn and labelled; lit pits get a dashed outline, not only a colour.
    assert "nyumba (owned)" in page.get_attribute("[data-pit='A5']", "aria-label")
    assert page.eval_on_selector(".pit.lit", "e => getComputedStyle(e).outlineStyle") == "dashed"
    assert "South pit A6: 2" in page.get_attribute("[data-pit='A6']", "aria-label")

    page.focus("[data-pit='A6']")
    page.keyboard.press("Enter")
    page.wait_for_selector("#choices:not([hidden])")
    assert "A6" in page.inner_text("#choices-heading")
    labels = page.locator("#choices button.choice").all_inner_texts()
    assert any("↺ anticlockwise" in label for label in labels)
    assert any("↻ clockwise" in label for label in labels)
    page.keyboard.press("Escape")
    page.wait_for_selector("#choices", state="hidden")
    assert page.evaluate("document.activeElement.dataset.pit") == "A6"

    page.keyboard.press("Enter")
    page.wait_for_selector("#choices:not([hidden])")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # the second choice: ↻ clockwise (R)
    page.wait_for_selector("#app[data-plies='1']")
    wait_settled(page)
    assert "South A6R" in page.inner_text("#last")
    # The last move is marked with a symbol where it started.
    assert page.inner_text("[data-pit='A6'] .mark") == "▲"
    assert attr(page, "myturn") == "1"  # local: North's turn, same device


def test_board_layouts_follow_the_rules_pictures(open_page):
    page = open_page()
    url = start_game(page, "bao-kujifunza", mode="friend")
    box = lambda p, name: p.locator(f"[data-pit='{name}']").bounding_box()  # noqa: E731
    # South's view: A1 left of A8, back row B below the front row; North's a1 at South's right.
    assert box(page, "A1")["x"] < box(page, "A8")["x"]
    assert box(page, "B1")["y"] > box(page, "A1")["y"]
    assert box(page, "a1")["x"] > box(page, "a8")["x"]
    assert box(page, "a1")["y"] < box(page, "A1")["y"]
    assert box(page, "b1")["y"] < box(page, "a1")["y"]
    assert abs(box(page, "A5")["x"] - box(page, "a4")["x"]) < 2  # A5 faces a4 (B3)

    north = open_page(path=url)
    north.wait_for_selector("#app[data-sides='1']")
    # North's view is turned: North's front row at the bottom, a1 at North's left.
    assert box(north, "a1")["x"] < box(north, "a8")["x"]
    assert box(north, "a1")["y"] > box(north, "A1")["y"]
    assert box(north, "b1")["y"] > box(north, "a1")["y"]
    north.click("#flip")
    assert box(north, "a1")["y"] < box(north, "A1")["y"]


def test_kalah_and_oware_layouts(open_page):
    page = open_page()
    start_game(page, "kalah", mode="local")
    box = lambda name: page.locator(f"[data-pit='{name}']").bounding_box()  # noqa: E731
    assert box("a")["x"] < box("f")["x"] < box("store0")["x"]  # South's store at South's right
    assert box("store1")["x"] < box("F")["x"] < box("A")["x"]  # North's pits run right to left
    assert box("A")["y"] < box("a")["y"]
    page.goto("/")
    start_game(page, "oware", mode="local")
    assert (
        box("f")["x"] < box("A")["x"] + 2 and box("A")["y"] < box("f")["y"]
    )  # the ring turns at f→A
    assert box("store1")["y"] < box("A")["y"] and box("store0")["y"] > box("a")["y"]
    assert "captured" in page.get_attribute("[data-pit='store0']", "aria-label")


def test_a_room_that_does_not_exist_says_so(open_page):
    page = open_page(path="/r/no-such-room-here")
    page.wait_for_selector("#app[data-conn='gone']")
    assert "does not exist" in page.inner_text("#conn")
    assert page.is_visible("#new-game")
    assert page.locator(".pit").count() == 0


def test_results_in_words(open_page):
    """The result line for endings that are hard to reach by play (words.js, in the page)."""
    page = open_page(path="/")
    page.wait_for_selector("body[data-ready='1']")
    said = page.evaluate("""async () => {
        const w = await import('/static/words.js');
        const i18n = await import('/static/i18n.js');
        const side = (n) => i18n.t(`side.${n}`);
        const say = (outcome, sides = []) => w.resultText({outcome, to_move: null}, sides, side);
        const out = {
            safety: say({winner: null, reason: "relay-limit", adjudication: "safety-stop"}),
            resigned: say({winner: 1, reason: "resignation", adjudication: "resignation"}, [0]),
            repetition: say({winner: 0, reason: "repetition", score: [25, 23], adjudication: "repetition"}),
            draw: say({winner: null, reason: "side-empty", score: [18, 18]}),
            choice: w.choiceLabels([{choice: "R"}, {choice: "R+"}, {choice: "L2"}]),
            summary: w.lastMoveSummary({move: "a1R", side: 1, steps: [
                {kind: "capture", pit: "A8", seeds: 3}, {kind: "place", pit: "a1", note: "nyakua", player: 1},
                {kind: "stop", note: "relay-limit"}]}, side),
        };
        i18n.setLang("ja");
        out.safetyJa = say({winner: null, reason: "relay-limit", adjudication: "safety-stop"});
        i18n.setLang("en");
        return out;
    }""")
    assert said["safety"] == "No winner. Safety stop: a move ran past the relay limit."
    assert said["resigned"] == "You resigned: your opponent wins."  # said to the one who did
    assert "South wins. Score 25–23." in said["repetition"] and "repeated" in said["repetition"]
    assert said["draw"].startswith("Draw. Score 18–18.")
    assert said["choice"][0].endswith("stop at the nyumba") and "safari" in said["choice"][1]
    assert "tax" in said["choice"][2]
    assert said["summary"] == "Last move: North a1R — captured 3 · NYAKUA! · safety stop"
    assert said["safetyJa"].startswith("勝者なし。")
