"""Pictures of a phone's room with clocks (390x844, a touch screen): at the start (English and
Japanese), mid-game with a pit selected ("tap again") and after a flag fell, as the first
screen shows them (no scrolling). Not run in CI; the pictures go to ``docs/screenshots/``.

    .venv/bin/python tests/bench/room_shots.py [OUT_DIR]   # default: docs/screenshots

It starts its own ``nyumba serve`` on the embedded store with a 20 s clock, plays a Kalah game
between the phone (South) and a desktop profile (North) through the UI, two moves a side, and
lets South's flag fall. Japanese needs a font (see ``tests/bench/screenshots.py``).
"""

from __future__ import annotations

import sys
import tempfile
import uuid
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "client"), str(ROOT / "tests" / "bench")]

from clientkit import DESKTOP, PHONE, attr, launch, start_game, wait_open, wait_settled  # noqa: E402
from screenshots import japanese_font  # noqa: E402
from serverproc import ServerProcess  # noqa: E402

CLOCK = "20000+0"


def play(phone, other) -> None:
    """Two moves a side (an extra turn lets a side move again): the phone taps a lit pit twice
    (select, then play), the other page clicks one."""
    made = {"phone": 0, "other": 0}
    while min(made.values()) < 2:
        wait_settled(phone)
        name, page = ("phone", phone) if attr(phone, "myturn") == "1" else ("other", other)
        page.wait_for_selector("#app[data-myturn='1']")
        wait_settled(page)
        before = attr(page, "version")
        pit = page.locator(".pit.lit").first
        if page is phone:
            pit.tap()
            page.wait_for_selector(".pit.armed")
        pit.tap() if page is phone else pit.click()
        page.wait_for_function(
            "v => document.querySelector('#app').dataset.version !== v", arg=before
        )
        for p in (phone, other):  # both pages at the new version before the next turn is read
            p.wait_for_function(
                "v => Number(document.querySelector('#app').dataset.version) > v", arg=int(before)
            )
        made[name] += 1


PARTS = {
    "board": ".board",
    "own store": "[data-pit='store0']",
    "clocks": "#clocks",
    "tap hint": "#tap-hint",
    "rematch": "#rematch",
}


def where(page) -> str:
    """Where the parts that must be on the first screen are (top-bottom, px), or "hidden"."""
    spans = []
    for name, sel in PARTS.items():
        box = page.locator(sel).first.bounding_box()
        spans.append(
            f"{name} {box['y']:.0f}-{box['y'] + box['height']:.0f}" if box else f"{name} hidden"
        )
    return ", ".join(spans)


def run(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    shots: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        env = {"NYUMBA_KEY_PREFIX": f"room-shots-{uuid.uuid4().hex[:6]}:"}
        server = ServerProcess(redis_url=None, data_dir=Path(tmp), env=env).start()
        browser = launch(pw)
        try:
            phone_ctx = browser.new_context(
                viewport=PHONE, has_touch=True, is_mobile=True, locale="en-US", base_url=server.url
            )
            phone = phone_ctx.new_page()
            phone.goto("/")
            url = start_game(phone, "kalah", {"seeds": 4}, mode="friend", clock=CLOCK)
            other = browser.new_context(viewport=DESKTOP, base_url=server.url).new_page()
            other.goto(url)
            wait_open(other)
            phone.wait_for_selector("#share-wait", state="hidden")
            wait_settled(phone)

            def shoot(name: str) -> None:
                path = out / f"room-clock-{name}-phone.png"
                phone.screenshot(path=str(path))  # the first screen only
                shots.append(path)
                print(name, where(phone), flush=True)

            shoot("start-en")
            phone.select_option("#lang", "ja")
            shoot("start-ja")
            play(phone, other)
            wait_settled(phone)
            phone.wait_for_selector("#app[data-myturn='1']")
            phone.locator(".pit.lit").first.tap()  # selected: "tap again to play"
            phone.wait_for_selector("#tap-hint:not([hidden])")
            shoot("mid-ja")
            phone.wait_for_selector("#app[data-over='1']", timeout=60_000)
            wait_settled(phone)
            shoot("flag-ja")
        finally:
            browser.close()
            server.stop()
    return shots


if __name__ == "__main__":
    if why := japanese_font():
        sys.exit(why)
    for shot in run(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots"):
        print(shot)
