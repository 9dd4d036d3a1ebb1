"""One name per player, from a first visit on (issue #48, items 1 and 2): the name typed on the
start page is the one the lobby lists, the seats and clocks show and the room's name box holds;
a rated quick pairing works on a first visit (the player is made before the lobby's socket
opens); a refusal is said by the control that was used, in the page's language; a passkey
sign-in brings the player's name into the name box, and signing out makes this browser someone
new. On a desktop in English and on a phone in Japanese."""

from __future__ import annotations

import re

import pytest
from clientkit import PHONE, authenticator, start_game, wait_open

DESKTOP_WIDE = {"width": 1280, "height": 800}
VIEWS = {
    "desktop-en": {"viewport": DESKTOP_WIDE, "lang": "en"},
    "phone-ja": {"viewport": PHONE, "lang": "ja", "has_touch": True, "is_mobile": True},
}
WORDS = {  # client/strings-en.js and strings-ja.js, as the player reads them
    "en": {
        "you": "{name} (you)",
        "seats": ["South: you", "North: computer (Beginner)"],
        "needsClock": "A rated game needs a clock: choose one, or untick Rated.",
        "signedOut": "Signed out: this browser now plays as a new player. "
        "Your passkey signs you in again.",
    },
    "ja": {
        "you": "{name}（あなた）",
        "seats": ["南：あなた", "北：コンピュータ（初級）"],
        "needsClock": "レーティング対局には持ち時間が必要です。持ち時間を選ぶか、"
        "「レーティング対局」のチェックを外してください。",
        "signedOut": "サインアウトしました。このブラウザは新しいプレイヤーとしてプレイします。"
        "パスキーでまたサインインできます。",
    },
}
QUICK = "#quick .quick-pool[data-game='kalah']"


