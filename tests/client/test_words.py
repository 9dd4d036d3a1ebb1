"""Words players read: offers said in whole sentences; each game's Japanese words as its source
site uses them (Kalah 穴・倉・石, Oware 種子 with score containers, Bao 種); Japanese lines
broken between words, never inside one."""

from __future__ import annotations

import pytest
from clientkit import DESKTOP, PHONE, start_game, wait_open, wait_settled


def test_a_takeback_is_asked_and_answered_in_sentences(open_page):
    host = open_page()
    url = start_game(host, "kalah", {"seeds": 3})
    friend = open_page(path=url, lang="ja")
    wait_open(friend)
    host.wait_for_selector("#app[data-myturn='1']")
    host.click("[data-pit='b']")  # no extra turn: North's move next
    friend.wait_for_selector("#app[data-myturn='1']")
    wait_settled(host)
    host.click("#takeback")
    host.wait_for_selector("#offer:not([hidden])")
    assert host.inner_text("#offer-text") == (
        "You asked to take back your last move; waiting for an answer."
    )
    friend.wait_for_selector("#offer:not([hidden])")
    assert friend.inner_text("#offer-text") == "相手が待ったを求めています。"
    friend.click("#accept")
    host.wait_for_selector("#notice:not([hidden])")
    assert host.inner_text("#notice") == "The request to take back a move was accepted."
    friend.wait_for_selector("#notice:not([hidden])")
    assert friend.inner_text("#notice") == "待ったが受け入れられました。"


def texts(page) -> str:
    """Every word on the page a player reads or hears: its text and its labels."""
    return page.evaluate(
        """() => document.body.innerText + ' ' + [...document.querySelectorAll('[aria-label]')]
             .map(e => e.getAttribute('aria-label')).join(' ')"""
    )


def test_japanese_words_are_each_games_own(open_page):
    page = open_page(lang="ja")
    page.wait_for_selector("body[data-ready='1']")
    options = page.inner_text("#options")
    assert "1つの穴の石の数" in options and "その石を倉に入れる" in options
    assert "ストア" not in options and "種" not in options

    start_game(page, "kalah", {"seeds": 4}, mode="local")
    wait_settled(page)
    words = texts(page)
    assert "南の倉" in words and "北の倉" in words
    assert "ストア" not in words and "種" not in words

    page.goto("/")
    start_game(page, "oware", mode="local")
    wait_settled(page)
    words = texts(page)
    assert "南の得点" in words and "北の得点" in words
    assert "ストア" not in words and "倉" not in words

    for game, want, never in [
        ("kalah", ["倉", "石"], ["ストア", "種"]),
        ("oware", ["種子", "得点容器"], ["ストア", "倉", "皿"]),
        ("bao-kiswahili", ["種"], ["ストア", "倉"]),
    ]:
        page.goto(f"/static/rules.html?game={game}")
        page.wait_for_selector("body[data-ready='1']")
        words = texts(page)
        assert all(w in words for w in want), game
        found = [w for w in never if w in words.replace("種子", "")]
        assert not found, f"{game}: {found}"


# For every text on the page, the words (as Intl.Segmenter finds them in Japanese) of two or
# more characters whose characters do not all sit on one line.
BROKEN_WORDS = """() => {
  const seg = new Intl.Segmenter("ja", { granularity: "word" });
  const broken = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || !el.checkVisibility() || !/[\\u3040-\\u30ff\\u4e00-\\u9fff]/.test(node.data)) continue;
    const vertical = getComputedStyle(el).writingMode.startsWith("vertical");
    for (const s of seg.segment(node.data)) {
      if (!s.isWordLike || [...s.segment].length < 2) continue;
      const lines = new Set();
      for (let i = s.index; i < s.index + s.segment.length; i++) {
        const r = document.createRange();
        r.setStart(node, i);
        r.setEnd(node, i + 1);
        const box = r.getClientRects()[0];
        if (box && box.width > 0) lines.add(Math.round(vertical ? box.left : box.top));
      }
      if (lines.size > 1) broken.push(`${s.segment} in ${node.data.slice(0, 30)}`);
    }
  }
  return broken;
}"""


@pytest.mark.parametrize(
    "viewport", [PHONE, {"width": 360, "height": 740}, DESKTOP], ids=["390", "360", "1100"]
)
def test_japanese_lines_break_between_words(open_page, viewport):
    page = open_page(lang="ja", viewport=viewport)
    page.wait_for_selector("body[data-ready='1']")
    page.check("input[name=mode][value='computer']")
    broken = {"start": page.evaluate(BROKEN_WORDS)}
    for game in ("kalah", "oware", "bao-kiswahili", "bao-nakakamado-a"):
        page.goto(f"/static/rules.html?game={game}")
        page.wait_for_selector("body[data-ready='1']")
        broken[game] = page.evaluate(BROKEN_WORDS)
    page.goto("/")
    start_game(page, "bao-kiswahili", mode="friend")
    wait_settled(page)
    broken["room"] = page.evaluate(BROKEN_WORDS)
    assert not any(broken.values()), {k: v[:5] for k, v in broken.items() if v}
