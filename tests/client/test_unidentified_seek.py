"""A rated seek from a page whose socket no longer has a player (issue #48, item 2): the player
signed out in another tab, so the session the socket opened with is revoked. The server refuses
the seek ``not-identified``, and the page says why by the Start button, in its language."""

from __future__ import annotations

import pytest
from clientkit import PHONE

VIEWS = {
    "desktop-en": {"viewport": {"width": 1280, "height": 800}, "lang": "en"},
    "phone-ja": {"viewport": PHONE, "lang": "ja", "has_touch": True, "is_mobile": True},
}
SAID = {  # client/strings-en.js and strings-ja.js, "refusal.not-identified"
    "en": "A rated game needs your player, and this page's connection has none (it opened before "
    "your player was made, or you signed out since): reload the page, or untick Rated.",
    "ja": "レーティング対局にはあなたのプレイヤーが必要ですが、このページの接続にはプレイヤーが"
    "ありません（プレイヤーができる前に開かれたか、その後サインアウトしました）。"
    "ページを再読み込みするか、「レーティング対局」のチェックを外してください。",
}


@pytest.mark.parametrize("view", VIEWS)
def test_a_rated_seek_on_a_socket_whose_player_signed_out_is_said_not_identified(open_page, view):
    page = open_page(**VIEWS[view])
    page.wait_for_selector("#me[data-player]:not([data-player=''])")
    page.wait_for_selector("#quick .quick-pool[data-game='kalah']")
    # Signed out elsewhere (another tab): the session is revoked, this page's socket keeps it
    status = page.evaluate("fetch('/api/me/signout', {method: 'POST'}).then(r => r.status)")
    assert status == 204
    page.check("input[name=mode][value='lobby']")
    page.select_option("#clock", "180000+2000")
    page.check("#rated")
    page.click("#go")
    page.wait_for_selector("#start-error:not([hidden])")
    assert page.inner_text("#start-error") == SAID[VIEWS[view]["lang"]]
    assert not page.is_visible("#seeking")
