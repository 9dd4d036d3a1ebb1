"""Hostile input against a real server, shared by the fuzz test and tests/bench/fuzz.py.

A ``Campaign`` sets up a friend room where North is to move and holds sockets
for South (seated, not its turn), North (seated, but it only ever sends stale
or out-of-range intents), an anonymous socket, and a spectator. Every
message it sends is one the server must refuse (or, for pings, answer). After
each message a ping marks the end of its answers. ``snapshot()`` is what must
never change: the room's version, position, history, outcome, offer and seats.
"""

from __future__ import annotations

import itertools
import json
import string
from collections import Counter

from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from wsclient import Client, create_room

from server.rooms import protocol as P

KINDS = ("join", "move", "resign", "offer", "reply", "undo", "hand_over", "reclaim", "ping")

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=40),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=20,
)


def _not_a_real_intent(d: dict) -> bool:
    """Keep only shapes the server must refuse: a well-formed resign, offer …
    from South is a real (accepted) intent, not hostile input."""
    try:
        msg = P.decode(json.dumps(d))
    except Exception:
        return True
    return (
        isinstance(msg, (P.Ping, P.Join))
        or getattr(msg, "room", None) != d.get("room")
        or d["t"] == "move"
    )  # South's moves are out of turn: refused


def boundary_ints():
    return st.sampled_from([-1, -(2**31), 2**31, 2**53, 2**53 + 1, 2**63, 2**64, 10**30, 0.5, "0"])


def bad_moves(room: str, version: int, turn_version_ok: bool):
    """Moves that must be refused: text that is no move, or a version that is not current."""
    versions = st.one_of(
        boundary_ints(),
        st.integers(min_value=0, max_value=10**6).filter(lambda v: v != version or turn_version_ok),
    )
    return st.fixed_dictionaries(
        {
            "t": st.just("move"),
            "room": st.just(room),
            "version": versions,
            "move": st.one_of(
                st.text(max_size=40), st.sampled_from(list("abcdefABCDEF") + ["A7L", "pass"])
            ),
            "id": st.text(min_size=1, max_size=70),
        }
    )


def messages(room: str, other_room: str, other_token: str, version: int):
    """One hostile message: (socket name, raw text or bytes)."""
    text = lambda d: json.dumps(d)  # noqa: E731
    return st.one_of(
        # garbage
        st.tuples(st.sampled_from(["south", "anon"]), st.binary(max_size=300)),
        st.tuples(st.sampled_from(["south", "anon"]), st.text(max_size=300)),
        # valid JSON, wrong shapes
        st.tuples(st.sampled_from(["south", "anon", "watcher"]), json_values.map(text)),
        st.tuples(
            st.just("south"),
            st.fixed_dictionaries(
                {
                    "t": st.sampled_from(KINDS),
                    "room": st.one_of(st.just(room), st.text(max_size=70)),
                },
                optional={
                    "version": json_scalars,
                    "kind": json_scalars,
                    "accept": json_scalars,
                    "token": json_scalars,
                    "id": json_scalars,
                    "extra": json_scalars,
                },
            )
            .filter(_not_a_real_intent)
            .map(text),
        ),
        # out of turn (South), stale or malformed (North), anything from a spectator
        st.tuples(st.just("south"), bad_moves(room, version, True).map(text)),
        st.tuples(st.just("north"), bad_moves(room, version, False).map(text)),
        st.tuples(st.just("watcher"), bad_moves(room, version, True).map(text)),
        st.tuples(
            st.just("watcher"),
            st.sampled_from(
                [
                    {"t": "resign", "room": room},
                    {"t": "offer", "room": room, "kind": "draw"},
                    {"t": "undo", "room": room, "version": version},
                    {"t": "hand_over", "room": room},
                    {"t": "reclaim", "room": room},
                ]
            ).map(text),
        ),
        # the other room, from seated sockets
        st.tuples(
            st.sampled_from(["south", "north"]),
            st.sampled_from(
                [
                    {"t": "move", "room": other_room, "version": 0, "move": "a", "id": "x"},
                    {"t": "resign", "room": other_room},
                ]
            ).map(text),
        ),
        # forged and foreign tokens
        st.tuples(
            st.just("anon"),
            st.one_of(
                st.text(
                    alphabet=string.ascii_letters + string.digits + "-_", min_size=1, max_size=128
                ),
                st.just(other_token),
            ).map(lambda tok: text({"t": "join", "room": room, "token": tok})),
        ),
        # oversize frames
        st.tuples(
            st.sampled_from(["anon", "watcher"]),
            st.integers(8193, 20000).map(lambda n: text({"t": "ping", "n": 1, "pad": "x" * n})),
        ),
        # replies to offers nobody made, undo in a friend room
        st.tuples(
            st.sampled_from(["south", "north"]),
            st.sampled_from(
                [
                    {"t": "reply", "room": room, "kind": "draw", "accept": True},
                    {"t": "reply", "room": room, "kind": "rematch", "accept": True},
                    {"t": "undo", "room": room, "version": version},
                    {"t": "offer", "room": room, "kind": "rematch"},
                    {"t": "hand_over", "room": room},
                    {"t": "reclaim", "room": room},
                ]
            ).map(text),
        ),
    )


