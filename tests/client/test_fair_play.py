"""The Fair play page and the provisional mark, in Chromium: the start page links to
/fair-play, which reads in English and Japanese, arenas' rules too (and passes axe); a provisional rating is marked
"?" with its meaning in the page's language on a player's page and on a game's page, as the API
says (``provisional``, ``deviation_after``, ``last_ms``)."""

from __future__ import annotations

import time

import httpx
import msgspec
import pytest
from archivekit import won_by_south
from asynckit import run
from lobbykit import seek
from pgkit import sqlite_url
from serverproc import ServerProcess
from wsclient import Client

from server.archive import games
from server.archive.db import Database
from server.rooms.finished import record_text


@pytest.fixture(scope="module")
def archived(tmp_path_factory, key_prefix):
    """A server of this module's own, its archive a SQLite file the test writes a rated game
    into (as the server's archiving would): two newcomers, so both ratings are provisional."""
    tmp = tmp_path_factory.mktemp("fairplay")
    env = {"DATABASE_URL": sqlite_url(tmp), "NYUMBA_KEY_PREFIX": key_prefix + "fairplay:"}
    srv = ServerProcess(redis_url=None, data_dir=tmp, env=env).start()
    made = [httpx.post(srv.url + "/api/me", timeout=10) for _ in range(2)]
    (a, b), cookie = [r.json()["player"] for r in made], made[0].cookies["nyumba_player"]

    async def write() -> str:
        db = Database(sqlite_url(tmp))
        await db.start()
        entry = won_by_south("fair-play-room", a, b, int(time.time() * 1000) - 120_000)
        await games.write(db, entry, record_text(msgspec.msgpack.encode(entry)), entry.ended_ms)
        await db.close()
        return entry.id

    game_id = run(write())
    yield srv, a, cookie, game_id
    srv.stop()


def test_the_start_page_links_fair_play_which_reads_in_both_languages(open_page):
    from test_accessibility import axe_findings

    arenas = {  # the Arenas section: its heading and its rules' words
        "en": ("Arenas", ["a win 2, a draw 1", "two wins in a row", "halve your remaining time",
                          "gives nobody points", "60 seconds", "paused at once",
                          "exactly as a lobby game", "reached their points first"]),
        "ja": ("アリーナ", ["勝ち 2、引き分け 1", "2 連勝", "残り時間を半分", "誰にも得点を与えず",
                          "60 秒", "すぐに休憩", "ロビーの対局とまったく同じ", "先に達した順"]),
    }  # fmt: skip
    for lang, heading, words in (
        ("en", "What is rated", "under 80"),
        ("ja", "レーティング対局になるもの", "80 未満"),
    ):
        context = open_page.context(lang=lang, bypass_csp=True)
        start = open_page(context)
        start.click("#fairplay-link")
        start.wait_for_url("**/fair-play")
        start.wait_for_selector("body[data-ready='1']")
        article = f"#fairplay-{lang}"
        assert start.is_visible(article)
        assert heading in start.inner_text(article) and words in start.inner_text(article)
        title, rules = arenas[lang]
        section = start.inner_text(f"#arenas-{lang}") + start.inner_text(f"#arenas-{lang} ~ ul")
        assert section.startswith(title) and all(w in section for w in rules), section
        assert start.get_attribute(f"{article} a[href='/arenas']", "href") == "/arenas"
        assert start.title() == ("nyumba · Fair play" if lang == "en" else "nyumba · フェアプレー")
        assert axe_findings(start) == []


def test_a_provisional_rating_is_marked_in_the_api_and_on_the_pages(archived, open_page):
    srv, player, cookie, game_id = archived
    mine = httpx.get(f"{srv.url}/api/players/{player}", timeout=10).json()["ratings"][0]
    assert mine["provisional"] and mine["deviation"] > 110 and mine["last_ms"] > 0
    seat = httpx.get(f"{srv.url}/api/archive/{game_id}", timeout=10).json()["game"]["seats"][0]
    assert seat["provisional"] and seat["deviation_after"] == pytest.approx(mine["deviation"])
    shown = f"{round(mine['rating'])}?"
    for lang, meaning in (("en", "provisional"), ("ja", "暫定")):
        context = open_page.context(lang=lang)
        for path, where in (
            (f"/p/{player}", "#player-ratings"),
            (f"/g/{game_id}", "#game-players"),
        ):
            page = open_page(context, path=srv.url + path)
            mark = page.wait_for_selector(f"{where} .rating.provisional")
            assert mark.inner_text() == shown, path
            assert meaning in mark.get_attribute("title"), path


def test_a_provisional_rating_is_marked_on_the_lobbys_seek(archived, open_page):
    srv, player, cookie, _ = archived
    seeker = Client(srv.ws_url, headers={"cookie": f"nyumba_player={cookie}"})
    listed = seek(seeker, side="north", rated=True, clock={"initial_ms": 60_000, "increment_ms": 0})
    assert listed["status"] == "open"
    for lang, meaning in (("en", "provisional"), ("ja", "暫定")):
        page = open_page(open_page.context(lang=lang), path=srv.url + "/")
        mark = page.wait_for_selector("#seeks .seek .rating.provisional")
        assert mark.inner_text().endswith("?") and meaning in mark.get_attribute("title")
    seeker.close()
