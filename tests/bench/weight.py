"""What a page load weighs: Chromium opens the start page and a room (cold, then again in the
same browser), and a per-file table of the client compressed several ways; prints, asserts
nothing.

    python tests/bench/weight.py [--root CHECKOUT]

``--root`` measures another checkout's server (e.g. /work/main, to compare). Per page:
requests the browser made, bytes it received (bodies as sent: compressed when they were) and
the bodies' own size, requests the server saw on the second visit (the server's access log:
revalidations count), whether ``/api/protocol.json`` was asked for, and the longest and
shortest freshness (``Cache-Control: max-age``) of the files it loaded: past that, each is
asked about again. The table: every client file raw, gzip 6 (what the server sends), gzip 9
and brotli 11 (when the ``brotli`` package is installed; it is not a dependency).
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "client")]
from clientkit import DESKTOP, launch  # noqa: E402
from serverproc import ServerProcess  # noqa: E402
from wsclient import create_room  # noqa: E402


def _requests_seen(server: ServerProcess, since: int) -> list[str]:
    lines = server.log_path.read_text().splitlines()[since:]
    return [line for line in lines if '"GET ' in line or '"POST ' in line]


def visit(browser, server: ServerProcess, path: str) -> dict:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    got: list = []
    page.on("requestfinished", lambda request: got.append(request))
    page.goto(server.url + path)
    page.wait_for_load_state("networkidle")
    sent = received = 0
    ages = []
    for request in got:
        response = request.response()
        sizes = request.sizes()
        sent += sizes["responseBodySize"]
        received += len(response.body()) if response else 0
        control = response.headers.get("cache-control", "") if response else ""
        if "/static/" in request.url and (age := re.search(r"max-age=(\d+)", control)):
            ages.append(int(age[1]))
        elif "/static/" in request.url:
            ages.append(0)
    schema = any("/api/protocol.json" in r.url for r in got)
    before = len(server.log_path.read_text().splitlines())
    page.goto(server.url + path)  # the second visit, in the same browser
    page.wait_for_load_state("networkidle")
    again = _requests_seen(server, before)
    context.close()
    return {
        "requests": len(got),
        "sent": sent,
        "raw": received,
        "again": len(again),
        "schema": schema,
        "fresh": (min(ages, default=0), max(ages, default=0)),
    }


def table() -> None:
    try:
        import brotli
    except ImportError:
        brotli = None
    total = [0, 0, 0, 0]
    for path in sorted((ROOT / "client").iterdir()):
        if path.suffix not in (".js", ".css", ".html"):
            continue
        data = path.read_bytes()
        sizes = [len(data), len(gzip.compress(data, 6)), len(gzip.compress(data, 9))]
        sizes.append(len(brotli.compress(data, quality=11)) if brotli else 0)
        total = [t + s for t, s in zip(total, sizes)]
    names = ("raw", "gzip 6", "gzip 9", "brotli 11")
    print("client files: " + ", ".join(f"{n} {s / 1000:.1f} KB" for n, s in zip(names, total)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT)
    args = parser.parse_args()
    table()
    with tempfile.TemporaryDirectory() as tmp:
        env = {"NYUMBA_ACCESS_LOG": "true"}
        server = ServerProcess(redis_url=None, data_dir=Path(tmp), root=args.root, env=env)
        server.start()
        try:
            room = create_room(server.url, "kalah", mode="computer")["room"]
            with sync_playwright() as pw:
                browser = launch(pw)
                for name, path in (("start page", "/"), ("room", f"/r/{room}")):
                    v = visit(browser, server, path)
                    print(
                        f"{name}: {v['requests']} requests, {v['sent'] / 1000:.1f} KB received "
                        f"({v['raw'] / 1000:.1f} KB of bodies); second visit: {v['again']} "
                        f"requests reach the server; files fresh for {v['fresh'][0]}-"
                        f"{v['fresh'][1]} s; /api/protocol.json fetched: {v['schema']}"
                    )
                browser.close()
        finally:
            server.stop()


if __name__ == "__main__":
    main()
