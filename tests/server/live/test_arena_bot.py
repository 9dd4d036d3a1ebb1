"""The arena bot in examples/ plays an arena from start to finish from the documented protocol:
three of them on two nodes, each a player of its own, paired again and again until the arena
is finished, each printing its final row."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import httpx
from archivekit import Player
from pgkit import sqlite_url
from prometheus_client.parser import text_string_to_metric_families

BOT = Path(__file__).resolve().parents[3] / "examples" / "arena_bot.py"
# Any identified player may create an arena here, and a short one (the defaults: 5 rated games,
# a minute at least); the bots pace their moves, so a game of 3-seed Kalah takes seconds.
ARENA_ENV = {"NYUMBA_ARENA_CREATOR_GAMES": "0", "NYUMBA_ARENA_MIN_MS": "1000"}
FINAL = re.compile(r"^final: rank (\d+), (\d+) points in (\d+) games", re.M)


def test_the_arena_bot_needs_only_websockets_and_the_standard_library() -> None:
    tree = ast.parse(BOT.read_text())
    imported = {
        (node.module if isinstance(node, ast.ImportFrom) else alias.name).split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        and getattr(node, "module", None) != "__future__"
        for alias in node.names
    }
    assert imported - set(sys.stdlib_module_names) == {"websockets"}


def create_arena(base: str, seconds: int, berserk: bool = True) -> dict:
    creator = Player(base, "Host")
    body = {
        "name": "Bots' arena",
        "game": "kalah",
        "options": {"seeds": 3},
        "clock": {"initial_ms": 60000, "increment_ms": 0},
        "starts_in_ms": 2000,
        "duration_ms": seconds * 1000,
        "rated": False,
        "berserk": berserk,
    }
    made = creator.request("POST", "/api/arenas", json=body)
    assert made.status_code == 201, made.text
    return made.json()


def bot(server, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(BOT), server.url, *args], stdout=subprocess.PIPE, text=True
    )


def test_three_example_arena_bots_play_an_arena_to_its_end(lobby_nodes, tmp_path) -> None:
    a, b = lobby_nodes(2, DATABASE_URL=sqlite_url(tmp_path), **ARENA_ENV)
    arena = create_arena(a.url, seconds=25)
    runs = [
        bot(a, arena["id"], "--name", "Ada", "--seed", "1"),
        bot(b, arena["id"], "--name", "Bea", "--seed", "2", "--berserk"),
        bot(b, "--name", "Cyd", "--seed", "3"),  # no id: the first running or upcoming arena
    ]
    outs = [run.communicate(timeout=150)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0, 0], outs
    finals = [FINAL.search(out) for out in outs]
    assert all(finals), outs
    ranks = sorted(int(f[1]) for f in finals if f)
    assert ranks == [1, 2, 3], outs
    for out, final in zip(outs, finals, strict=True):
        assert final is not None
        games = int(final[3])
        # Paired again after a game: three players, one waiting while two play, 25 seconds.
        assert games >= 2 and out.count("paired: room") == games, out
        assert len(re.findall(r"^over: ", out, re.M)) == games, out
        # The one refusal: a join after a game that ended after the arena's end.
        assert set(re.findall(r"^refused: ([\w-]+)", out, re.M)) <= {"arena-over"}, out
    answer = httpx.get(f"{b.url}/api/arenas/{arena['id']}", timeout=10).json()
    assert answer["status"] == "finished"
    rows = {row["name"]: row for row in answer["standings"]}
    assert set(rows) == {"Ada", "Bea", "Cyd"}
    # Bea berserked every game: her clock halved before her first move, each time.
    assert rows["Bea"]["berserks"] == rows["Bea"]["games"] and rows["Ada"]["berserks"] == 0
    assert sum(row["games"] for row in rows.values()) == 2 * len(answer["games"])
    # Each player's every pairing was timed, on the node that delivered it (the dashboard's).
    waits = sum(pairing_waits(node.url) for node in (a, b))
    assert waits == sum(out.count("paired: room") for out in outs)


def pairing_waits(base: str) -> float:
    text = httpx.get(base + "/metrics", timeout=10).text
    for family in text_string_to_metric_families(text):
        if family.name == "nyumba_arena_pairing_wait_seconds":
            return sum(s.value for s in family.samples if s.name.endswith("_count"))
    raise AssertionError("no nyumba_arena_pairing_wait_seconds on /metrics")


def test_the_arena_bot_says_so_when_there_is_no_such_arena(lobby_nodes, tmp_path) -> None:
    (node,) = lobby_nodes(1, DATABASE_URL=sqlite_url(tmp_path), **ARENA_ENV)
    done = subprocess.run(
        [sys.executable, str(BOT), node.url, "nosuchar"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1, done
    assert "refused: no-arena" in done.stdout and "Traceback" not in done.stderr, done
