"""The start page shows the lobby's bounded list and counts the rest, as the server sends them:
with 45 open seeks a page lists 40 and says how many more there are, per game, in English and
Japanese; a seek that goes makes room for one of the rest."""

from __future__ import annotations

import pytest
from serverproc import ServerProcess
from wsclient import Client


@pytest.fixture
def crowded(tmp_path, key_prefix):
    """A server of its own whose lobby holds 45 open Kalah seeks (all asking for North: none
    pairs), with their sockets."""
    server = ServerProcess(
        redis_url=None,
        data_dir=tmp_path / "crowded",
        env={"NYUMBA_KEY_PREFIX": key_prefix + "crowded:", "NYUMBA_SEEKS_PER_ADDRESS": "100"},
    ).start()
    seekers = []
    for i in range(45):
        c = Client(server.ws_url)
        c.send(t="seek", game="kalah", options={"seeds": 4}, side="north", name=f"P{i}")
        seekers.append((c, c.expect("seeking")["seek"]))
    yield server, seekers
    for c, _ in seekers:
        c.close()
    server.stop(kill=True)


def test_a_page_lists_40_seeks_and_counts_the_rest(open_page, crowded):
    server, seekers = crowded
    page = open_page(path=server.url + "/")
    page.wait_for_function("() => document.querySelectorAll('#seeks .seek').length === 40")
    page.wait_for_selector("#seeks-more:not([hidden])")
    assert page.inner_text("#seeks-more") == "And 5 more open seeks not listed here (Kalah 5)."
    assert page.is_hidden("#seeks-empty")
    for c, seek in seekers[:3]:  # three go: three of the rest take their places
        c.send(t="cancel", seek=seek)
        c.expect("seeking", status="cancelled")
    page.wait_for_function(
        "() => document.querySelector('#seeks-more').textContent.includes(' 2 ')"
    )
    assert page.locator("#seeks .seek").count() == 40
    ja = open_page(path=server.url + "/", lang="ja")
    ja.wait_for_selector("#seeks-more:not([hidden])")
    assert ja.inner_text("#seeks-more").startswith("ほかにも 2 件の募集があります")


def test_a_listed_seeks_clock_reads_as_the_server_labels_it(open_page, live_server):
    """A 4-second seek in the list reads "4s+0 (4 seconds each, …)", in the server's label; the
    page used to work it out itself as "0.0666…+0"."""
    seeker = Client(live_server.replace("http", "ws") + "/ws")
    try:
        clock = {"initial_ms": 4000, "increment_ms": 0}
        seeker.send(t="seek", game="kalah", clock=clock, side="north", name="Tiny")
        seek = seeker.expect("seeking")["seek"]
        page = open_page(path="/")
        row = page.locator(f"#seeks .seek[data-seek='{seek}']")
        row.wait_for()
        assert "4s+0 (4\u00a0seconds each" in row.inner_text(), row.inner_text()
        assert "0.0666" not in row.inner_text()
    finally:
        seeker.close()
