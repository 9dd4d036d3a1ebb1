"""Hardening, WebSocket side (issue 16): names that disguise themselves, seats
nobody took, budgets that count everything, caps that hold under races."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

import pytest
from asynckit import run
from serverproc import ServerProcess, make_server
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed
from wsclient import Client, create_room

from server.store.embedded import EmbeddedValkey


def test_names_that_hide_or_impersonate_are_refused(server):
    r = create_room(server.url, "kalah", mode="friend")
    c = Client(server.ws_url)
    for bad, why in (
        ("\u202eretupmoC", "U+202E"),  # right-to-left override: shows as "Computer"
        ("Jo\u200bhn", "U+200B"),  # zero-width space
        ("next\u0085line", "U+0085"),  # C1 control (NEL)
        ("Jo\U000e0041hn", "U+E0041"),  # a tag letter
        ("Jo\U000e0100hn", "U+E0100"),  # a variation selector
        ("Jo\U0001d173hn", "U+1D173"),  # musical formatting
        ("Jo\U0001bca0hn", "U+1BCA0"),  # a shorthand format control
        ("Jo\U00013430hn", "U+13430"),  # an Egyptian format control
        ("\u0301\u0308\u0303", "combining mark"),  # marks on nothing
        ("   ", "a letter or a digit"),  # only spaces
        ("\u3000", "a letter or a digit"),  # only an ideographic space
        ("Computer", "computer's"),
        ("computer (advanced)", "computer's"),
        ("\u0421omputer", "computer's"),  # Cyrillic Es
        ("C0MPUTER", "computer's"),
        ("\u03f9omputer", "computer's"),  # Greek lunate sigma
        ("Cornputer", "computer's"),  # rn for m
    ):
        c.send(t="join", room=r["room"], token=r["token"], name=bad)
        error = c.expect("error")
        assert error["code"] == "bad-message", repr(bad)
        assert why in error["message"], (bad, error["message"])
    c.send(t="join", room=r["room"], token=r["token"], name="Zoë wa Bao")
    c.expect("welcome")
    c.wait_state(lambda s: s["seats"][0]["name"] == "Zoë wa Bao")


@pytest.mark.parametrize(
    "name",
    [
        "山田 太郎",  # Japanese
        "Mwana wa Bao",  # Swahili
        "محمد علي",  # Arabic
        "Zoë Nguyễn",  # accented Latin (precomposed)
        "Zoe\u0308",  # accented Latin (a combining mark)
        "Ψυχή",
        "Иван",
        "बाओ खिलाड़ी",  # Devanagari, with vowel signs
        "ผู้เล่น",  # Thai, two marks on one letter
        "😀 Amani",  # emoji with letters
        "❤️ Juma",  # an emoji typed with its variation selector
        "👩‍💻 Neema",  # an emoji sequence with a zero-width joiner
        "👍🏽 Baraka",  # a skin tone
    ],
)
def test_names_in_many_scripts_are_shown(server, name):
    r = create_room(server.url, "kalah", mode="friend")
    c = Client(server.ws_url)
    c.send(t="join", room=r["room"], token=r["token"], name=name)
    c.expect("welcome")
    c.wait_state(lambda s: s["seats"][0]["name"] == name)
    c.close()


def test_a_seat_nobody_took_cannot_be_handed_to_the_computer(server):
    """The invited friend must still find the seat free, however long they take."""
    r = create_room(server.url, "kalah", mode="friend", side="south")
    south = Client(server.ws_url)
    south.join(r["room"], r["token"])
    time.sleep(2.0)  # past the test server's 1.5 s absence window
    south.send(t="hand_over", room=r["room"], id="h1")
    assert south.expect("error", id="h1")["code"] == "not-allowed"
    friend = Client(server.ws_url)
    assert friend.join(r["room"])["sides"] == [1]


def test_a_crowd_joining_at_once_gets_no_more_than_the_room_cap(store_kind, tmp_path, key_prefix):
    """The cap is checked and taken in one step in the store (150 simultaneous
    visitors all got into a room capped at 64 when it was a count, then a write)."""
    srv = make_server(store_kind, tmp_path, key_prefix + "crowd:", NYUMBA_SOCKETS_PER_ROOM="8")
    try:
        r = create_room(srv.url, "kalah", mode="friend")

        async def crowd() -> list[str]:
            socks = [await ws_connect(srv.ws_url, open_timeout=30) for _ in range(40)]
            await asyncio.gather(
                *(s.send(json.dumps({"t": "join", "room": r["room"]})) for s in socks)
            )

            async def first(s) -> str:
                while True:
                    msg = json.loads(await asyncio.wait_for(s.recv(), 60))
                    if msg["t"] == "welcome":  # the room's free seat, or a visitor's place
                        return "seat" if msg["sides"] else "welcome"
                    if msg["t"] == "error":
                        return msg["code"]

            answers = await asyncio.gather(*(first(s) for s in socks))
            await asyncio.gather(*(s.close() for s in socks))
            return answers

        answers = run(crowd())
        # Never more visitors than the cap (seat holders always get in: one of the crowd may
        # take the friend room's free seat); the others are refused (or, racing for the one
        # free seat, told to try again).
        assert 1 <= answers.count("welcome") <= 8, answers
        assert answers.count("seat") <= 1, answers
        assert answers.count("room-full") >= 1, answers
        # busy: lost the race for the free seat; internal: the store missed its deadline under
        # load (refused all the same). Never admitted beyond the cap is what is asserted.
        assert set(answers) <= {"welcome", "seat", "room-full", "busy", "internal"}, answers
    finally:
        srv.stop()


FAKETIME = Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")


def test_a_node_whose_clock_runs_ahead_cannot_hand_over_a_connected_seat(tmp_path, key_prefix):
    """Presence is judged on the store's clock, not each node's."""
    if not FAKETIME.exists():
        if os.environ.get("CI"):
            pytest.fail("libfaketime is missing (.ci/apt-packages: faketime)")
        pytest.skip("libfaketime is not installed")
    store = EmbeddedValkey(tmp_path / "valkey").start()
    env = {
        "NYUMBA_KEY_PREFIX": key_prefix + "clock:",
        "NYUMBA_ABSENT_MS": "60000",
        "NYUMBA_TICK_MS": "300",
        "NYUMBA_PRESENCE_TTL_MS": "1000",
    }
    skewed = {
        **env,
        "LD_PRELOAD": str(FAKETIME),
        "FAKETIME": "+180s",
        "FAKETIME_DONT_FAKE_MONOTONIC": "1",
    }
    honest = ServerProcess(redis_url=store.url, data_dir=tmp_path / "a", env=env)
    ahead = ServerProcess(redis_url=store.url, data_dir=tmp_path / "b", env=skewed)
    try:
        honest.start()
        ahead.start()
        r = create_room(honest.url, "kalah", mode="friend", side="south")
        south = Client(honest.ws_url)
        south.join(r["room"], r["token"])
        north = Client(ahead.ws_url)
        north.join(r["room"])
        assert north.sides == [1]
        time.sleep(1.5)  # ticks on both nodes
        north.send(t="hand_over", room=r["room"], id="h1")
        assert north.expect("error", id="h1")["code"] == "not-absent"
        st = south.wait_state(lambda s: s["seats"][0]["present"])
        assert st["seats"][0]["holder"] == "person"
    finally:
        ahead.stop()
        honest.stop()
        store.stop()


def test_a_room_at_its_longest_life_warns_then_closes_its_sockets_once(
    store_kind, tmp_path, key_prefix
):
    srv = make_server(
        store_kind,
        tmp_path,
        key_prefix + "ttl:",
        NYUMBA_ROOM_TTL_MS="3000",
        NYUMBA_TICK_MS="300",
    )
    try:
        r = create_room(srv.url, "kalah", mode="friend")
        c = Client(srv.ws_url)
        c.join(r["room"], r["token"])
        warning = c.expect("expiring", timeout=10)
        assert warning["room"] == r["room"] and 0 <= warning["in_ms"] <= 3000
        assert c.expect("error", timeout=15)["code"] == "no-room"
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                msg = json.loads(c.ws.recv(timeout=10))
                assert msg.get("code") != "no-room", "told no-room again"
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1000
    finally:
        srv.stop()
