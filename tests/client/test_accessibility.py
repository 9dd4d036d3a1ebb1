"""Accessibility of the pages a player meets: axe-core finds nothing serious or critical on the
start page, a room in play, the rules pages and the analysis; on a phone every control is at
least 44 × 44 px (a radio or a checkbox with its label, which takes the tap too).

axe-core is vendored in tests/client/vendor/axe-core (its README says why and how to update);
it is injected into each page, so those pages' contexts bypass the site's CSP."""

from __future__ import annotations

from pathlib import Path

import pytest
from clientkit import (
    DESKTOP,
    PHONE,
    finish_local_game,
    open_analysis,
    play_move,
    start_game,
    wait_settled,
)

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
AXE_VERSION = "4.14.1"
GAMES = ["kalah", "oware", "bao-kiswahili", "bao-kujifunza", "bao-nakakamado-a"]


def axe_findings(page) -> list[str]:
    """axe-core's serious and critical findings on the page as it is now."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
        assert page.evaluate("axe.version") == AXE_VERSION
    violations = page.evaluate(
        """async () => (await axe.run(document, { resultTypes: ['violations'] })).violations
             .filter(v => v.impact === 'serious' || v.impact === 'critical')
             .map(v => `${v.id} (${v.impact}, ${v.nodes.length}×): ${v.nodes[0].html.slice(0, 120)}`)"""
    )
    return violations


# The controls on the page smaller than 44 × 44 px: buttons, links, fields, summaries and
# anything else in the tab order, a radio or checkbox measured with its label.
SMALL_CONTROLS = """() => {
  const out = [];
  const controls = 'a[href], button, input, select, summary, textarea, [tabindex]:not([tabindex="-1"])';
  for (const el of document.querySelectorAll(controls)) {
    if (!el.checkVisibility() || el.type === 'hidden') continue;
    const target = el.matches('input[type=radio], input[type=checkbox]') ? (el.closest('label') ?? el) : el;
    const r = target.getBoundingClientRect();
    if (r.width < 43.5 || r.height < 43.5) {
      const what = el.id || el.dataset.pit || el.dataset.move || el.className || el.textContent.trim().slice(0, 20);
      out.push(`${el.tagName.toLowerCase()} ${what}: ${Math.round(r.width)}×${Math.round(r.height)}`);
    }
  }
  return out;
}"""


def visit_every_view(page, check) -> list[str]:
    """`check(page)` on the start page, rooms in play, each game's rules page and a finished
    game's analysis and replay; returns what it found, each line naming its view."""
    found = {}
    page.goto("/")
    page.wait_for_selector("body[data-ready='1']")
    page.check("input[name=mode][value='computer']")
    found["start"] = check(page)
    # A friend room's host after a move with an extra turn (K5): the link to share, the history
    # and the moves as a list (play_move opened it).
    start_game(page, "kalah", {"seeds": 4}, mode="friend")
    play_move(page, "c")
    page.wait_for_selector("#move-buttons button")
    found["room"] = check(page)
    page.goto("/")
    start_game(page, "bao-kiswahili", mode="local")
    play_move(page, "A6L")
    wait_settled(page)
    found["bao room"] = check(page)
    for game in GAMES:
        page.goto(f"/static/rules.html?game={game}")
        page.wait_for_selector("body[data-ready='1']")
        found[f"rules {game}"] = check(page)
    page.goto("/")
    finish_local_game(page)
    open_analysis(page)
    found["analysis"] = check(page)
    page.click("#replay-btn")
    page.wait_for_selector("#replay[data-count]")
    found["replay"] = check(page)
    return [f"{view}: {problem}" for view, problems in found.items() for problem in problems]


@pytest.mark.parametrize(
    "lang,viewport", [("en", DESKTOP), ("ja", PHONE)], ids=["en-desktop", "ja-phone"]
)
def test_axe_finds_nothing_serious(open_page, lang, viewport):
    ctx = open_page.context(lang=lang, viewport=viewport, bypass_csp=True)
    page = open_page(ctx, path=None)
    found = visit_every_view(page, axe_findings)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_every_control_on_a_phone_is_at_least_44px(open_page, lang):
    page = open_page(viewport=PHONE, lang=lang, path=None)
    found = visit_every_view(page, lambda p: p.evaluate(SMALL_CONTROLS))
    assert not found, "\n".join(found)
