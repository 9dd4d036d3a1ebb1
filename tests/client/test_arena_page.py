"""An arena in the browser (issue 50, "Must show": two contexts join an arena, are paired, play,
see the standings change, and see the final podium).

A server whose arenas may be short (``NYUMBA_ARENA_MIN_MS``), whose players may all create one
(``NYUMBA_ARENA_CREATOR_GAMES=0``) and whose pair never meets twice (a long
``NYUMBA_ARENA_REMATCH_MS``): Amani makes a 30-second arena starting in 12 s over HTTP from her
page and her form's second one is refused by the button; Amani and Eshe open /t/{id}, press
Join before it starts, are paired into one room once it starts; Amani goes berserk (her clock halved) before her first move; they make
two moves a side (an arena game with fewer is aborted and counts for nobody), and Eshe resigns.
A watcher's page, open all along, sees the game listed with its watch link, Amani's points go
from 0 to 3 (a win, and a point for her berserk) and Eshe's sheet get its 0 without a reload; when the
arena's time is up and its last game is over, every page shows the podium, and the arena's
page opened afresh is drawn from the archive.
"""

from __future__ import annotations

import re

import pytest
from clientkit import DESKTOP, PHONE, attr, moves_each, wait_open
from serverproc import make_server
from test_accessibility import SMALL_CONTROLS, axe_findings

ARENA_MS = 30_000
START_MS = 12_000  # the players join before it starts
ROOM = re.compile(r"/r/[A-Za-z0-9_-]+$")


@pytest.fixture(scope="module")
def live_server(tmp_path_factory, key_prefix):
    """This module's own server (the pages' fixtures take it by this name)."""
    srv = make_server(
        "embedded",
        tmp_path_factory.mktemp("arena-page"),
        key_prefix + "arena-page:",
        NYUMBA_ARENA_MIN_MS="10000",
        NYUMBA_ARENA_CREATOR_GAMES="0",
        NYUMBA_ARENA_REMATCH_MS="600000",
        NYUMBA_TICK_MS="300",
    )
    yield srv.url
    srv.stop()


def _player(open_page, name, **kw):
    ctx = open_page.context(**kw)
    ctx.add_init_script(f"localStorage.setItem('nyumba:name', '{name}')")
    return ctx


def _me(page) -> str:
    return page.evaluate("fetch('/api/me').then(r => r.json()).then(m => m.player)")


def _points(page, player) -> str | None:
    return page.get_attribute(f"#standings tr[data-player='{player}']", "data-points")