def in_view(page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    height = page.viewport_size["height"]
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height


@pytest.mark.parametrize("view", VIEWS)
def test_first_visitors_pair_rated_by_quick_pairing_under_the_names_they_typed(open_page, view):
    words = WORDS[VIEWS[view]["lang"]]
    names = ("Eshe", "Tumaini")
    pages = []
    for name in names:  # each a first visit: no cookie, nothing stored
        page = open_page(**VIEWS[view])
        page.wait_for_selector(QUICK)
        page.fill("#name", name)
        page.check("#rated")  # the form's "rated" is the quick buttons' too
        if pages:  # the lobby lists the first player by the name they typed, rated
            page.wait_for_selector(f"#seeks .seek[data-mine='0'] .seek-who:text-is('{names[0]}')")
        page.click(QUICK)
        pages.append(page)
        if len(pages) == 1:
            page.wait_for_selector("#seeking:not([hidden])")
    for page in pages:
        page.wait_for_url(re.compile(r"/r/[A-Za-z0-9_-]+$"))
        wait_open(page)
        page.wait_for_selector("#clocks:not([hidden])")
    assert pages[0].url == pages[1].url
    for page, name in zip(pages, names):
        assert page.is_visible("#ratedness")  # a rated pairing, asked for
        assert page.input_value("#name") == name
        page.wait_for_function(
            "() => document.querySelectorAll('#seats a.seat-player').length == 2"
        )
        seats = [page.inner_text(f"#seats li[data-side='{s}'] a.seat-player") for s in (0, 1)]
        assert sorted(seats) == sorted([words["you"].format(name=name), *(set(names) - {name})])
        clocks = page.locator("#clocks .clock-name").all_inner_texts()
        assert sorted(clocks) == sorted(names)


@pytest.mark.parametrize("view", VIEWS)
def test_a_seat_without_a_name_reads_as_a_plain_word(open_page, view):
    """Not "North: player  player page": a nameless player's seat says who they are to you,
    linked to their page; the computer's says what it is."""
    page = open_page(**VIEWS[view])
    start_game(page, "kalah", mode="computer", side="south")
    page.wait_for_selector("#seats li[data-side='0'] a.seat-player")
    seats = [page.inner_text(f"#seats li[data-side='{s}']") for s in (0, 1)]
    assert [" ".join(line.lstrip("●○ ").split()) for line in seats] == WORDS[VIEWS[view]["lang"]][
        "seats"
    ]


@pytest.mark.parametrize("view", VIEWS)
def test_a_first_visits_rated_seek_waits_for_its_player_and_a_refusal_is_said_by_its_control(
    open_page, view
):
    """The player is made while the page loads (POST /api/me); held here until after the first
    press, as a slow network would, the lobby's socket must not open without its cookie."""
    page = open_page(**VIEWS[view], path=None)
    held, released = [], []

    def hold(route):
        if route.request.method == "POST" and not released:
            held.append(route)
        else:
            route.continue_()

    page.route("**/api/me", hold)
    page.goto("/")
    page.wait_for_selector("body[data-ready='1']")
    page.check("input[name=mode][value='lobby']")
    page.select_option("#clock", "")  # rated without a clock: the server refuses the seek
    page.check("#rated")
    page.click("#go")
    released.append(True)
    for route in held:
        route.continue_()
    page.wait_for_selector("#start-error:not([hidden])")
    assert page.inner_text("#start-error") == WORDS[VIEWS[view]["lang"]]["needsClock"]
    assert page.locator(".go-bar #start-error").count() == 1  # by the Start button
    assert in_view(page, "#start-error") and in_view(page, "#go")
    assert not page.is_visible("#lobby-error")

    page.select_option("#clock", "180000+2000")
    page.click("#go")
    page.wait_for_selector("#seeking:not([hidden])")  # listed, rated: the socket has the player
    assert not page.is_visible("#start-error") and not page.is_visible("#lobby-error")
    page.click("#seek-cancel")
    page.wait_for_selector("#seeking[hidden]", state="attached")


@pytest.mark.parametrize("view", VIEWS)
def test_a_passkey_sign_in_fills_the_name_box_and_signing_out_makes_someone_new(
    open_page, live_server, view
):
    base = live_server.replace("127.0.0.1", "localhost")  # passkeys need a domain
    player = "#me[data-player]:not([data-player=''])"

    first = open_page.context(**VIEWS[view])
    page = open_page(first, path=None)
    cdp, auth = authenticator(first, page)
    page.goto(base + "/")
    page.wait_for_selector(player)
    page.fill("#name", "Zawadi")
    page.dispatch_event("#name", "change")
    page.wait_for_selector("#me .me-line:has-text('Zawadi')")
    page.click("#me .passkey-add")
    page.wait_for_function("() => document.querySelector('#me .me-keys').textContent.includes('1')")
    me = page.get_attribute("#me", "data-player")
    (key,) = cdp.send("WebAuthn.getCredentials", {"authenticatorId": auth})["credentials"]

    second = open_page.context(**VIEWS[view])
    other = open_page(second, path=None)
    cdp2, auth2 = authenticator(second, other)
    cdp2.send("WebAuthn.addCredential", {"authenticatorId": auth2, "credential": key})
    other.goto(base + "/")
    other.wait_for_selector(player)
    assert other.input_value("#name") == ""
    assert not other.is_visible("#me .me-signout")  # nothing could bring this one back
    other.click("#me .passkey-signin")
    other.wait_for_selector(f"#me[data-player='{me}']")
    other.wait_for_function("() => document.querySelector('#name').value === 'Zawadi'")
    assert other.is_visible("#me .me-signout")  # a player their passkey brings back

    other.click("#me .me-signout")
    other.wait_for_selector(f"{player}:not([data-player='{me}'])")
    assert other.inner_text("#me .me-note") == WORDS[VIEWS[view]["lang"]]["signedOut"]
    assert other.input_value("#name") == ""
    assert not other.is_visible("#me .me-signout")
    other.reload()  # the sign-out holds: the server knows this browser as the new player
    other.wait_for_selector(player)
    assert other.get_attribute("#me", "data-player") != me
    assert other.input_value("#name") == ""
