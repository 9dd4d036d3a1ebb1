"""The start page as a stranger meets it, on an English desktop (1280 × 800) and a Japanese phone
(390 × 844): clock labels said in words, options in plain words with the rule number as a link,
Start a few key presses away, the name/Start bar one row, a file button in the page's language,
and an empty pit's 0 readable (4.5:1 at least, worked out from the computed styles)."""

from __future__ import annotations

import pytest
from clientkit import PHONE

from engine import records, registry

VIEWS = {
    "en-desktop": ("en", {"width": 1280, "height": 800}),
    "ja-phone": ("ja", PHONE),
}
WORDS = {  # what each language must say
    "en": {
        "clock": ("3 minutes each", "+2 seconds a move"),
        "option": "pit across is empty",
        "choose": "Choose a record file",
    },
    "ja": {
        "clock": ("各3分", "1手ごとに+2秒"),
        "option": "向かいの穴が空でも",
        "choose": "棋譜ファイルを選ぶ",
    },
}
# Tab to the skip link (the page's first stop), Enter to land in the name box, Tab to Start.
# Pressed on from the name box, Enter starts the game: a name and a game in five keys or so.
MOST_PRESSES = 3


@pytest.fixture(params=list(VIEWS))
def view(request, open_page):
    lang, size = VIEWS[request.param]
    page = open_page(lang=lang, viewport=size, is_mobile=size == PHONE, has_touch=size == PHONE)
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_selector("#quick .quick-pool[data-game='kalah']")
    return lang, page


def presses_to_start(page, limit=40):
    """Keys pressed from the page's load until Start has the focus: Tab, or Enter on a link
    within the page (a skip link)."""
    for n in range(1, limit + 1):
        href = page.evaluate("document.activeElement.getAttribute('href') || ''")
        page.keyboard.press("Enter" if href.startswith("#") else "Tab")
        if page.evaluate("document.activeElement.id") == "go":
            return n
    return limit + 1


def test_start_is_three_keys_away_and_its_bar_one_row(view):
    lang, page = view
    assert presses_to_start(page) <= MOST_PRESSES
    assert page.evaluate("document.activeElement.matches(':focus-visible')")
    bar = page.evaluate(
        """() => {
        const box = (s) => document.querySelector(s).getBoundingClientRect();
        const parts = ['.go-bar .name-line span', '#name', '#go'].map(box);
        return {height: box('.go-bar').height, bottom: box('.go-bar').bottom,
                top: Math.max(...parts.map((r) => r.top)),
                floor: Math.min(...parts.map((r) => r.bottom))};
    }"""
    )
    # One row: the label, the box and Start share a line (each starts above where the others
    # end), and the bar is Start's height and its padding (65 px measured; two rows were 117).
    assert bar["top"] < bar["floor"], bar
    assert bar["height"] <= 72, bar
    assert bar["bottom"] <= page.viewport_size["height"] + 0.5  # in view, at the bottom


def test_clocks_and_options_in_plain_words(view):
    lang, page = view
    words = WORDS[lang]
    quick = page.inner_text("#quick .quick-pool[data-game='kalah']")
    menu = page.eval_on_selector("#clock option[value='180000+2000']", "o => o.textContent")
    for text in (quick.replace("\xa0", " "), menu.replace("\xa0", " ")):  # no-break spaces
        assert "3+2" in text and all(w in text for w in words["clock"]), text
    label = page.inner_text("label[for='opt-empty_capture']")
    assert words["option"] in label and "K6" not in label, label
    # The rule number stays, as a link to where "How to play" explains the option.
    link = page.locator(".option:has(#opt-empty_capture) a.rule-ref")
    assert "K6" in link.inner_text()
    assert link.get_attribute("href").endswith("rules.html?game=kalah#kalah-options")


CONTRAST_JS = """els => {
  const rgba = (s) => {
    const p = s.match(/\\(([^)]+)\\)/)[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const colours = (s) => [...s.matchAll(/rgba?\\([^)]+\\)/g)].map((m) => rgba(m[0]));
  const channel = (c) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  const lum = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const ratio = (x, y) => (Math.max(lum(x), lum(y)) + 0.05) / (Math.min(lum(x), lum(y)) + 0.05);
  return els.map((el) => {
    const pit = el.closest('.pit');
    const [r, g, b, alpha] = rgba(getComputedStyle(el).color);
    let a = alpha;  // the text's own alpha times every opacity from it up to the pit
    for (let n = el; n; n = n.parentElement) {
      a *= Number(getComputedStyle(n).opacity);
      if (n === pit) break;
    }
    const style = getComputedStyle(pit);
    const grounds = [...colours(style.backgroundImage), ...colours(style.backgroundColor)]
      .filter((c) => c[3] > 0);  // every stop of the pit's gradient: the worst one counts
    const worst = Math.min(...grounds.map(([R, G, B]) =>
      ratio([r * a + R * (1 - a), g * a + G * (1 - a), b * a + B * (1 - a)], [R, G, B])));
    return [el.textContent, worst];
  });
}"""


def test_record_button_in_the_page_language_and_an_empty_pits_zero_readable(view):
    lang, page = view
    assert not page.is_visible("#record-file")  # the browser's button speaks its own language
    button = page.locator("#record-choose")
    assert WORDS[lang]["choose"] in button.inner_text()
    game = registry.load("kalah")
    record = records.dumps(game, ["a"]).encode()  # South's pit a is empty after it
    with page.expect_file_chooser() as chooser:
        button.click()
    chooser.value.set_files(
        files=[{"name": "kalah.json", "mimeType": "application/json", "buffer": record}]
    )
    page.wait_for_selector("#replay[data-count='2']")
    assert page.inner_text("#record-name") == "kalah.json"
    page.click("#replay .replay-next")
    page.wait_for_selector("#replay[data-index='1']")
    zeros = page.eval_on_selector_all("#replay .pit.empty .count", CONTRAST_JS)
    assert zeros and all(text == "0" for text, _ in zeros), zeros
    assert min(ratio for _, ratio in zeros) >= 4.5, zeros
