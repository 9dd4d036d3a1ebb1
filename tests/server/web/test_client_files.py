"""The client's files are sent compressed, under names that change with their content, and
cached for a year; the pages, asked about every time, name the current ones
(server/web/static.py)."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import httpx
import pytest
from serverproc import ServerProcess

CLIENT = Path(__file__).resolve().parents[3] / "client"
REFERENCE = re.compile(r"""["'](/static/[^"'?]+)""")


@pytest.fixture
def client_server(tmp_path, key_prefix):
    """A server on its own copy of the client, which a test may edit."""
    client = tmp_path / "client"
    shutil.copytree(CLIENT, client)
    env = {"NYUMBA_KEY_PREFIX": key_prefix + "files:", "NYUMBA_CLIENT_DIR": str(client)}
    srv = ServerProcess(redis_url=None, data_dir=tmp_path / "srv", env=env).start()
    yield srv, client
    srv.stop()


def _references(html: str) -> list[str]:
    return [r for r in REFERENCE.findall(html) if not r.endswith(".html")]


def test_pages_name_versioned_files_that_are_cached_for_a_year_and_gzipped(client_server):
    srv, client = client_server
    versions = set()
    for page in ("/", "/r/some-room", "/static/rules.html"):
        r = httpx.get(srv.url + page)
        assert r.status_code == 200 and r.headers["cache-control"] == "no-cache"
        refs = _references(r.text)
        assert refs, page
        for ref in refs:
            match = re.fullmatch(r"/static/v/([0-9a-f]{12})/([\w.-]+)", ref)
            assert match, f"{page} names {ref} without a version"
            versions.add(match[1])
    assert len(versions) == 1
    version = versions.pop()
    for name in ("app.js", "board.js", "style.css"):
        r = httpx.get(f"{srv.url}/static/v/{version}/{name}", headers={"accept-encoding": "gzip"})
        assert r.status_code == 200
        assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert (
            r.headers["content-encoding"] == "gzip"
            and "accept-encoding" in r.headers["vary"].lower()
        )
        assert r.content == (client / name).read_bytes()  # httpx decompressed it
        assert int(r.headers["content-length"]) < 0.5 * len(r.content)
    # Unversioned (old links) and other versions (a page of another release) are the
    # current files, asked about again each time.
    for path in ("/static/app.js", "/static/v/000000000000/app.js"):
        r = httpx.get(srv.url + path)
        assert r.status_code == 200 and r.headers["cache-control"] == "no-cache"
        again = httpx.get(srv.url + path, headers={"if-none-match": r.headers["etag"]})
        assert again.status_code == 304
    assert httpx.get(srv.url + "/api/games").headers["cache-control"] == "no-store"


def test_a_changed_file_changes_the_version_the_pages_name(client_server):
    srv, client = client_server
    before = _references(httpx.get(srv.url + "/").text)
    with (client / "dom.js").open("a") as f:
        f.write("\n// a release\n")
    time.sleep(1.2)  # the files are looked at at most once a second
    after = _references(httpx.get(srv.url + "/").text)
    assert before != after and len(before) == len(after)
    new = next(ref for ref in after if ref.endswith("/start.js"))
    r = httpx.get(srv.url + new.replace("start.js", "dom.js"))
    assert r.headers["cache-control"].endswith("immutable")
    assert r.text.endswith("// a release\n")
