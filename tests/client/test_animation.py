"""Sowing animations replay the server's steps: after each one the drawn counts must equal the
server's board exactly (the page counts any difference in #app's data-drift)."""

from __future__ import annotations

import random

import pytest

from clientkit import attr, play_first, start_game, wait_settled

GAMES = [("kalah", {"seeds": 6}), ("oware", {}), ("bao-kiswahili", {}), ("bao-kujifunza", {})]


@pytest.mark.parametrize("game,options", GAMES, ids=[g for g, _ in GAMES])
def test_animated_steps_land_on_the_servers_board(open_page, game, options):
    page = open_page(speed="fast")
    start_game(page, game, options, mode="local")
    wait_settled(page)
    pick = random.Random(game)
    seen_moving = False
    for _ in range(10):
        if attr(page, "over") == "1":
            break
        before = attr(page, "version")
        play_first(page, pick)
        # While it runs, the page is busy and nothing is lit.
        if attr(page, "busy") == "1" and page.locator(".pit.lit").count() == 0:
            seen_moving = True
        page.wait_for_function("v => document.querySelector('#app').dataset.version !== v", arg=before)
        wait_settled(page)
    assert seen_moving
    assert attr(page, "drift") is None, f"{attr(page, 'drift')} animations ended off the server's board"