class Campaign:
    def __init__(self, server):
        self.server = server
        self.counts: Counter = Counter()
        self._markers = itertools.count(10**9)
        r = create_room(server.url, "kalah")
        other = create_room(server.url, "oware")
        self.room, self.token = r["room"], r["token"]
        self.other_room, self.other_token = other["room"], other["token"]
        self.sockets: dict[str, Client] = {}
        self.sockets["south"] = self._open("south")
        north = Client(server.ws_url)
        north.join(self.room)
        self.north_token = north.token
        self.sockets["north"] = north
        self.sockets["anon"] = self._open("anon")
        self.sockets["watcher"] = self._open("watcher")
        south = self.sockets["south"]
        south.move("c", version=0)  # extra turn (K5): still South
        south.expect("ack")
        south.wait_state(lambda s: s["version"] == 1)
        south.move("a", version=1)
        south.expect("ack")
        self.version = 2
        north.wait_state(lambda s: s["version"] == 2)
        self.before = self.snapshot()

    def _open(self, name: str) -> Client:
        c = Client(self.server.ws_url)
        if name == "south":
            c.join(self.room, self.token)
        elif name == "north":
            c.join(self.room, self.north_token)
        elif name == "watcher":
            c.join(self.room)
        return c

    def snapshot(self) -> dict:
        import httpx

        rec = httpx.get(f"{self.server.url}/api/rooms/{self.room}/history").json()
        watcher = Client(self.server.ws_url)
        watcher.join(self.room)
        st = watcher.state
        watcher.close()
        return {
            "moves": rec["moves"],
            "ids": rec["ids"],
            "version": st["version"],
            "position": st["position"],
            "outcome": st["outcome"],
            "offer": st["offer"],
            "holders": [s["holder"] for s in st["seats"]],
        }

    def send(self, who: str, raw: str | bytes) -> list[str]:
        """Send one message and a marker ping; the codes it got back."""
        c = self.sockets[who]
        marker = next(self._markers)
        self.counts["sent"] += 1
        try:
            c.send_raw(raw)
            c.send(t="ping", n=marker)
            answers = []
            while True:
                msg = c._take(10)
                if msg["t"] == "pong" and msg["n"] == marker:
                    break
                answers.append(msg.get("code") or msg["t"])
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None
            self.counts[f"closed-{code}"] += 1
            self.sockets[who] = self._open(who)
            return [f"closed-{code}"]
        for a in answers:
            self.counts[a] += 1
        if "welcome" in answers and who in ("south", "north"):
            # A join without the token is allowed (it watches); take the seat back.
            c.close()
            self.sockets[who] = self._open(who)
        return answers

    def check(self) -> None:
        assert "internal" not in self.counts, self.counts
        after = self.snapshot()
        assert after == self.before, (self.before, after)
        log = self.server.log()
        assert "Traceback" not in log and " ERROR " not in log, log[-3000:]

    def close(self) -> None:
        for c in self.sockets.values():
            try:
                c.close()
            except Exception:
                pass
