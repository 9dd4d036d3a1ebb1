"""The "How to play" pages (issue 17): reachable from the start page and from a room, in English
and Japanese, every game, with diagrams drawn by the board code; no translation key missing in
either language; the diagrams are what the engine gives."""

from __future__ import annotations

from pathlib import Path

import pytest
import rulesdiagrams
from clientkit import start_game

GAMES = ["kalah", "oware", "bao-kiswahili", "bao-kujifunza", "bao-nakakamado-a"]


def test_diagram_positions_are_the_engines():
    on_disk = Path(rulesdiagrams.OUT).read_text()
    assert on_disk == rulesdiagrams.text(), "run: python tests/client/rulesdiagrams.py"


KEYS_JS = """async () => {
  const { STRINGS } = await import('/static/i18n.js');
  const { TEXT, PAGES, DIAGRAM } = await import('/static/rules-text.js');
  const { DIAGRAMS } = await import('/static/rules-diagrams.js');
  const problems = [];
  const en = new Set(Object.keys(STRINGS.en)), ja = new Set(Object.keys(STRINGS.ja));
  for (const k of en) if (!ja.has(k)) problems.push(`ja lacks ${k}`);
  for (const k of ja) if (!en.has(k)) problems.push(`en lacks ${k}`);
  for (const k of Object.keys(TEXT.en)) if (!(k in TEXT.ja)) problems.push(`ja rules lack ${k}`);
  for (const k of Object.keys(TEXT.ja)) if (!(k in TEXT.en)) problems.push(`en rules lack ${k}`);
  for (const [game, ids] of Object.entries(PAGES)) {
    for (const l of ['en', 'ja']) {
      if (!TEXT[l][game]?.intro) problems.push(`${l} ${game} has no intro`);
      if (!STRINGS[l][`game.${game}`]) problems.push(`${l} has no name for ${game}`);
      for (const id of ids) {
        const s = TEXT[l][id];
        if (!s || !s.h || !s.p?.length) { problems.push(`${l} ${id} is empty`); continue; }
        if (s.p.length !== TEXT.en[id].p.length) problems.push(`${l} ${id}: paragraphs differ`);
        if (DIAGRAM[id] && !s.c) problems.push(`${l} ${id}: no caption`);
        if (DIAGRAM[id] && !DIAGRAMS[DIAGRAM[id]]) problems.push(`${id}: no diagram ${DIAGRAM[id]}`);
      }
    }
  }
  return problems;
}"""


def test_english_and_japanese_have_the_same_keys(open_page):
    page = open_page(path="/static/rules.html")
    page.wait_for_selector("body[data-ready='1']")
    assert page.evaluate(KEYS_JS) == []
    # Every data-i18n key the three pages use has words in both languages.
    for path in ("/", "/static/rules.html", "/r/nosuchroom"):
        page.goto(path)
        keys = page.eval_on_selector_all(
            "[data-i18n], [data-i18n-aria]",
            "els => els.map(e => e.dataset.i18n || e.dataset.i18nAria)",
        )
        missing = page.evaluate(
            """async (keys) => { const { STRINGS } = await import('/static/i18n.js');
               return keys.filter(k => !(k in STRINGS.en) || !(k in STRINGS.ja)); }""",
            keys,
        )
        assert missing == [], f"{path}: {missing}"


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_rules_reachable_from_start_and_room_in_both_languages(open_page, lang):
    page = open_page(lang=lang)
    page.wait_for_selector("body[data-ready='1']")
    for game in GAMES:
        page.goto("/")
        page.wait_for_selector("body[data-ready='1']")
        page.click(f".game-choice .rules-link[data-game='{game}']")
        page.wait_for_selector("body.rules-page[data-ready='1']")
        assert page.url.endswith(f"rules.html?game={game}")
        title = page.inner_text("#rules-title")
        assert ("How to play" in title) if lang == "en" else ("遊び方" in title)
        sections = page.locator(".rules-section").count()
        assert sections >= 5
        assert page.locator(".diagram .board [data-pit]").count() > 0  # drawn by the board code
        text = page.inner_text("#rules-body")
        if lang == "ja":
            assert "盤" in text
        else:
            assert "The board" in text or "How it differs" in text
    # From a room: the header link opens the room's game's page.
    page.goto("/")
    start_game(page, "oware", mode="local")
    link = page.get_attribute("#rules-link", "href")
    assert link.endswith("rules.html?game=oware")
    with page.context.expect_page() as opened:
        page.click("#rules-link")
    rules = opened.value
    rules.wait_for_selector("body.rules-page[data-ready='1']")
    assert "rules.html?game=oware" in rules.url
    assert rules.locator(".rules-section").count() >= 5
