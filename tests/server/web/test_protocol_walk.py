"""PROTOCOL.md walked against the schema and a real server.

Every message and every field the schema declares is in PROTOCOL.md's tables; every error
code of the table is produced by a test (here, against the server, or named in another test);
the OpenAPI document covers every HTTP route and describes bodies the server really sends.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import msgspec
from wsclient import Client, create_room, seated_pair

from server.ops.config import Settings
from server.rooms import protocol as P
from server.web import api
from server.web.app import create_app

SERVER = Path(P.__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parents[2]
DOC = (SERVER / "PROTOCOL.md").read_text()


def table(heading: str) -> dict[str, str]:
    """The rows of the first table under ``heading``: first cell -> the whole row."""
    start = DOC.index(heading)
    rows: dict[str, str] = {}
    for line in DOC[start:].splitlines()[1:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        first = line.split("|")[1].strip()
        if first.startswith("`") and not first.startswith("---"):
            rows[first] = line
    return rows


def fields(struct: type) -> list[str]:
    return [f.encode_name for f in msgspec.structs.fields(struct)]


def test_every_message_field_is_in_its_row():
    for heading, union in (
        ("## Client → server", P.ClientMessage),
        ("## Server → client", P.ServerMessage),
    ):
        rows = table(heading)
        for struct in union.__args__:
            tag = struct.__struct_config__.tag
            row = rows[f"`{tag}`"]
            if tag == "state":
                continue  # its own table, below
            for name in fields(struct):
                assert f"`{name}`" in row, f"{tag}.{name} is not in PROTOCOL.md's row"


def test_every_state_field_and_nested_field_is_documented():
    rows = table("### `state`")
    documented = " ".join(rows)
    for name in fields(P.State):
        assert f"`{name}`" in documented, f"state.{name} is not in the state table"
    nested = {"seats": P.Seat, "last": P.LastMove, "outcome": P.Outcome, "legal": P.Legal}
    for field, struct in nested.items():
        row = next(r for k, r in rows.items() if f"`{field}`" in k)
        for name in fields(struct):
            assert f"`{name}`" in row, f"state.{field}[].{name} is not in its row"
    step = next(r for k, r in rows.items() if "`last`" in k)
    for name in fields(P.Step):
        assert f"`{name}`" in step, f"steps[].{name} is not documented"


def test_the_error_table_is_the_servers():
    rows = table("## Error codes")
    assert {k.strip("`") for k in rows} == set(P.ERRORS)
    for code, sentence in P.ERRORS.items():
        assert f"| `{code}` | {sentence} |" in rows[f"`{code}`"]


def test_every_error_code_is_produced_by_some_test():
    """Each code of the table is asserted by a test that makes the server send it."""
    sources = {
        p: p.read_text()
        for p in TESTS.rglob("test_*.py")
        if p.name not in ("test_protocol_walk.py", "test_protocol_doc.py", "test_fuzz.py")
    }
    for code in P.ERRORS:
        pattern = re.compile(rf"""["']{re.escape(code)}["']""")
        users = [p.name for p, text in sources.items() if pattern.search(text)]
        assert users or code in WALKED, f"no test makes the server answer {code}"


# Produced below, against the server, in this file.
WALKED = {
    "bad-json",
    "bad-message",
    "not-joined",
    "no-room",
    "wrong-room",
    "bad-token",
    "not-seated",
    "game-over",
    "not-your-turn",
    "stale",
    "illegal",
    "bad-notation",
    "no-offer",
    "not-allowed",
    "id-reused",
    "internal",  # test_a_store_that_does_not_answer_is_internal_and_changes_nothing
}


def test_the_server_answers_each_code_as_documented(server):
    r, south, north = seated_pair(server)
    other = create_room(server.url, "kalah")
    got = set()

    def code(client: Client, **frame) -> str:
        client.send(**frame)
        answer = client.expect("error", id=frame.get("id"))
        got.add(answer["code"])
        return answer["code"]

    room = r["room"]
    stranger = Client(server.ws_url)
    assert code(stranger, t="move", room=room, version=0, move="a", id="e1") == "not-joined"
    assert code(stranger, t="join", room="no-such-room") == "no-room"
    assert code(stranger, t="join", room=room, token="not-a-token") == "bad-token"
    stranger.join(room)  # the friend room's seats are taken: a spectator
    assert code(stranger, t="resign", room=room, id="e2") == "not-seated"
    assert code(south, t="move", room=other["room"], version=0, move="a", id="e3") == "wrong-room"
    assert code(north, t="move", room=room, version=0, move="A", id="e4") == "not-your-turn"
    assert code(south, t="move", room=room, version=3, move="a", id="e5") == "stale"
    assert code(south, t="move", room=room, version=0, move="q", id="e6") == "bad-notation"
    assert code(south, t="reply", room=room, kind="draw", accept=True, id="e7") == "no-offer"
    assert code(south, t="undo", room=room, version=0, id="e8") == "not-allowed"
    assert code(north, t="resign", room=room, id="e4") == "id-reused"
    south.send_raw("{")
    got.add(south.expect("error")["code"])
    south.send_raw(json.dumps({"t": "move", "room": room}))
    got.add(south.expect("error")["code"])
    r2 = create_room(server.url, "kalah", mode="local")
    both = Client(server.ws_url)
    both.join(r2["room"], r2["token"])
    both.send(t="move", room=r2["room"], version=0, move="a", id="l1")
    both.expect("ack", id="l1")
    both.wait_state(lambda s: s["version"] == 1 and s["to_move"] == 1)
    # North to move: South's pit a is not North's to sow.
    assert code(both, t="move", room=r2["room"], version=1, move="a", id="l2") == "illegal"
    both.send(t="resign", room=r2["room"], id="l3")
    both.expect("ack", id="l3")
    assert code(both, t="move", room=r2["room"], version=2, move="b", id="l4") == "game-over"
    assert WALKED - {"internal"} <= got, WALKED - got


def test_openapi_covers_every_route_and_its_bodies_are_the_servers(server):
    doc = httpx.get(server.url + "/api/openapi.json").json()
    assert doc["openapi"].startswith("3.1")
    app = create_app(Settings())
    # the client's pages and files (server/web/static.py), the archive's pages
    pages = {"/", "/r/{room}", "/static/rules.html", "/static/v/{version}", "/static"}
    pages |= {"/g/{id}", "/p/{id}", "/leaderboard", "/privacy", "/leaderboard/{game}"}
    pages |= {"/fair-play", "/arenas", "/t/{id}"}
    pages |= {"/ws"}  # a WebSocket, not an HTTP operation: the document's description points to it
    for route in app.routes:
        path = getattr(route, "path", "")
        assert path in pages or path in doc["paths"], f"{path} is not in /api/openapi.json"
    schemas = doc["components"]["schemas"]
    created = doc["paths"]["/api/rooms"]["post"]
    assert created["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/CreateRoom"
    )
    for variant in schemas["CreateRoom"]["oneOf"]:  # one per game
        assert set(variant["properties"]) == set(fields(api.CreateRoom))
    # Answers decode with the declarations the document was made from.
    body = httpx.post(server.url + "/api/rooms", json={"game": "kalah"}).json()
    room = msgspec.convert(body, api.RoomCreated)
    history = httpx.get(f"{server.url}/api/rooms/{room.room}/history").json()
    msgspec.convert(history, api.History)
    problem = httpx.post(server.url + "/api/rooms", json={"game": "chess"}).json()
    assert msgspec.convert(problem, api.Problem).code == "bad-game"
    for name in fields(api.History):
        assert f"{name}" in DOC, f"history.{name} is not in PROTOCOL.md"


def test_a_store_that_does_not_answer_is_internal_and_changes_nothing(tmp_path, key_prefix):
    """``internal``: nothing was judged; the client may resend the same intent."""
    from serverproc import ServerProcess

    from server.store.embedded import EmbeddedValkey

    valkey = EmbeddedValkey(tmp_path / "valkey").start()
    srv = ServerProcess(
        redis_url=valkey.url, data_dir=tmp_path / "srv", env={"NYUMBA_KEY_PREFIX": key_prefix}
    ).start()
    try:
        r = create_room(srv.url, "kalah")
        c = Client(srv.ws_url)
        c.join(r["room"], r["token"])
        valkey.stop()
        c.send(t="move", room=r["room"], version=0, move="a", id="x1")
        answer = c.expect("error", id="x1", timeout=30)
        assert answer["code"] == "internal", answer
    finally:
        srv.stop()
        valkey.stop()
