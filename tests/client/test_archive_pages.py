"""The archive's pages when there is little or nothing to show, on a desktop in English and on
a phone in Japanese (issue 48, items 5–7): a game's page says its result at the top, its
"Copied" goes back to "Copy the link", and "Close replay" brings the replay back to its start
instead of emptying the page; a player's page without a name or ratings says so in plain
words, and lists a game played on one device once; an empty leaderboard says why and fits the
phone; an address of nothing is a 404 page in the reader's language; /privacy raises no
archive alarm for a browser without a player, before or after deleting one."""

from __future__ import annotations

import httpx
import pytest
from archivekit import Player, local_game
from clientkit import PHONE
from playwright.sync_api import expect

VIEWS = {
    "en-desktop": ("en", {"width": 1280, "height": 800}, {}),
    "ja-phone": ("ja", PHONE, {"has_touch": True, "is_mobile": True}),
}
EMPTY_BOARD = "bao-nakakamado-a"  # a game no test plays ten rated games of


@pytest.fixture(scope="module")
def archived(server):
    """A named player with the game they played alone on one device, a player who never chose a
    name, and a player deleted."""
    named = Player(server.url, "Eshe")
    game_id = local_game(server, named)
    unnamed = Player(server.url)
    gone = Player(server.url, "Gone")
    assert gone.request("DELETE", "/api/me").status_code == 204
    plies = httpx.get(f"{server.url}/api/archive/{game_id}", timeout=10).json()["game"]["plies"]
    return {
        "named": named.id,
        "game": game_id,
        "plies": plies,
        "unnamed": unnamed.id,
        "gone": gone.id,
    }


@pytest.fixture(params=list(VIEWS))
def view(request, open_page):
    """A browser profile of the view's language and screen."""
    lang, viewport, extra = VIEWS[request.param]
    context = open_page.context(lang=lang, viewport=viewport, **extra)
    context.lang, context.width = lang, viewport["width"]
    return context


def words(page, key: str, **values) -> str:
    """The page's words for ``key`` in its language (client/strings-*.js)."""
    return page.evaluate(
        "([key, values]) => import('/static/i18n.js').then((m) => m.t(key, values))", [key, values]
    )


def fits(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_a_games_page_says_its_result_resets_copied_and_closes_back_to_its_start(
    open_page, view, archived
):
    view.grant_permissions(["clipboard-read", "clipboard-write"])
    page = open_page(view, path=f"/g/{archived['game']}")
    page.wait_for_selector("body[data-ready='1']")
    box = page.locator("#replay")
    result = page.locator("#game-result")
    said = result.inner_text()
    assert said and result.bounding_box()["y"] < box.bounding_box()["y"], "the result is on top"
    box.locator(".replay-last").click()
    page.wait_for_selector(f"#replay[data-index='{archived['plies']}']")
    assert box.locator(".result").inner_text() == said, "the words the last move says"

    copy = page.locator("#game-copy")
    idle = copy.inner_text()
    copy.click()
    expect(copy).to_have_text(words(page, "room.copied"))
    expect(copy).to_have_text(idle, timeout=6000)

    box.locator(".replay-close").click()
    page.wait_for_selector("#replay[data-index='0']:not([hidden]) .board")
    assert page.is_visible("#replay .replay-close") and result.inner_text() == said
    assert page.evaluate("document.activeElement.classList.contains('replay-first')")
    assert fits(page)


def test_a_players_page_says_what_it_lacks_and_lists_a_one_device_game_once(
    open_page, view, archived
):
    every_heading_says_something = """() => [...document.querySelectorAll('main section')].every(
        (s) => [...s.children].some((c) => c.tagName !== 'H2' && !c.hidden && c.innerText.trim()))"""
    page = open_page(view, path=f"/p/{archived['named']}")
    page.wait_for_selector("body[data-ready='1']")
    assert page.inner_text("#player-name") == "Eshe" and not page.is_visible("#player-unnamed")
    listed = page.locator("#player-games li")
    expect(listed).to_have_count(1)
    assert listed.get_attribute("data-game") == archived["game"]
    assert words(page, "player.oneDevice") in listed.inner_text()
    assert page.inner_text("#player-no-ratings") == words(page, "player.noRatings")
    assert page.evaluate(every_heading_says_something)

    page.goto(f"/p/{archived['unnamed']}")
    page.wait_for_selector("body[data-ready='1']")
    assert page.inner_text("#player-name") == words(page, "player.unnamed")
    assert page.inner_text("#player-unnamed") == words(page, "player.unnamedNote")
    assert page.evaluate(every_heading_says_something)
    assert fits(page)


def test_an_empty_leaderboard_says_why_and_fits_the_screen(open_page, view):
    page = open_page(view, path=f"/leaderboard/{EMPTY_BOARD}")
    assert page.request.get(f"/api/leaderboard/{EMPTY_BOARD}").json() == []
    empty = page.locator("#board-empty")
    expect(empty).to_be_visible()
    game = words(page, f"game.{EMPTY_BOARD}")
    assert page.inner_text("#board-empty-text") == words(page, "board.empty", game=game)
    rule = page.get_attribute("#board-rule", "href")
    assert rule == f"/fair-play#leaderboard-rule-{view.lang}"
    assert not page.is_visible("#board")
    assert fits(page), "no sideways scrolling"


def test_an_address_of_nothing_is_a_404_page_in_the_readers_language(open_page, view, archived):
    open_page.allow(r"status of 404")  # Chromium logs the page's own 404
    page = open_page(view, path=None)
    for path, title in (
        ("/g/nothing-here", "missing.game"),
        (f"/p/{archived['gone']}", "missing.player"),
    ):
        answer = page.goto(path)
        assert answer.status == 404, path
        page.wait_for_selector("body[data-ready='1']")
        assert page.evaluate("document.documentElement.lang") == view.lang
        assert page.inner_text("h1") == words(page, title)
        assert page.inner_text("#missing-why") == words(page, f"{title}Why")
        assert fits(page)


def test_privacy_raises_no_archive_alarm_without_a_player(open_page, view):
    page = open_page(view, path="/privacy")
    line = page.locator("#me .me-line")
    expect(line).to_have_text(words(page, "me.noPlayer"))  # a first visit: nobody yet
    article = page.inner_text(f"#privacy-{view.lang}")
    # Games outlive the player (server/archive/players.py delete_player); ratings do not.
    assert (
        "games are kept until" not in article and "対局は、プレイヤーを削除するまで" not in article
    )

    made = page.evaluate("fetch('/api/me', {method: 'POST'}).then((r) => r.status)")
    assert made == 201
    page.reload()
    page.wait_for_selector("#me[data-player]:not([data-player=''])")
    delete = page.locator("#me .me-delete")
    delete.click()
    delete.click()  # the second press confirms
    expect(page.locator("#me .me-note")).to_have_text(words(page, "me.deleted"))
    expect(line).to_have_text(words(page, "me.noPlayer"))
