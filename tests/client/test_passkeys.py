"""Passkeys in the browser, with Chromium's virtual authenticator (the DevTools protocol's
WebAuthn domain): a player adds a passkey, signs in with it in a fresh browser profile, and
finds the same player and the same games there; a new player does the same in English and in
Japanese at the address ``nyumba serve`` prints (http://localhost:PORT/, the server's default
public URL), and the browser's and the server's refusals are said in the page's language.

WebAuthn asks for a secure context and a domain as its relying party, never an IP address:
the pages are opened at http://localhost (a secure context) rather than 127.0.0.1."""

from __future__ import annotations

import re
import time

import pytest
from clientkit import DESKTOP, authenticator, start_game, wait_open

WORDS = {  # client/strings-en.js and strings-ja.js, as the player reads them
    "en": {
        "added": "Passkey added: sign in with it on any device.",
        "signedIn": "Signed in: this browser now plays as that player.",
        "keys": "Passkeys: 1.",
        "wrongAddress": "Passkeys work only at {url}, not at {here}: open nyumba there.",
        "notAllowed": "No passkey was used: the request was cancelled or timed out, or this "
        "device has no passkey for this site.",
    },
    "ja": {
        "added": "パスキーを追加しました。どの端末でもこれでサインインできます。",
        "signedIn": "サインインしました。このブラウザはそのプレイヤーとしてプレイします。",
        "keys": "パスキー：1 個。",
        "wrongAddress": "パスキーは {here} ではなく {url} でだけ使えます。"
        "そちらで nyumba を開いてください。",
        "notAllowed": "パスキーは使われませんでした。取り消されたか時間切れになったか、"
        "この端末にこのサイトのパスキーがありません。",
    },
}


def player_of(page) -> str:
    page.wait_for_selector("#me[data-player]:not([data-player=''])")
    return page.get_attribute("#me", "data-player")


def test_a_passkey_carries_the_player_and_their_games_to_a_fresh_browser(browser, live_server):
    base = live_server.replace("127.0.0.1", "localhost")
    first = browser.new_context(base_url=base, viewport=DESKTOP, locale="en-US")
    page = first.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    cdp, auth = authenticator(first, page)

    # A first visit: an anonymous player, named, who plays a game against the computer.
    page.goto("/")
    page.fill("#name", "Zawadi")
    page.dispatch_event("#name", "change")
    me = player_of(page)
    page.wait_for_selector("#me .me-line:has-text('Zawadi')")
    start_game(page, "kalah", mode="computer")
    wait_open(page)
    page.click("#resign")
    page.click("#resign")
    page.wait_for_selector("#game-link:not([hidden])")
    game_page = page.get_attribute("#game-link", "href")
    game_id = game_page.rsplit("/", 1)[-1]
    # The archive writes the game just after its end (asynchronously): the player's page lists it
    # once its own page answers.
    deadline = time.monotonic() + 20
    while page.request.get(game_page).status != 200:
        assert time.monotonic() < deadline, "the game never reached the archive"
        page.wait_for_timeout(100)

    # The passkey.
    page.goto("/")
    assert player_of(page) == me
    page.click("#me .passkey-add")
    page.wait_for_selector("#me .me-note:has-text('Passkey added')")
    assert "Passkeys: 1" in page.inner_text("#me .me-keys")
    keys = cdp.send("WebAuthn.getCredentials", {"authenticatorId": auth})["credentials"]
    assert len(keys) == 1 and keys[0]["isResidentCredential"] and keys[0]["rpId"] == "localhost"

    # Another browser: nothing shared but the passkey (as a synced passkey, or a security key
    # carried over, would be).
    second = browser.new_context(base_url=base, viewport=DESKTOP, locale="en-US")
    other = second.new_page()
    other.on("pageerror", lambda e: problems.append(str(e)))
    cdp2, auth2 = authenticator(second, other)
    cdp2.send("WebAuthn.addCredential", {"authenticatorId": auth2, "credential": keys[0]})
    other.goto("/")
    stranger = player_of(other)
    assert stranger != me  # a first visit of its own: another anonymous player
    other.click("#me .passkey-signin")
    other.wait_for_selector("#me .me-note:has-text('Signed in')")
    assert player_of(other) == me
    assert "Zawadi" in other.inner_text("#me .me-line")

    # The same player's page and games, from the second browser.
    other.click("#me a.me-games")
    other.wait_for_selector("body[data-ready='1']")
    assert other.inner_text("#player-name") == "Zawadi"
    assert other.locator(f"#player-games li[data-game='{game_id}']").count() == 1
    other.click(f"#player-games li[data-game='{game_id}'] a.game-link")
    other.wait_for_selector("body[data-ready='1']")
    assert re.search(r"/g/" + re.escape(game_id) + "$", other.url)
    assert "Zawadi" in other.inner_text("#game-players")
    other.wait_for_selector(".replay-history")  # the replay with its move history

    # A new session reaches the socket too: a room made now has its seat linked to the player.
    other.goto("/")
    start_game(other, "kalah", mode="computer")
    other.wait_for_selector(f"#seats li[data-side='0'] a[href='/p/{me}']")
    first.close()
    second.close()
    assert not problems


