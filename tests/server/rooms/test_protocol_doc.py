"""The protocol's docs and schema come from the declarations."""

import json
from pathlib import Path

from server.rooms import protocol as P

SERVER = Path(P.__file__).parent.parent


def test_generated_schema_file_is_current():
    on_disk = json.loads((SERVER / P.SCHEMA_FILE).read_text())
    assert on_disk == json.loads(json.dumps(P.schema())), "run: python -m server.rooms.protocol"


def test_every_message_and_error_code_is_documented():
    doc = (SERVER / "PROTOCOL.md").read_text()
    for struct in P.ClientMessage.__args__ + P.ServerMessage.__args__:
        tag = struct.__struct_config__.tag
        assert f"| `{tag}` |" in doc, f"message {tag} is not in PROTOCOL.md"
    for code, sentence in P.ERRORS.items():
        assert f"| `{code}` | {sentence} |" in doc, f"error {code} is not in PROTOCOL.md"


def test_decoder_refuses_unknown_fields_and_bad_ranges():
    import msgspec
    import pytest

    for raw in (
        {"t": "move", "room": "r", "version": -1, "move": "a", "id": "x"},
        {"t": "move", "room": "r" * 65, "version": 0, "move": "a", "id": "x"},
        {"t": "join", "room": "bad room!"},
        {"t": "offer", "room": "r", "kind": "cake"},
        {"t": "ping", "n": 1, "x": 2},
        {"room": "r"},
    ):
        with pytest.raises(msgspec.ValidationError):
            P.decode(json.dumps(raw))


def _section(doc: str, heading: str) -> str:
    """The text under ``heading`` up to the next heading of its level or above."""
    start = doc.index(heading)
    level = heading.split(" ", 1)[0]
    ends = [doc.find("\n" + "#" * n + " ", start + 1) for n in range(1, len(level) + 1)]
    ends = [e for e in ends if e != -1]
    return doc[start : min(ends) if ends else len(doc)]


def test_every_close_code_the_server_sends_is_listed():
    import re

    doc = (SERVER / "PROTOCOL.md").read_text()
    listed = doc[doc.index("**Close codes**") :].split("\n- ", 1)[0]
    sources = "".join(p.read_text() for p in SERVER.rglob("*.py"))
    sent = {
        int(c) for c in re.findall(r"WS_(10\d\d)_|close_soon\((10\d\d)", sources) for c in c if c
    }
    # and those the libraries send for the server: websockets' frame cap and keepalive,
    # uvicorn's shutdown (server/web/handshake.py, server/run/cli.py)
    sent |= {1009, 1011, 1012}
    for code in sorted(sent):
        assert f"{code} (" in listed, f"close code {code} is not in PROTOCOL.md's list"


def test_the_games_row_names_every_field_as_the_server_sends_it():
    import re

    import msgspec

    import engine

    doc = (SERVER / "PROTOCOL.md").read_text()
    row = next(line for line in doc.splitlines() if line.startswith("| `GET /api/games`"))
    named = {n.strip() for group in re.findall(r"`\{([^}`]*)\}`", row) for n in group.split(",")}
    profile = msgspec.to_builtins(engine.profiles()[0])
    assert set(profile) | set(profile["options"][0]) <= named, named


def test_the_seat_timers_are_said_to_be_snapshots_a_client_counts_on():
    doc = (SERVER / "PROTOCOL.md").read_text()
    row = next(line for line in doc.splitlines() if line.startswith("| `seats` |"))
    assert "as of the moment the state was sent" in row and "count on" in row


def test_the_bao_section_says_every_board_field_and_choice_word_the_engine_gives():
    import random

    import engine

    bao = _section((SERVER / "PROTOCOL.md").read_text(), "## Bao for a client")
    words, fields = {"pass"}, set()
    for profile in ("bao-kiswahili", "bao-kujifunza", "bao-nakakamado-a"):
        game, rng = engine.load(profile), random.Random(profile)
        for _ in range(12):
            state = game.start()
            while True:
                board = game.board(state)
                fields |= set(board)
                seeds = sum(board["pits"].values()) + sum(board["hands"])
                assert seeds + sum(board["pending"]) == 64, (profile, board)
                moves = game.legal_moves(state)
                if not moves:
                    break
                words |= {c.choice for c in game.choices(state)}
                state = game.play(state, rng.choice(moves))
    for word in sorted(words | fields):
        assert f"`{word}`" in bao, f"{word!r} is not in PROTOCOL.md's Bao section"
    for name in ("A1", "B8", "a1", "b8", "illegal", "bad-notation", "64"):
        assert name in bao


def test_the_lobbys_bounds_and_budgets_are_the_ones_the_doc_names():
    from server.live import lobbywatch as W
    from server.rooms import lobbyview as LV

    lobby = _section((SERVER / "PROTOCOL.md").read_text(), "## The lobby")
    assert f"at most {LV.SHOWN} open seeks" in lobby
    assert f"rounded to a multiple of {LV.NEAR_STEP}; without it {LV.DEFAULT_NEAR}" in lobby
    assert W.FLUSH_S == 0.5 and "at most twice a second" in lobby
    assert f"{W.ASKS} times in {W.ASK_WINDOW_S:g} s" in lobby
    assert f"every {W.RESYNC_S:g} s while someone" in lobby
    assert f"at most {W.VIEWS} different lists" in lobby.replace("\n  ", " ")


def test_every_adjudication_is_declared_once_and_documented():
    doc = (SERVER / "PROTOCOL.md").read_text()
    row = next(line for line in doc.splitlines() if line.startswith("| `adjudication` |"))
    for name in P.ADJUDICATIONS:
        assert f'`"{name}"`' in row, f"adjudication {name} is not in PROTOCOL.md's state row"
    assert P.schema()["adjudications"] == P.ADJUDICATIONS


def test_every_abort_cause_is_documented_and_said_by_the_page():
    """An aborted game's ``outcome.reason`` (``fairplay.ABORT_CAUSES``): in PROTOCOL.md, and
    a sentence for it in both of the client's string tables."""
    from server.rooms.fairplay import ABORT_CAUSES

    doc = (SERVER / "PROTOCOL.md").read_text()
    client = SERVER.parent / "client"
    tables = [(client / f"strings-{lang}.js").read_text() for lang in ("en", "ja")]
    for cause in ABORT_CAUSES:
        assert f"`{cause}`" in doc, f"abort cause {cause} is not in PROTOCOL.md"
        key = "end.aborted.agreement" if cause == "agreement" else f"end.aborted.{cause}.you"
        assert all(f'"{key}":' in table for table in tables), f"no sentence for {cause}"
