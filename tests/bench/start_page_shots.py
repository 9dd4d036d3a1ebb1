"""The start page's pictures kept in docs/screenshots/: an English desktop (1280 × 800) and a
Japanese phone (390 × 844), each as its first screen (what a stranger sees on arrival, the
sticky name/Start bar at the bottom) and as the whole page. Not run in CI.

    .venv/bin/python tests/bench/start_page_shots.py [OUT_DIR] [--base-url http://127.0.0.1:8000]

OUT_DIR defaults to docs/screenshots. Without --base-url it starts its own ``nyumba serve`` on
the embedded store in a temporary directory. Needs a Japanese font (see screenshots.py).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import uuid
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "client"), str(ROOT / "tests" / "bench")]

from clientkit import PHONE, launch  # noqa: E402
from screenshots import japanese_font  # noqa: E402
from serverproc import ServerProcess  # noqa: E402

VIEWS = {
    "en-desktop": ("en-US", {"width": 1280, "height": 800}),
    "ja-phone": ("ja-JP", PHONE),
}


def shoot(base_url: str, out: Path) -> list[Path]:
    written = []
    with sync_playwright() as pw:
        browser = launch(pw)
        for name, (locale, size) in VIEWS.items():
            ctx = browser.new_context(viewport=size, locale=locale, base_url=base_url)
            page = ctx.new_page()
            page.goto("/")
            page.wait_for_selector("body[data-ready='1']")
            page.wait_for_selector("#quick .quick-pool")
            path = out / f"start-page-{name}.png"
            page.screenshot(path=str(path))
            written.append(path)
            # The whole page in a window as tall as the page: the sticky bar sits where it
            # belongs (a full-page capture of the short window draws it mid-page).
            height = page.evaluate("document.documentElement.scrollHeight")
            page.set_viewport_size({"width": size["width"], "height": height})
            path = out / f"start-page-{name}-whole.png"
            page.screenshot(path=str(path))
            written.append(path)
            ctx.close()
        browser.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, nargs="?", default=ROOT / "docs" / "screenshots")
    parser.add_argument("--base-url", help="a running server (default: start one)")
    args = parser.parse_args(argv)
    missing = japanese_font()
    if missing:
        parser.exit(2, f"start_page_shots: {missing}\n")
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        server = None
        base_url = args.base_url
        if not base_url:
            env = {"NYUMBA_KEY_PREFIX": f"shots-{uuid.uuid4().hex[:8]}:"}
            server = ServerProcess(redis_url=None, data_dir=Path(tmp), env=env).start()
            base_url = server.url
        try:
            written = shoot(base_url, args.out)
        finally:
            if server is not None:
                server.stop()
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