def note_of(page) -> str:
    page.wait_for_selector("#me .me-note:not([hidden])")
    return page.inner_text("#me .me-note")


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_new_player_at_the_printed_address_adds_a_passkey_and_signs_in_elsewhere(
    browser, live_server, lang, tmp_path
):
    """The newcomer's path: open the address the server prints, add a passkey, then sign in
    with it in a fresh browser — in the page's language, with the refusals said in it too."""
    port = live_server.rsplit(":", 1)[1]
    base = f"http://localhost:{port}"  # what `nyumba serve` prints, and its default public URL
    words = WORDS[lang]
    locale = "ja-JP" if lang == "ja" else "en-US"
    problems: list[str] = []

    def context():
        ctx = browser.new_context(base_url=base, viewport=DESKTOP, locale=locale)
        page = ctx.new_page()
        page.on("pageerror", lambda e: problems.append(str(e)))
        return ctx, page

    # At 127.0.0.1 the server refuses to start a ceremony, and says where passkeys work.
    ip_ctx = browser.new_context(base_url=live_server, viewport=DESKTOP, locale=locale)
    ip_page = ip_ctx.new_page()
    ip_page.goto("/")
    player_of(ip_page)
    ip_page.click("#me .passkey-add")
    assert note_of(ip_page) == words["wrongAddress"].format(
        url=f"{base}/", here=f"127.0.0.1:{port}"
    )
    ip_ctx.close()

    first, page = context()
    cdp, auth = authenticator(first, page)
    page.goto("/")
    me = player_of(page)
    page.fill("#name", "Zawadi")
    page.dispatch_event("#name", "change")
    page.wait_for_selector("#me .me-line:has-text('Zawadi')")
    page.click("#me .passkey-add")
    assert note_of(page) == words["added"]
    assert page.inner_text("#me .me-keys").startswith(words["keys"])
    (key,) = cdp.send("WebAuthn.getCredentials", {"authenticatorId": auth})["credentials"]
    assert key["rpId"] == "localhost"

    # A fresh browser whose authenticator has no passkey yet: the browser refuses, in words.
    second, other = context()
    cdp2, auth2 = authenticator(second, other)
    other.goto("/")
    assert player_of(other) != me
    other.click("#me .passkey-signin")
    assert note_of(other) == words["notAllowed"]

    # The passkey carried over (as a synced passkey would be): the same player.
    cdp2.send("WebAuthn.addCredential", {"authenticatorId": auth2, "credential": key})
    other.click("#me .passkey-signin")
    other.wait_for_selector(f"#me .me-note:has-text('{words['signedIn']}')")
    assert player_of(other) == me
    other.wait_for_selector("#me .me-line:has-text('Zawadi')")
    assert other.inner_text("#me .me-keys").startswith(words["keys"])
    other.screenshot(path=str(tmp_path / f"passkey-signed-in-{lang}-desktop.png"))
    first.close()
    second.close()
    assert not problems
