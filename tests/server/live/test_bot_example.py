"""The bot in examples/ plays a whole game against the computer from the documented protocol."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

BOT = Path(__file__).resolve().parents[3] / "examples" / "bot.py"


def test_the_bot_needs_only_websockets_and_the_standard_library():
    tree = ast.parse(BOT.read_text())
    imported = {
        (node.module if isinstance(node, ast.ImportFrom) else alias.name).split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        and getattr(node, "module", None) != "__future__"
        for alias in node.names
    }
    assert imported - set(sys.stdlib_module_names) == {"websockets"}


@pytest.mark.parametrize("game", ["kalah", "oware"])
def test_the_bot_plays_a_whole_game_against_the_computer(server, game):
    done = subprocess.run(
        [sys.executable, str(BOT), server.url, "--game", game, "--level", "beginner"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("game over after "), done.stdout


def test_the_bot_shows_the_servers_refusal_of_a_bad_game(server):
    done = subprocess.run(
        [sys.executable, str(BOT), server.url, "--game", "chess"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr
    assert "400 bad-game: unknown game 'chess'" in done.stderr, done.stderr
