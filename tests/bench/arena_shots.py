"""An arena's page in docs/screenshots/: an English desktop (1280 × 800) and a Japanese phone
(390 × 844), the whole page, while the arena runs. Not run in CI.

    .venv/bin/python tests/bench/arena_shots.py [OUT_DIR]

OUT_DIR defaults to docs/screenshots. It starts its own ``nyumba serve`` (embedded store, a
temporary directory, arenas as short as 10 s, anyone may create one, no pair meets twice) and
plays through the browser: four players join a five-minute arena, are paired, make two moves a
side and one of each pair resigns; their room pages are paired again by themselves; twice,
then a third round is left playing,
so the standings have sheets, a player on fire may show, and games are in progress. Two
watchers' pages are then taken. Also ``arena-room-ja-phone.png``: a Japanese phone's arena room
before the first move (the way back to the arena, Berserk). Needs a Japanese font (see
screenshots.py).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import uuid
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "client"), str(ROOT / "tests" / "bench")]

from clientkit import DESKTOP, PHONE, launch, moves_each, wait_open  # noqa: E402
from screenshots import japanese_font  # noqa: E402
from serverproc import ServerProcess  # noqa: E402

NAMES = ["Amani", "Eshe", "Juma", "Neema"]
VIEWS = {"en-desktop": ("en-US", {"width": 1280, "height": 800}), "ja-phone": ("ja-JP", PHONE)}
ROOM = re.compile(r"/r/[A-Za-z0-9_-]+$")
PLAYED: set[str] = set()  # the rooms played so far: a page waits for a new one


def _context(browser, base_url, name=None, locale="en-US", size=DESKTOP):
    ctx = browser.new_context(viewport=size, locale=locale, base_url=base_url)
    ctx.add_init_script("localStorage.setItem('nyumba:speed', 'off')")
    if name:
        ctx.add_init_script(f"localStorage.setItem('nyumba:name', '{name}')")
    return ctx


def _round(pages, finish=True, before=None):
    """Every page waits to be paired (a room other than the one it is in: a room page whose
    game is over asks the arena for the next); each pair plays two moves a side; in each game
    the side listed later in ``pages`` resigns (unless ``finish`` is false). ``before(page)``:
    called in each room before the first move."""
    for page in pages:
        page.wait_for_url(lambda url: bool(ROOM.search(url)) and url not in PLAYED, timeout=30_000)
        wait_open(page)
    rooms: dict[str, list] = {}
    for page in pages:
        rooms.setdefault(page.url, []).append(page)
    PLAYED.update(rooms)
    for pair in rooms.values():
        if before:
            for page in pair:
                before(page)
        if not finish:
            continue
        moves_each(pair, 2)
        loser = pair[1]
        loser.click("#resign")
        loser.click("#resign")  # confirmed; both pages then wait for their next game
    return rooms


def shoot(base_url: str, out: Path) -> list[Path]:
    written = []
    with sync_playwright() as pw:
        browser = launch(pw)
        players = []
        for i, name in enumerate(NAMES):
            locale, size = ("ja-JP", PHONE) if i == 3 else ("en-US", DESKTOP)
            players.append(_context(browser, base_url, name, locale, size).new_page())
        first = players[0]
        first.goto("/arenas")
        first.wait_for_selector("body[data-form='1']")
        arena = first.evaluate(
            """() => fetch('/api/arenas', {method: 'POST', headers: {'Content-Type': 'application/json'},
                 body: JSON.stringify({name: 'Kalah evening arena', game: 'kalah', options: {},
                   clock: {initial_ms: 180000, increment_ms: 2000}, starts_in_ms: 0,
                   duration_ms: 300000, rated: true, berserk: true})}).then(r => r.json())"""
        )["id"]
        for page in players:
            page.goto(f"/t/{arena}")
            page.wait_for_selector("#arena[data-status='running'] #arena-join:not([hidden])")
            page.click("#arena-join")
        _round(players)
        _round(players)

        def room_shot(page):
            if page is players[3]:
                page.wait_for_selector("#berserk:not([hidden])")
                path = out / "arena-room-ja-phone.png"
                page.screenshot(path=str(path))
                written.append(path)

        _round(players, finish=False, before=room_shot)
        for name, (locale, size) in VIEWS.items():
            ctx = _context(browser, base_url, locale=locale, size=size)
            page = ctx.new_page()
            page.goto(f"/t/{arena}")
            page.wait_for_selector("#playing li")
            page.wait_for_selector("#standings tr[data-player]")
            height = page.evaluate("document.documentElement.scrollHeight")
            page.set_viewport_size({"width": size["width"], "height": max(height, size["height"])})
            path = out / f"arena-{name}.png"
            page.screenshot(path=str(path))
            written.append(path)
            ctx.close()
        browser.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, nargs="?", default=ROOT / "docs" / "screenshots")
    args = parser.parse_args(argv)
    missing = japanese_font()
    if missing:
        parser.exit(2, f"arena_shots: {missing}\n")
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            "NYUMBA_KEY_PREFIX": f"shots-{uuid.uuid4().hex[:8]}:",
            "NYUMBA_ARENA_MIN_MS": "10000",
            "NYUMBA_ARENA_CREATOR_GAMES": "0",
            "NYUMBA_ARENA_REMATCH_MS": "3600000",
        }
        server = ServerProcess(redis_url=None, data_dir=Path(tmp), env=env).start()
        try:
            written = shoot(server.url, args.out)
        finally:
            server.stop()
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
