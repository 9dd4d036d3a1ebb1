"""Screenshots of every game's board at the start, mid-game and at the end, in English and
Japanese, at desktop and phone width (phones get the board turned), written as PNGs into a
folder; also the move history panel looking at a past ply (during and after the game), pits of
ten seeds and more, the "tap to select" step, the analysis of a finished game (Kalah and Oware)
and every game's "How to play" page.

    .venv/bin/python tests/bench/screenshots.py OUT_DIR [--base-url http://127.0.0.1:8000]
        [--games kalah,oware]

Without --base-url it starts its own ``nyumba serve`` (on REDIS_URL if set, with a private key
prefix; otherwise on the embedded store in a temporary directory) and stops it afterwards.
Games are played through the UI in local mode, choosing lit pits and choices with a seeded
random generator, so the pictures are the same from run to run (for the same engines).

Japanese text needs a Japanese font on the machine, or the ja pictures show empty boxes: the
script refuses to start without one (``fc-list :lang=ja``). CI installs fonts-ipafont-gothic
(.ci/apt-packages); elsewhere ``apt-get install fonts-ipafont-gothic`` (or fonts-noto-cjk).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import httpx
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "client")]

from clientkit import DESKTOP, PHONE, attr, launch, play_first, start_game, wait_settled  # noqa: E402
from serverproc import ServerProcess  # noqa: E402

MID_PLY = 12
SIZES = {"desktop": DESKTOP, "phone": PHONE}
OPTIONS = {"kalah": {"seeds": 4}}
ANALYSED = ("kalah", "oware")  # the analysis of a whole Bao game takes minutes
# Moves that pile ten seeds and more into pits (as in tests/client/test_phone.py).
PILES = {
    "kalah": ({"seeds": 6}, ["b", "F", "b", "E", "a"]),
    "bao-kiswahili": ({}, ["A6L", "a6R", "A4R", "a6R", "A5R"]),
}


def japanese_font() -> str | None:
    """Why Japanese cannot be drawn here, or None when a Japanese font is installed."""
    if not shutil.which("fc-list"):
        return "fc-list (fontconfig) is missing, so no font can be found"
    found = subprocess.run(["fc-list", ":lang=ja", "family"], capture_output=True, text=True)
    if not found.stdout.strip():
        return (
            "no Japanese font is installed: apt-get install fonts-ipafont-gothic (.ci/apt-packages)"
        )
    return None


def shoot(page, out: Path, stem: str) -> list[Path]:
    """The page in both languages at both widths."""
    written = []
    for lang in ("en", "ja"):
        page.select_option("#lang", lang)
        for size_name, size in SIZES.items():
            page.set_viewport_size(size)
            page.wait_for_timeout(50)
            path = out / f"{stem}-{lang}-{size_name}.png"
            page.screenshot(path=str(path), full_page=True)
            written.append(path)
    page.select_option("#lang", "en")
    page.set_viewport_size(DESKTOP)
    return written


def shoot_rules(page, out: Path) -> list[Path]:
    """Every game's "How to play" page, in both languages at both widths."""
    written = []
    for game in ("kalah", "oware", "bao-kiswahili", "bao-kujifunza", "bao-nakakamado-a"):
        page.goto(f"/static/rules.html?game={game}")
        page.wait_for_selector("body[data-ready='1']")
        written += shoot(page, out, f"rules-{game}")
    return written


def shoot_tap(browser, base_url: str, out: Path) -> list[Path]:
    """A phone with a touch screen: a pit selected by the first tap, waiting for the second."""
    written = []
    for lang in ("en", "ja"):
        ctx = browser.new_context(
            viewport=PHONE,
            base_url=base_url,
            locale="ja-JP" if lang == "ja" else "en-US",
            has_touch=True,
            is_mobile=True,
        )
        ctx.add_init_script("localStorage.setItem('nyumba:speed', 'off')")
        page = ctx.new_page()
        page.goto("/")
        start_game(page, "kalah", {"seeds": 4}, mode="computer", level="beginner")
        wait_settled(page)
        page.tap("[data-pit='c']")
        page.wait_for_selector("[data-pit='c'].armed")
        path = out / f"tap-to-play-{lang}-phone.png"
        page.screenshot(path=str(path))
        written.append(path)
        ctx.close()
    return written


def shoot_piles(page, out: Path) -> list[Path]:
    """Pits of ten seeds and more, their counts clear of their names."""
    written = []
    for game, (options, moves) in PILES.items():
        page.goto("/")
        start_game(page, game, options, mode="local")
        for move in moves:
            wait_settled(page)
            if not page.is_visible("#move-buttons"):
                page.click("#move-list summary")
            before = attr(page, "version")
            page.click(f"#move-buttons button[data-move='{move}']")
            page.wait_for_function(
                "v => document.querySelector('#app').dataset.version !== v", arg=before
            )
        wait_settled(page)
        page.click("#move-list summary")  # closed again
        written += shoot(page, out, f"{game}-piles")
    return written


