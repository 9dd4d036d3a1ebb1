"""A click in the lobby counts when a lobby update comes between the press and the release.

The start page redrew its quick-pool buttons and every listed seek on each lobby message; a
button made anew between a press and its release takes no click, so in a busy lobby a player's
click could do nothing (CI once saw a quick-pool click lost to the page's first lobby message).
Here another player's seek arrives while the mouse button is held down."""

from __future__ import annotations

import re

from wsclient import Client


def _held_while_a_seek_arrives(page, selector: str, bot_url: str, seeds: int) -> Client:
    """Press ``selector``, let another player's seek (Kalah with ``seeds``) reach the page,
    then release."""
    listed = page.locator("#seeks .seek").count()
    box = page.locator(selector).first.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    other = Client(bot_url)
    other.send(t="seek", game="kalah", options={"seeds": seeds})
    other.expect("seeking")
    page.wait_for_function("n => document.querySelectorAll('#seeks .seek').length > n", arg=listed)
    page.mouse.up()
    return other


def test_a_lobby_update_between_press_and_release_does_not_lose_the_click(open_page, live_server):
    bot_url = live_server.replace("http", "ws") + "/ws"
    waiting = Client(bot_url)  # a seek to take with its row's Play button
    waiting.send(t="seek", game="kalah", options={"seeds": 6}, clock={"initial_ms": 600_000})
    mine = waiting.expect("seeking")["seek"]

    taker = open_page()
    play = f"#seeks .seek[data-seek='{mine}'] .seek-play"
    taker.wait_for_selector(play)
    others = [_held_while_a_seek_arrives(taker, play, bot_url, 5)]
    taker.wait_for_url(re.compile(r"/r/[A-Za-z0-9_-]+$"))
    assert waiting.expect("paired")["room"] in taker.url

    seeker = open_page()
    seeker.wait_for_selector("#seeks .seek")  # the lobby's socket is up: it lists others' seeks
    others.append(
        _held_while_a_seek_arrives(seeker, "#quick .quick-pool[data-game='oware']", bot_url, 4)
    )
    seeker.wait_for_selector("#seeking:not([hidden])")
    for bot in [waiting, *others]:
        bot.close()
