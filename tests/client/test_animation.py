"""Sowing animations replay the server's steps: after each one the drawn counts must equal the
server's board exactly (the page counts any difference in #app's data-drift)."""

from __future__ import annotations

import random

import pytest
from clientkit import attr, play_first, start_game, wait_settled

import engine

# Every registered profile (Kalah with the most seeds per pit: the longest sowings).
GAMES = [(p.name, {"seeds": 6} if p.name == "kalah" else {}) for p in engine.profiles()]


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
        page.wait_for_function(
            "v => document.querySelector('#app').dataset.version !== v", arg=before
        )
        wait_settled(page)
    assert seen_moving
    assert attr(page, "drift") is None, (
        f"{attr(page, 'drift')} animations ended off the server's board"
    )


def nyakua_line() -> list[str] | None:
    """Moves from the start of Bao Nakakamado up to and including one with NYAKUA (N5)."""
    game = engine.load("bao-nakakamado-a")
    for seed in range(50):
        rng, state, moves = random.Random(seed), game.start(), []
        for _ in range(40):
            legal = game.legal_moves(state)
            if not legal:
                break
            move = rng.choice(legal)
            moves.append(game.notation(move))
            if any(s.note == "nyakua" for s in game.steps(state, move)):
                return moves
            state = game.play(state, move)
    return None


def test_nyakua_is_animated_and_announced(open_page):
    line = nyakua_line()
    assert line, "no NYAKUA within 40 random plies from 50 seeds"
    page = open_page(speed="fast")
    start_game(page, "bao-nakakamado-a", mode="local")
    wait_settled(page)
    page.click("#move-list summary")
    for text in line:  # by the move list's buttons: the keyboard-and-buttons way to play
        before = attr(page, "version")
        page.click(f"#move-buttons button[data-move='{text}']")
        page.wait_for_function(
            "v => document.querySelector('#app').dataset.version !== v", arg=before
        )
        wait_settled(page)
    assert "NYAKUA!" in page.inner_text("#last")
    assert attr(page, "drift") is None
    page.select_option("#lang", "ja")
    assert "NYAKUA！" in page.inner_text("#last")
