"""No part of a seat token in the log at any level: a real server at debug with the access log
on sees tokens in join frames, in welcome frames, in URLs' query strings and in fragmented
frames, and its whole log holds not one 8-character piece of any of them."""

from __future__ import annotations

import json
import logging

import httpx
import pytest
from serverproc import ServerProcess
from websockets.sync.client import connect
from wsclient import Client, create_room

import server.rooms.protocol as P
from server.ops.logs import JsonFormatter, Redact


def _pieces(token: str, n: int = 8) -> set[str]:
    return {token[i : i + n] for i in range(len(token) - n + 1)}


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_no_piece_of_a_seat_token_is_logged_at_debug_with_the_access_log(fmt, tmp_path, key_prefix):
    srv = ServerProcess(
        redis_url=None,
        data_dir=tmp_path,
        env={
            "NYUMBA_KEY_PREFIX": key_prefix,
            "NYUMBA_LOG_LEVEL": "debug",
            "NYUMBA_ACCESS_LOG": "1",
            "NYUMBA_LOG_FORMAT": fmt,
        },
    ).start()
    try:
        r = create_room(srv.url, "kalah", mode="friend", side="south")
        room, creator = r["room"], r["token"]
        south = Client(srv.ws_url)
        south.join(room, creator)  # the token in a join frame
        north = Client(srv.ws_url)
        visitor = north.join(room)["token"]  # a new token in a welcome frame
        assert visitor
        south.close()
        north.close()
        # in query strings: a WebSocket handshake and an HTTP request (the access log)
        again = Client(f"{srv.ws_url}?room={room}&token={creator}")
        again.join(room, creator)
        again.close()
        httpx.get(f"{srv.url}/r/{room}?token={visitor}", timeout=10)
        # a join in two fragments, cut inside the token, and one naming its key with an escape
        with connect(srv.ws_url, open_timeout=10) as ws:
            text = json.dumps({"t": "join", "room": room, "token": creator})
            cut = text.index(creator) + 11
            ws.send(iter([text[:cut], text[cut:]]))
            assert json.loads(ws.recv(timeout=10))["t"] == "welcome"
        with connect(srv.ws_url, open_timeout=10) as ws:
            escaped = json.dumps({"t": "join", "room": room, "token": visitor})
            ws.send(escaped.replace('"token"', '"tok\\u0065n"'))
            assert json.loads(ws.recv(timeout=10))["t"] == "welcome"
    finally:
        srv.stop()
    log = srv.log_path.read_text()
    for token in (creator, visitor):
        leaked = sorted(p for p in _pieces(token) if p in log)
        assert not leaked, f"pieces of a seat token in the log: {leaked}"
    # the frames and the requests were logged, with the token's value hidden
    assert '"t":"welcome"' in log.replace('\\"', '"')
    assert "[accepted]" in log and f"/r/{room}?" in log
    assert '"token":"…"' in log.replace('\\"', '"')


@pytest.mark.parametrize("formatter", [logging.Formatter(), JsonFormatter()])
def test_a_messages_repr_and_a_traceback_lose_the_token(formatter):
    token = "fukrIEXSkKBMbRYnrJIdZQ"
    msg = P.Join(room="r", token=token)
    try:
        raise ValueError(f"bad token={token}")
    except ValueError as exc:
        info = (type(exc), exc, exc.__traceback__)
    record = logging.LogRecord(
        "nyumba.node", logging.ERROR, __file__, 1, "message %r failed", (msg,), info
    )
    record.token = token  # an extra= field
    assert Redact().filter(record)
    out = formatter.format(record)
    assert "token='…'" in out and "token=…" in out
    assert not any(p in out for p in _pieces(token)), out
    assert record.token == "…"