def play_one(page, pick) -> None:
    before = attr(page, "version")
    play_first(page, pick)
    page.wait_for_function(
        "v => { const a = document.querySelector('#app'); return a.dataset.version !== v || a.dataset.over === '1'; }",
        arg=before,
    )
    wait_settled(page)


def run(out: Path, base_url: str, only: list[str] | None = None) -> list[Path]:
    games = [g["name"] for g in httpx.get(base_url + "/api/games").json()]
    games = [g for g in games if not only or g in only]
    replay = httpx.post(base_url + "/api/replay", json={}).status_code not in (404, 405)
    written: list[Path] = []
    with sync_playwright() as pw:
        browser = launch(pw)
        ctx = browser.new_context(viewport=DESKTOP, base_url=base_url, locale="en-US")
        ctx.add_init_script("localStorage.setItem('nyumba:speed', 'off')")
        page = ctx.new_page()
        page.goto("/")
        page.wait_for_selector("body[data-ready='1']")
        written += shoot(page, out, "start-page")
        start_game(page, "kalah", mode="friend")  # the host waiting, with the link to share
        wait_settled(page)
        written += shoot(page, out, "friend-waiting")
        written += shoot_rules(page, out)
        written += shoot_tap(browser, base_url, out)
        written += shoot_piles(page, out)
        for game in games:
            page.goto("/")
            start_game(page, game, OPTIONS.get(game), mode="local")
            wait_settled(page)
            pick = random.Random(game)
            written += shoot(page, out, f"{game}-1-start")
            for _ in range(MID_PLY):
                if attr(page, "over") == "1":
                    break
                play_one(page, pick)
            # Mid-game, with the choice step open when the first lit pit has several moves.
            if attr(page, "over") != "1" and page.locator(".pit.lit").count():
                page.locator(".pit.lit").first.click()
            written += shoot(page, out, f"{game}-2-mid")
            if page.is_visible("#choices"):
                page.click("#choice-cancel")
            # The history panel, looking at the position after the second ply.
            if page.locator("#history button.ply[data-ply='2']").count():
                page.click("#history button.ply[data-ply='2']")
                page.wait_for_selector("#viewing:not([hidden])")
                written += shoot(page, out, f"{game}-2-history")
                page.click("#live")
            plies = 0
            while attr(page, "over") != "1" and plies < 1000:
                play_one(page, pick)
                plies += 1
            written += shoot(page, out, f"{game}-3-end")
            # Looking back once the game is over (nothing goes on meanwhile).
            if page.locator("#history button.ply[data-ply='2']").count():
                page.click("#history button.ply[data-ply='2']")
                page.wait_for_selector("#viewing:not([hidden])")
                written += shoot(page, out, f"{game}-3-end-history")
                page.click("#live")
            if replay and page.is_visible("#replay-btn"):
                page.click("#replay-btn")
                page.wait_for_selector("#replay[data-count]")
                page.locator("#replay .replay-next").click()
                written += shoot(page, out, f"{game}-4-replay")
            if game in ANALYSED and page.is_visible("#analyse-btn"):
                page.click("#analyse-btn")
                page.wait_for_selector("#analysis[data-state='done']", timeout=600_000)
                written += shoot(page, out, f"{game}-5-analysis")
        browser.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder for the PNG files")
    parser.add_argument("--base-url", help="a running server (default: start one)")
    parser.add_argument("--games", help="only these games (comma-separated profile names)")
    args = parser.parse_args(argv)
    missing = japanese_font()
    if missing:
        parser.exit(2, f"screenshots: {missing}\n")
    args.out.mkdir(parents=True, exist_ok=True)
    server = None
    with tempfile.TemporaryDirectory() as tmp:
        base_url = args.base_url
        if not base_url:
            server = ServerProcess(
                redis_url=os.environ.get("REDIS_URL"),
                data_dir=Path(tmp),
                # one socket plays both sides of every game, faster than a person would
                env={
                    "NYUMBA_KEY_PREFIX": f"shots-{uuid.uuid4().hex[:8]}:",
                    "NYUMBA_RATE_MESSAGES": "100000",
                },
            ).start()
            base_url = server.url
        try:
            written = run(args.out, base_url, args.games.split(",") if args.games else None)
        finally:
            if server is not None:
                server.stop()
    print(f"{len(written)} screenshots in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
