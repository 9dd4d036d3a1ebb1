"""A ``cancel`` that loses its race to a pairing is answered like every intent with an id: the
seek's ``paired``, then the cancel's ``error`` ``no-seek`` (server/PROTOCOL.md, "The lobby")."""

from __future__ import annotations

import asyncio
import json
import random
import secrets

import websockets
from lobbykit import seek
from wsclient import Client

from server.rooms import seeks as S
from server.store.lobby import LobbyStore, seek_rules
from server.store.resp import Link


def _pair_quietly(store_url: str, prefix: str, target: str) -> str:
    """Accept the seek ``target`` in the store as a node would, its news published on a channel
    no node hears: a pairing whose news has not yet reached the seeker's node (its next refresh,
    up to a second later, would find it). The room's id."""

    async def run() -> str:
        link = Link(store_url)
        try:
            store = LobbyStore(link, prefix, sharded=False)
            store.channel = f"{prefix}nobody-listens"
            rec = S.SeekRec(
                secrets.token_urlsafe(9), "", {}, None, "random", False, "", "elsewhere", "x",
                "0" * 64, "192.0.2.1", "Taker",
            )  # fmt: skip
            room = secrets.token_urlsafe(12)
            kind, _ = await store.seek(
                rec.id, S.encode_rec(rec), seek_rules(3000, 100, room, 0, target, flights=100)
            )
            assert kind == "paired"
            return room
        finally:
            link.close()

    return asyncio.run(run())


def test_a_cancel_of_a_seek_paired_before_its_node_heard_is_answered(
    lobby_nodes, shared_store, key_prefix
) -> None:
    prefix = key_prefix + f"cancels{random.randrange(1 << 30)}:"
    (node,) = lobby_nodes(1, NYUMBA_KEY_PREFIX=prefix)
    for n in range(5):
        seeker = Client(node.ws_url)
        listed = seek(seeker, id=f"s{n}")["seek"]
        room = _pair_quietly(shared_store, prefix, listed)
        seeker.send(t="cancel", seek=listed, id=f"c{n}")
        refused = seeker.expect("error", timeout=5, id=f"c{n}")
        assert refused["code"] == "no-seek"
        assert seeker.expect("paired", id=f"s{n}")["room"] == room
        seeker.send(t="cancel", seek=listed, id=f"c{n}")  # a resend: the same answer
        assert seeker.expect("error", timeout=5, id=f"c{n}")["code"] == "no-seek"
        seeker.close()


async def _race(seeker_url: str, pairer_url: str, n: int) -> tuple[str, str]:
    """A seek on one node, then at once its cancel and another socket's seek on another node
    that pairs with it: the cancel's answer, and what the other socket was told."""
    clock = {"initial_ms": 60_000 + 1000 * n, "increment_ms": 0}  # a pool of this round's own
    body = {"t": "seek", "game": "kalah", "options": {"seeds": 4}, "clock": clock}
    async with (
        websockets.connect(seeker_url, open_timeout=30) as mine,
        websockets.connect(pairer_url, open_timeout=30) as theirs,
    ):
        await mine.send(json.dumps({**body, "id": "s"}))
        listed = json.loads(await asyncio.wait_for(mine.recv(), 10))
        assert listed["t"] == "seeking", listed
        await asyncio.gather(
            theirs.send(json.dumps({**body, "id": "p"})),
            mine.send(json.dumps({"t": "cancel", "seek": listed["seek"], "id": "c"})),
        )
        other = json.loads(await asyncio.wait_for(theirs.recv(), 10))["t"]
        while True:
            try:
                msg = json.loads(await asyncio.wait_for(mine.recv(), 5))
            except TimeoutError:
                return "unanswered", other
            if msg.get("id") == "c":
                return msg.get("status") or msg["code"], other


def test_200_cancels_racing_pairings_get_200_answers(lobby_nodes) -> None:
    a, b = lobby_nodes(2)

    async def all_rounds() -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for batch in range(10):
            out += await asyncio.gather(
                *(_race(a.ws_url, b.ws_url, batch * 20 + i) for i in range(20))
            )
        return out

    answers = asyncio.run(all_rounds())
    assert len(answers) == 200
    unanswered = [a for a in answers if a[0] == "unanswered"]
    assert not unanswered, f"{len(unanswered)} of 200 cancels unanswered: {answers}"
    # Either the cancel came first (the other socket's seek was listed) or the pairing did.
    assert all(a in {("cancelled", "seeking"), ("no-seek", "paired")} for a in answers), answers