def test_two_players_join_play_see_the_standings_change_and_the_podium(open_page):
    amani_ctx = _player(open_page, "Amani")
    eshe_ctx = _player(open_page, "Eshe", viewport=PHONE, lang="ja")
    amani = open_page(amani_ctx, path="/arenas")
    amani.wait_for_selector("body[data-form='1']")  # her player is made
    made = amani.evaluate(
        """([start, ms]) => fetch('/api/arenas', {method: 'POST', headers: {'Content-Type': 'application/json'},
             body: JSON.stringify({name: 'Test arena', game: 'kalah', options: {},
               clock: {initial_ms: 60000, increment_ms: 0}, starts_in_ms: start, duration_ms: ms,
               rated: false, berserk: true})}).then(async r => [r.status, await r.json()])""",
        [START_MS, ARENA_MS],
    )
    assert made[0] == 201, made
    arena = made[1]["id"]
    # The form's refusal is said next to its button, by its code: one arena at a time.
    open_page.allow(r"status of 409")  # Chromium's own line for the refused request
    amani.click("#create-go")
    amani.wait_for_selector("#create-error:not([hidden])")
    assert "one at a time" in amani.inner_text("#create-error")

    watcher = open_page(path=f"/t/{arena}")
    watcher.wait_for_selector("#arena[data-status='upcoming']")
    assert watcher.inner_text("#arena-when").startswith("Starts in 0:")
    amani.goto(f"/t/{arena}")
    eshe = open_page(eshe_ctx, path=f"/t/{arena}")
    players = {}
    # They join before the start, and are paired once it starts.
    for page in (amani, eshe):
        page.wait_for_selector("#arena[data-status='upcoming'] #arena-join:not([hidden])")
        players[page] = _me(page)
        page.click("#arena-join")
        page.wait_for_selector("#arena[data-joined='in']")
    for page in (amani, eshe):
        page.wait_for_url(ROOM, timeout=START_MS + 20_000)
        wait_open(page)
    assert amani.url == eshe.url, "paired into one room"
    room = amani.url.rsplit("/", 1)[1]
    # An arena room: the way back to the arena, Berserk before one's first move, no rematch.
    for page in (amani, eshe):
        assert page.get_attribute("#arena-back", "href") == f"/t/{arena}"
        page.wait_for_selector("#berserk:not([hidden])")
    # Amani goes berserk: her clock is halved (the server's), her side marked; Eshe may still.
    side = int(attr(amani, "sides"))
    amani.click("#berserk")
    marks = ["0", "0"]
    marks[side] = "1"
    amani.wait_for_selector(f"#arena-line[data-berserk='{','.join(marks)}']")
    amani.wait_for_selector(f"#clocks .clock.berserked[data-side='{side}']")
    assert amani.is_hidden("#berserk")
    minutes, seconds = amani.inner_text(f"#clocks .clock[data-side='{side}'] .clock-time").split(
        ":"
    )
    assert int(minutes) * 60 + int(seconds) <= 30, "a 1+0 clock halved"
    assert eshe.is_visible("#berserk")
    # The watcher sees both joined at 0 points and the game being played, with a watch link.
    watcher.wait_for_selector(f"#playing li[data-room='{room}'] a[href='/r/{room}']")
    for player in players.values():
        watcher.wait_for_selector(f"#standings tr[data-player='{player}'][data-points='0']")

    moves_each([amani, eshe], 2)
    for page in (amani, eshe):
        assert page.is_hidden("#berserk"), "no berserk after one's first move"
    eshe.click("#resign")
    eshe.click("#resign")  # confirmed
    for page in (amani, eshe):
        page.wait_for_selector("#app[data-over='1']")
        assert page.is_hidden("#rematch")
        page.wait_for_selector("#arena-line[data-next='waiting']")  # asked for the next game

    # The standings change on the watcher's page, live: Amani won 2 and 1 for her berserk, Eshe's
    # sheet has a 0.
    watcher.wait_for_function(
        "p => document.querySelector(`#standings tr[data-player='${p}']`)?.dataset.points === '3'",
        arg=players[amani],
    )
    eshe_row = f"#standings tr[data-player='{players[eshe]}']"
    assert watcher.get_attribute(eshe_row, "data-points") == "0"
    assert watcher.inner_text(f"{eshe_row} .sheet").split() == ["0"]
    assert watcher.get_attribute("#standings tr[data-rank='1']", "data-player") == players[amani]
    watcher.wait_for_selector(f"#playing li[data-room='{room}']", state="detached")

    # Back on the arena's page: Eshe pauses (dimmed in the standings), Amani waits to the end.
    for page in (amani, eshe):
        page.click("#arena-back")
        page.wait_for_selector("#arena[data-joined='in']")
    assert _points(amani, players[amani]) == "3"
    eshe.click("#arena-join")
    eshe.wait_for_selector("#arena[data-joined='paused']")
    watcher.wait_for_selector(f"#standings tr.paused[data-player='{players[eshe]}']")

    # The end: every page shows the podium, Amani first.
    for page in (watcher, amani, eshe):
        page.wait_for_selector(
            "#arena[data-status='finished'] #podium-box:not([hidden])", timeout=ARENA_MS + 30_000
        )
        first = page.get_attribute("#podium li.place-1", "data-player")
        assert first == players[amani]
        assert page.is_hidden("#arena-action")
    assert "Amani" in watcher.inner_text("#podium")
    assert "表彰台" in eshe.inner_text("#podium-box")
    # The permanent page, from the archive.
    again = open_page(path=f"/t/{arena}")
    again.wait_for_selector("#arena[data-status='finished'] #podium li.place-1")
    assert again.get_attribute("#podium li.place-1", "data-player") == players[amani]
    assert _points(again, players[amani]) == "3"
    # The server says which games' points were doubled (none here: one game each); the page
    # marks just those, as the server's rows say.
    final = again.evaluate(f"fetch('/api/arenas/{arena}').then(r => r.json())")
    assert [(r["sheet"], r["doubled"]) for r in final["standings"]] == [
        ([3], [False]),
        ([0], [False]),
    ]
    assert again.locator("#standings .sheet .game.fire").count() == 0
    marked = again.evaluate(
        """() => import('/static/arenaview.js').then(({ standingsTable }) => {
          const row = { rank: 1, player: "x", name: "X", points: 8, fire: false, paused: false,
                        rating: null, sheet: [4, 2, 2, 0], doubled: [true, false, false, false] };
          const cells = standingsTable([row], null)[1].querySelectorAll(".sheet .game");
          return [...cells].map((c) => c.classList.contains("fire"));
        })"""
    )
    # (a first game is never on fire: the page follows the row, it does not work it out)
    assert marked == [True, False, False, False], "the server's doubled games, marked"
    assert again.get_attribute("#played li a", "href").startswith("/g/"), "its game's page"
    assert again.inner_text("#played li").endswith(("(0–3)", "(3–0)")), "each side's points"
    again.click("#played li a")  # the game's page leads back to the arena
    again.wait_for_selector(f"#game-arena:not([hidden]) a[href='/t/{arena}']")
    # The list of arenas has it among the finished, with its winner.
    again.goto("/arenas")
    done = again.wait_for_selector(f"#finished li[data-arena='{arena}']")
    assert "won by Amani" in done.inner_text()
    # An address that names no arena says so.
    open_page.allow(r"status of 404")
    nowhere = open_page(path="/t/no-such-arena")
    nowhere.wait_for_selector("text=No arena at this address")


@pytest.mark.parametrize("lang,viewport", [("en", DESKTOP), ("ja", PHONE)], ids=["en", "ja-phone"])
def test_the_arena_pages_are_accessible_and_thumb_sized(open_page, lang, viewport):
    """axe-core finds nothing serious on the list with its form, a running arena's page with
    standings and a game, and an arena room before its first move (Berserk showing); on a phone
    every control there is at least 44 px."""
    contexts = [
        _player(open_page, name, lang=lang, viewport=viewport, bypass_csp=True)
        for name in ("Baraka", "Zawadi")
    ]
    pages = [open_page(ctx, path="/arenas") for ctx in contexts]
    pages[0].wait_for_selector("body[data-form='1']")
    arena = pages[0].evaluate(
        """() => fetch('/api/arenas', {method: 'POST', headers: {'Content-Type': 'application/json'},
             body: JSON.stringify({game: 'oware', clock: {initial_ms: 180000, increment_ms: 2000},
               starts_in_ms: 0, duration_ms: 120000, berserk: true})}).then(r => r.json())"""
    )["id"]
    found = {"list": axe_findings(pages[0])}
    for page in pages:
        page.goto(f"/t/{arena}")
        page.wait_for_selector("#arena[data-status='running'] #arena-join:not([hidden])")
        page.click("#arena-join")
    for page in pages:
        page.wait_for_url(ROOM)
        wait_open(page)
    pages[0].wait_for_selector("#berserk:not([hidden])")
    found["room"] = axe_findings(pages[0])
    watcher = open_page(_player(open_page, "Imani", lang=lang, viewport=viewport, bypass_csp=True))
    watcher.goto(f"/t/{arena}")
    watcher.wait_for_selector("#playing li a")
    watcher.wait_for_selector("#standings tr[data-player]")
    found["arena"] = axe_findings(watcher)
    if viewport == PHONE:
        watcher.goto("/arenas")
        watcher.wait_for_selector("body[data-form='1']")
        for view, page in (("list", watcher), ("room", pages[0])):
            found[f"{view} 44px"] = page.evaluate(SMALL_CONTROLS)
        watcher.goto(f"/t/{arena}")
        watcher.wait_for_selector("#playing li a")
        found["arena 44px"] = watcher.evaluate(SMALL_CONTROLS)
    problems = [f"{view}: {p}" for view, ps in found.items() for p in ps]
    assert not problems, "\n".join(problems)
